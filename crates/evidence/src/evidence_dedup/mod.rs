//! Evidence dedup: reprints of one source — syndicated copies, mirrors,
//! the same page under another URL — are merged into one item, which keeps
//! the best source and lists every merged copy with `[same source merged]`. Nothing is
//! lost: a merged copy is kept whole (id, URL, title, text, date) inside the
//! item that absorbed it.
//!
//! ## When two items are the same source
//!
//! Any one of these, in this order (the first that holds is the recorded
//! [`MergeReason`]):
//!
//! 1. **Canonical URL**: the same [`EvidenceItem::canonical_url`].
//! 2. **Text SimHash**: both texts have at least
//!    [`DedupOptions::min_text_features`] SimHash features and their 64-bit
//!    SimHashes ([`text_simhash`]) are within
//!    [`DedupOptions::simhash_threshold`] bits (default 3).
//! 3. **Title shingles**: the titles, without a trailing site name
//!    (` | Site`, ` - Site`, `_站点`), have a word 4-shingle Jaccard of at
//!    least [`DedupOptions::title_jaccard`] (default 0.9; titles of fewer
//!    than four words never match this way). When both items have text,
//!    the texts must agree too: text containment of at least
//!    [`DedupOptions::title_text_containment`] (default 0.5), so two
//!    different pages that happen to share a headline stay apart.
//! 4. **Text containment**: the word 5-shingles of the shorter text are at
//!    least [`DedupOptions::text_containment`] (default 0.8) contained in the
//!    longer one, and the shorter has at least
//!    [`DedupOptions::min_text_shingles`] of them. This catches a reprint
//!    whose tail was cut and whose page adds its own boilerplate, which moves
//!    the SimHash further than 3 bits.
//!
//! Containment is exact, but a pair is skipped early when a bottom-k sample
//! (the 32 smallest shingle hashes, a uniform sample) of the smaller text
//! puts it more than 0.25 below the threshold — so unrelated pages cost 32
//! lookups, not a full set intersection.
//!
//! **Same-site guard**: two items on one registrable domain are merged by
//! rules 2 and 4 only when their titles also agree (token Jaccard of the
//! site-less titles ≥ [`DedupOptions::same_site_title_similarity`], default
//! 0.5) — pages of one site share boilerplate, and a thin extraction can be
//! mostly boilerplate.
//!
//! ## Which item is kept
//!
//! The best source tier (T1 first), then a fetched item over an unfetched
//! one, then the best search rank, then input order. Items are visited in
//! that order; each joins the first kept item it is the same source as
//! (so merging never chains through a third page) or is kept itself. The
//! output lists kept items in the input order of their cluster's earliest
//! member, so a ranked input stays ranked.
//!
//! ## What a merged copy records
//!
//! [`MergedItem`]: the whole item, the reason, and `unique_chars` — the
//! characters of its sentences that do not occur in the kept item's text
//! (what a reader would miss by reading only the kept copy).

use crate::option_error::OptionError;
use std::collections::HashSet;

use ferret_core::near_dup::Fingerprint;
use ferret_core::tokenize::token_strings;
use serde::{Deserialize, Serialize};

use crate::evidence_item::{EvidenceItem, EvidenceItemError, check_ids};

mod signals;

pub use signals::{containment, jaccard, shingles, text_simhash, title_jaccard, title_tokens};

/// The schema name of [`DedupReport`].
pub const DEDUP_SCHEMA: &str = "ferret.evidence-dedup.v1";

/// The flag on an item that absorbed reprints.
pub const SAME_SOURCE_FLAG: &str = "[same source merged]";

/// Words per shingle for title Jaccard.
pub const TITLE_SHINGLE: usize = 4;

/// Words per shingle for text containment.
pub const TEXT_SHINGLE: usize = 5;

