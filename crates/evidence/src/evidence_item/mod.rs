//! [`EvidenceItem`]: one page as the research steps see it — where it came
//! from, how much its source is trusted, and (when it was fetched) what it
//! says. Citations ([`crate::citations`]), the gap ledger ([`crate::gaps`])
//! and evidence dedup ([`crate::evidence_dedup`]) all take a slice of them.
//!
//! An item is built from a fetched page ([`EvidenceItem::from_page`]), from
//! a search result that was not (or not yet) fetched
//! ([`EvidenceItem::from_result`]), or by hand ([`EvidenceItem::new`] and the
//! `with_*` setters). Only fetched text is evidence: an item whose
//! [`EvidenceItem::fetched`] is false is never quoted and never supports a
//! claim, however good its title looks (the search envelope's
//! `snippets-are-not-final-evidence` policy).
//!
//! ## Source tiers
//!
//! [`SourceTier`] (T1–T4, weights 10 / 3 / 1 / 0.1) is
//! [`ferret_core::tier::SourceTier`], re-exported here: a host in the
//! authority table's tier 1/2/3 is T1/T2/T3, any other host goes by its
//! authority score (≥ 0.9 T1, ≥ 0.8 T2, ≥ 0.6 T3, else T4).
//!
//! ## Ids
//!
//! Items are named `e1`, `e2`, … ([`evidence_id`]) by convention; any
//! non-empty id works, but ids must be unique within one slice
//! ([`check_ids`]), because citations and gaps refer to items by id.

use std::collections::HashSet;

use ferret_core::authority::registrable_domain;
use ferret_core::canonical::{CanonicalOptions, canonical_url};
use ferret_core::{Provenance, SearchResult};
use serde::{Deserialize, Serialize};

use crate::fetch::FetchedPage;

pub mod terms;

pub use ferret_core::tier::SourceTier;

/// Which of the three query lanes (direct, site, counter) found an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryRole {
    /// R1: the direct query (also the default when nobody said).
    #[default]
    Direct,
    /// R2: a query restricted to chosen sites.
    Site,
    /// R3: a counter-evidence (disconfirm) query.
    Counter,
}

/// A claim or question the evidence is checked against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// Its id (`claim1`, or a plan's constraint id such as `c1`).
    pub id: String,
    /// The text.
    pub text: String,
}

impl Claim {
    /// A claim with an id.
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        Claim {
            id: id.into(),
            text: text.into(),
        }
    }

    /// Claims named `claim1`, `claim2`, … in order.
    pub fn numbered<S: AsRef<str>>(texts: &[S]) -> Vec<Claim> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Claim::new(format!("claim{}", i + 1), t.as_ref()))
            .collect()
    }
}

/// One page as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceItem {
    /// Its id, unique within a run (`e1`, `e2`, …).
    pub id: String,
    /// The URL as fetched (the final URL after redirects) or as returned.
    pub url: String,
    /// [`ferret_core::canonical::canonical_url`] of [`Self::url`].
    pub canonical_url: String,
    /// The registrable domain (`example.co.uk`).
    pub domain: String,
    /// The page title (empty when unknown).
    pub title: String,
    /// The fetched main text; empty when the page was not fetched.
    pub text: String,
    /// Whether [`Self::text`] is fetched page text (only that is evidence).
    pub fetched: bool,
    /// The source tier of the host.
    pub source_tier: SourceTier,
    /// Publication date as the source wrote it (ISO 8601 preferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Search rank (1 = best), used to break ties between equal tiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// The query lane that found it.
    #[serde(default)]
    pub role: QueryRole,
    /// Ids of the claims / sub-questions / constraints it was gathered for
    /// (empty: decided by its text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    /// A hint for its evidence label (`benchmark`, `source`, `docs`,
    /// `forum`, …; see [`crate::citations::EvidenceLabel::classify`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Who read its title and text.
    pub provenance: Provenance,
    /// Its page carries prompt-injection signals: quotes from it are
    /// marked untrusted.
    #[serde(default)]
    pub untrusted: bool,
}

/// An evidence item or a set of them could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceItemError {
    /// The id is empty.
    #[error("an evidence item needs a non-empty id (e.g. \"e1\")")]
    EmptyId,
    /// The URL has no canonical form.
    #[error(
        "evidence item {id}: {url:?} is not an absolute http(s) URL ({reason}); pass the page's URL"
    )]
    InvalidUrl {
        /// The item's id.
        id: String,
        /// The URL given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// Two items share an id.
    #[error("evidence id {id:?} is used by more than one item; give every item its own id")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
}

/// The conventional id of the `n`-th item (1-based): `e1`, `e2`, ….
pub fn evidence_id(n: usize) -> String {
    format!("e{n}")
}