/// Thresholds of evidence dedup.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DedupOptions {
    /// Largest SimHash Hamming distance of one source (default 3, at most
    /// 64).
    pub simhash_threshold: u32,
    /// Fewest SimHash features a text needs for rule 2 (default 24).
    pub min_text_features: u32,
    /// Smallest title 4-shingle Jaccard of one source (default 0.9).
    pub title_jaccard: f64,
    /// Text containment required with a title match when both have text
    /// (default 0.5).
    pub title_text_containment: f64,
    /// Text containment of one source by rule 4 (default 0.8; 1.0 or more
    /// turns rule 4 off).
    pub text_containment: f64,
    /// Fewest 5-shingles the shorter text needs for rule 4 (default 40).
    pub min_text_shingles: usize,
    /// Title token Jaccard two items of one site need for rules 2 and 4
    /// (default 0.5).
    pub same_site_title_similarity: f64,
}

impl Default for DedupOptions {
    fn default() -> Self {
        DedupOptions {
            simhash_threshold: 3,
            min_text_features: 24,
            title_jaccard: 0.9,
            title_text_containment: 0.5,
            text_containment: 0.8,
            min_text_shingles: 40,
            same_site_title_similarity: 0.5,
        }
    }
}

/// Why an item was merged into another.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum MergeReason {
    /// The same canonical URL.
    CanonicalUrl,
    /// Text SimHashes within the threshold.
    TextSimhash {
        /// Hamming distance.
        distance: u32,
    },
    /// Titles with the same 4-shingles.
    TitleShingles {
        /// Title 4-shingle Jaccard.
        jaccard: f64,
        /// Text containment, when both had text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_containment: Option<f64>,
    },
    /// One text contained in the other.
    TextContainment {
        /// Share of the shorter text's 5-shingles in the longer.
        containment: f64,
    },
}

/// An item merged into a kept one, kept whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedItem {
    /// The merged item as given.
    pub item: EvidenceItem,
    /// Why it was merged.
    pub reason: MergeReason,
    /// Characters of its sentences that are not in the kept item's text.
    pub unique_chars: usize,
}

/// A kept item and the reprints it absorbed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DedupedItem {
    /// The kept item.
    pub item: EvidenceItem,
    /// Items merged into it, in keep order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<MergedItem>,
    /// `[同源合并]` when anything was merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

impl DedupedItem {
    /// The ids of the kept item and every merged one.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.item.id.as_str()).chain(self.merged.iter().map(|m| m.item.id.as_str()))
    }
}

/// The outcome of [`dedup_evidence`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DedupReport {
    /// Always [`DEDUP_SCHEMA`].
    pub schema: String,
    /// Items given.
    pub input: usize,
    /// Items merged into others.
    pub merged: usize,
    /// The kept items, in the input order of their earliest member.
    pub items: Vec<DedupedItem>,
}

impl DedupReport {
    /// Every input id, kept or merged.
    pub fn all_ids(&self) -> impl Iterator<Item = &str> {
        self.items.iter().flat_map(DedupedItem::ids)
    }

    /// The kept item that holds `id` (itself or as a merged copy).
    pub fn holder_of(&self, id: &str) -> Option<&DedupedItem> {
        self.items.iter().find(|d| d.ids().any(|i| i == id))
    }
}

/// Why dedup could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DedupError {
    /// The items are unusable (empty or repeated ids).
    #[error(transparent)]
    Items(#[from] EvidenceItemError),
    /// An option is out of range.
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// Size of the bottom-k sample of a text's shingles used to skip exact
/// containment for pairs that cannot reach a threshold.
const SAMPLE: usize = 32;

/// How far below a containment threshold the sample estimate may fall and
/// the exact containment still be computed.
const SAMPLE_MARGIN: f64 = 0.25;

/// What dedup computes once per item.
struct Signature {
    fingerprint: Option<Fingerprint>,
    text_shingles: HashSet<u64>,
    /// The [`SAMPLE`] smallest shingle hashes: a uniform sample of the set.
    text_sample: Vec<u64>,
    /// Title 4-shingles (none for titles under four words).
    title_shingles: HashSet<u64>,
    /// Title tokens, site name removed.
    title_tokens: HashSet<String>,
}

impl Signature {
    fn of(item: &EvidenceItem) -> Self {
        let has_text = item.is_evidence();
        let text_shingles = if has_text {
            shingles(&token_strings(&item.text), TEXT_SHINGLE)
        } else {
            HashSet::new()
        };
        let mut text_sample: Vec<u64> = text_shingles.iter().copied().collect();
        text_sample.sort_unstable();
        text_sample.truncate(SAMPLE);
        let title = title_tokens(&item.title);
        Signature {
            fingerprint: has_text.then(|| text_simhash(&item.text)),
            text_sample,
            text_shingles,
            title_shingles: if title.len() >= TITLE_SHINGLE {
                shingles(&title, TITLE_SHINGLE)
            } else {
                HashSet::new()
            },
            title_tokens: title.into_iter().collect(),
        }
    }

    /// Text containment of `self` and `other` when it can reach `at_least`
    /// (the smaller set's sample is checked first); `None` when either has
    /// no text or the sample rules it out.
    fn containment_reaching(&self, other: &Signature, at_least: f64) -> Option<f64> {
        if self.text_shingles.is_empty() || other.text_shingles.is_empty() {
            return None;
        }
        let (small, large) = if self.text_shingles.len() <= other.text_shingles.len() {
            (self, other)
        } else {
            (other, self)
        };
        let hits = small
            .text_sample
            .iter()
            .filter(|h| large.text_shingles.contains(h))
            .count();
        let estimate = hits as f64 / small.text_sample.len() as f64;
        if estimate < at_least - SAMPLE_MARGIN {
            return None;
        }
        Some(containment(&self.text_shingles, &other.text_shingles))
    }
}

/// Token Jaccard of two titles (1.0 for two empty titles), as
/// [`ferret_core::near_dup::title_similarity`] computes it.
fn token_jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

fn validate(o: &DedupOptions) -> Result<(), DedupError> {
    let unit = |name: &'static str, v: f64| {
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(OptionError::new("dedup", name, v, "0 to 1"))
        }
    };
    unit("title_jaccard", o.title_jaccard)?;
    unit("title_text_containment", o.title_text_containment)?;
    unit("same_site_title_similarity", o.same_site_title_similarity)?;
    if o.text_containment.is_nan() || o.text_containment < 0.0 {
        return Err(OptionError::new(
            "dedup",
            "text_containment",
            o.text_containment,
            "0 or more (1.0 or more turns the rule off)",
        )
        .into());
    }
    if o.simhash_threshold > 64 {
        return Err(
            OptionError::new("dedup", "simhash_threshold", o.simhash_threshold, "0 to 64").into(),
        );
    }
    Ok(())
}

/// Whether `b` is the same source as the kept `a`, and by which rule.
fn same_source(
    a: &EvidenceItem,
    sa: &Signature,
    b: &EvidenceItem,
    sb: &Signature,
    o: &DedupOptions,
) -> Option<MergeReason> {
    if a.canonical_url == b.canonical_url {
        return Some(MergeReason::CanonicalUrl);
    }
    let same_site = a.domain == b.domain;
    let titles_agree = || {
        !same_site
            || token_jaccard(&sa.title_tokens, &sb.title_tokens) >= o.same_site_title_similarity
    };
    if let (Some(fa), Some(fb)) = (sa.fingerprint, sb.fingerprint)
        && fa.features >= o.min_text_features
        && fb.features >= o.min_text_features
    {
        let distance = fa.distance(&fb);
        if distance <= o.simhash_threshold && titles_agree() {
            return Some(MergeReason::TextSimhash { distance });
        }
    }
    let both_text = !sa.text_shingles.is_empty() && !sb.text_shingles.is_empty();
    if !sa.title_shingles.is_empty() && !sb.title_shingles.is_empty() {
        let j = jaccard(&sa.title_shingles, &sb.title_shingles);
        if j >= o.title_jaccard {
            if !both_text {
                return Some(MergeReason::TitleShingles {
                    jaccard: j,
                    text_containment: None,
                });
            }
            if let Some(c) = sa.containment_reaching(sb, o.title_text_containment)
                && c >= o.title_text_containment
            {
                return Some(MergeReason::TitleShingles {
                    jaccard: j,
                    text_containment: Some(c),
                });
            }
        }
    }
    if both_text
        && o.text_containment <= 1.0
        && sa.text_shingles.len().min(sb.text_shingles.len()) >= o.min_text_shingles
        && let Some(c) = sa.containment_reaching(sb, o.text_containment)
        && c >= o.text_containment
        && titles_agree()
    {
        return Some(MergeReason::TextContainment { containment: c });
    }
    None
}