/// Fails on an empty or repeated id.
pub fn check_ids(items: &[EvidenceItem]) -> Result<(), EvidenceItemError> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    for item in items {
        if item.id.is_empty() {
            return Err(EvidenceItemError::EmptyId);
        }
        if !seen.insert(&item.id) {
            return Err(EvidenceItemError::DuplicateId {
                id: item.id.clone(),
            });
        }
    }
    Ok(())
}

impl EvidenceItem {
    /// An unfetched item for `url`, known through a read `provenance` says
    /// (a search result's, a page's): canonical URL, registrable domain and
    /// source tier are derived from the URL.
    pub fn new(
        id: impl Into<String>,
        url: impl Into<String>,
        provenance: Provenance,
    ) -> Result<Self, EvidenceItemError> {
        let id = id.into();
        let url = url.into();
        if id.is_empty() {
            return Err(EvidenceItemError::EmptyId);
        }
        let canonical = canonical_url(&url, CanonicalOptions::default()).map_err(|e| {
            EvidenceItemError::InvalidUrl {
                id: id.clone(),
                url: url.clone(),
                reason: e.to_string(),
            }
        })?;
        let host = url::Url::parse(&canonical)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(EvidenceItem {
            id,
            domain: registrable_domain(&host),
            source_tier: SourceTier::from_host(&host),
            url,
            canonical_url: canonical,
            title: String::new(),
            text: String::new(),
            fetched: false,
            published_at: None,
            rank: None,
            role: QueryRole::Direct,
            subjects: Vec::new(),
            kind: None,
            provenance,
            untrusted: false,
        })
    }

    /// An item from a fetched page: its final URL, title, publication date
    /// (or last modification) and text. It counts as fetched when the
    /// verdict was readable (`strong_ok` / `weak_ok`) and text came back.
    pub fn from_page(id: impl Into<String>, page: &FetchedPage) -> Result<Self, EvidenceItemError> {
        let url = if page.final_url.is_empty() {
            &page.url
        } else {
            &page.final_url
        };
        let mut item = EvidenceItem::new(id, url.clone(), page.provenance.clone())?;
        item.title = page.title.clone().unwrap_or_default();
        item.fetched = page.ok && !page.text.trim().is_empty();
        item.text = if item.fetched {
            page.text.clone()
        } else {
            String::new()
        };
        item.published_at = page
            .published_at
            .clone()
            .or_else(|| page.modified_at.clone());
        item.untrusted = crate::safety::is_untrusted(&page.safety);
        Ok(item)
    }

    /// An unfetched item from a search result: its URL, title, date and
    /// domain, ranked by its best engine rank. The snippet is not kept: it
    /// is never evidence.
    pub fn from_result(
        id: impl Into<String>,
        result: &SearchResult,
    ) -> Result<Self, EvidenceItemError> {
        let mut item = EvidenceItem::new(
            id,
            result.original_url.to_string(),
            result.provenance.clone(),
        )?;
        item.title = result.title.to_string();
        item.published_at = result.published_at.clone();
        item.rank = result.sources.iter().map(|s| s.rank).min();
        Ok(item)
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Sets fetched page text (and marks the item fetched when it is not
    /// blank).
    pub fn with_fetched_text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self.fetched = !self.text.trim().is_empty();
        self
    }

    /// Sets the publication date.
    pub fn with_published_at(mut self, date: impl Into<String>) -> Self {
        self.published_at = Some(date.into());
        self
    }

    /// Sets the search rank (1 = best).
    pub fn with_rank(mut self, rank: u32) -> Self {
        self.rank = Some(rank);
        self
    }

    /// Sets the query lane.
    pub fn with_role(mut self, role: QueryRole) -> Self {
        self.role = role;
        self
    }

    /// Sets the claims / sub-questions it was gathered for.
    pub fn with_subjects<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.subjects = ids.into_iter().map(Into::into).collect();
        self
    }

    /// Overrides the source tier.
    pub fn with_tier(mut self, tier: SourceTier) -> Self {
        self.source_tier = tier;
        self
    }

    /// Sets the evidence-label hint.
    pub fn with_kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// The item's evidence label (实测 > 源码 > 文档 > 社区 > 推测) from its
    /// kind hint and URL.
    pub fn label(&self) -> crate::citations::EvidenceLabel {
        crate::citations::EvidenceLabel::classify(Some(&self.url), self.kind.as_deref())
    }

    /// Whether it is usable evidence: fetched, with non-blank text.
    pub fn is_evidence(&self) -> bool {
        self.fetched && !self.text.trim().is_empty()
    }
}