/// Where [`unique_chars`] cuts sentences.
const SENTENCE_BREAKS: &[char] = &['\n', '.', '!', '?', '。', '！', '？'];

/// Characters of `merged`'s sentences not found in `kept` (a sentence
/// equal to one of `kept`'s is found at once; any other is searched for as
/// a substring).
fn unique_chars(kept: &str, merged: &str) -> usize {
    let kept_sentences: HashSet<&str> = kept
        .split(SENTENCE_BREAKS)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    merged
        .split(SENTENCE_BREAKS)
        .map(str::trim)
        .filter(|s| !s.is_empty() && !kept_sentences.contains(s) && !kept.contains(*s))
        .map(|s| s.chars().count())
        .sum()
}

/// Same-source clusters in keep order: the kept item's index and its
/// members, each with the rule that merged it.
type Clusters = Vec<(usize, Vec<(usize, MergeReason)>)>;

/// Visits the items best first (source tier, fetched, search rank, input
/// order); each joins the first kept item it is the same source as, or is
/// kept itself.
fn cluster(items: &[EvidenceItem], signatures: &[Signature], options: &DedupOptions) -> Clusters {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| {
        let it = &items[i];
        (
            it.source_tier,
            !it.is_evidence(),
            it.rank.unwrap_or(u32::MAX),
            i,
        )
    });
    let mut clusters: Clusters = Vec::new();
    for &i in &order {
        let joined = clusters.iter().enumerate().find_map(|(k, (r, _))| {
            same_source(
                &items[*r],
                &signatures[*r],
                &items[i],
                &signatures[i],
                options,
            )
            .map(|reason| (k, reason))
        });
        match joined {
            Some((k, reason)) => clusters[k].1.push((i, reason)),
            None => clusters.push((i, Vec::new())),
        }
    }
    clusters
}

/// The report's items: each cluster's kept item with its merged copies,
/// ordered by the earliest input position in the cluster; with the number
/// of copies merged.
fn assemble(items: Vec<EvidenceItem>, clusters: Clusters) -> (Vec<DedupedItem>, usize) {
    let mut order: Vec<(usize, usize)> = clusters
        .iter()
        .enumerate()
        .map(|(k, (r, members))| {
            let first = members.iter().map(|&(i, _)| i).fold(*r, usize::min);
            (first, k)
        })
        .collect();
    order.sort_unstable();
    let mut slots: Vec<Option<EvidenceItem>> = items.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(order.len());
    let mut merged_count = 0;
    for (_, k) in order {
        let (kept, members) = &clusters[k];
        let Some(item) = slots[*kept].take() else {
            continue;
        };
        let merged: Vec<MergedItem> = members
            .iter()
            .filter_map(|&(i, reason)| {
                let m = slots[i].take()?;
                Some(MergedItem {
                    unique_chars: unique_chars(&item.text, &m.text),
                    item: m,
                    reason,
                })
            })
            .collect();
        merged_count += merged.len();
        out.push(DedupedItem {
            flags: if merged.is_empty() {
                Vec::new()
            } else {
                vec![SAME_SOURCE_FLAG.to_string()]
            },
            item,
            merged,
        });
    }
    (out, merged_count)
}

/// Merges same-source reprints (see the module docs). Every input item is
/// in the report exactly once: kept, or inside the item that absorbed it.
pub fn dedup_evidence(
    items: Vec<EvidenceItem>,
    options: &DedupOptions,
) -> Result<DedupReport, DedupError> {
    validate(options)?;
    check_ids(&items)?;
    let input = items.len();
    let signatures: Vec<Signature> = items.iter().map(Signature::of).collect();
    let clusters = cluster(&items, &signatures, options);
    let (out, merged_count) = assemble(items, clusters);
    Ok(DedupReport {
        schema: DEDUP_SCHEMA.to_string(),
        input,
        merged: merged_count,
        items: out,
    })
}
