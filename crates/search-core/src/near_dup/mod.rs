//! Near-duplicate clusters: results whose title and snippet say the same
//! thing at different URLs (mirrors, syndicated copies, print and mobile
//! versions) are folded into the best-scored one, which lists the others in
//! [`SearchResult::near_duplicates`] with their SimHash distance and sources.
//!
//! ## Fingerprints
//!
//! A [`Fingerprint`] is a 64-bit SimHash over the distinct features of the
//! title (without a trailing site-name segment such as ` | Site` or
//! ` - Site`, see [`title_without_site_name`], so that a copy on another
//! site still matches) and the snippet, each tokenised by
//! [`crate::tokenize::tokens`]:
//! word 3-shingles (a field with fewer than three words gives one feature
//! made of all its words) and CJK character bigrams (each bigram token is a
//! feature). Shingles do not span the title/snippet boundary. Every feature
//! counts once.
//!
//! ## When two results are near-duplicates
//!
//! All of:
//!
//! 1. Both are **eligible**: at least [`NearDupOptions::min_features`]
//!    distinct features and [`NearDupOptions::min_chars`] characters of title
//!    plus snippet. Very short texts say too little to be called copies.
//! 2. Their SimHashes are within [`NearDupOptions::threshold`] bits
//!    (Hamming distance; default 3).
//! 3. **Their titles agree** — the guard against pages that share only site
//!    boilerplate: two pages of one site often carry the same long
//!    boilerplate sentence as their snippet, so their fingerprints are close
//!    while the pages differ, and only the title tells them apart. Within
//!    one registrable domain the title token sets must have a Jaccard
//!    similarity of at least [`NearDupOptions::same_site_title_similarity`]
//!    (default 1.0: the same words); across domains at least
//!    [`NearDupOptions::cross_site_title_similarity`] (default 0.5, which lets
//!    a syndicated copy end its title with its own site name).
//! 4. They are in the **same partition**: public results cluster only with
//!    public ones and login results only with login results of the same
//!    `auth_partition`, so login data never hides inside a public result.
//!
//! ## Clustering, without quadratic work
//!
//! Results are visited in the order given (best first). Each either joins
//! the closest earlier cluster representative it is a near-duplicate of
//! (ties: the better-ranked representative) or becomes a representative.
//! Candidates are found through a band index: the 64 bits are cut into
//! `threshold + 1` blocks (4 blocks of 16 bits for the default 3), and two
//! hashes within `threshold` bits agree exactly on at least one block
//! (pigeonhole), so only representatives sharing a block value are
//! compared. At most [`NearDupOptions::max_bucket_scan`] representatives
//! are compared per block value, which bounds the work even on adversarial
//! input; the work is linear in the number of results.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::result::{NearDuplicate, SearchResult};

mod token_stream;

pub use token_stream::token_hash;
pub(crate) use token_stream::{Tok, TokenStream};
use token_stream::{count_tokens, mix};

/// The largest supported [`NearDupOptions::threshold`] (8 blocks of 8 bits).
pub const MAX_THRESHOLD: u32 = 7;

/// Options of near-duplicate clustering.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NearDupOptions {
    /// Largest SimHash Hamming distance that joins a cluster (0–7; default 3).
    pub threshold: u32,
    /// Fewest distinct features a result needs to take part (default 8).
    pub min_features: u32,
    /// Fewest characters of title + snippet a result needs (default 40).
    pub min_chars: usize,
    /// Title token Jaccard similarity needed within one registrable domain
    /// (default 1.0).
    pub same_site_title_similarity: f64,
    /// Title token Jaccard similarity needed across domains (default 0.5).
    pub cross_site_title_similarity: f64,
    /// Most representatives compared per block value (default 64).
    pub max_bucket_scan: usize,
}

impl Default for NearDupOptions {
    fn default() -> Self {
        NearDupOptions {
            threshold: 3,
            min_features: 8,
            min_chars: 40,
            same_site_title_similarity: 1.0,
            cross_site_title_similarity: 0.5,
            max_bucket_scan: 64,
        }
    }
}

/// A result's SimHash and whether it has enough text to be clustered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The 64-bit SimHash.
    pub simhash: u64,
    /// The number of distinct features it was computed from.
    pub features: u32,
    /// Characters of title plus snippet.
    pub chars: u32,
}

impl Fingerprint {
    /// The fingerprint of a title and a snippet.
    pub fn of(title: &str, snippet: &str) -> Self {
        FingerprintBuilder::default().build(title, snippet)
    }

    /// Whether it qualifies for clustering under `options`.
    pub fn is_eligible(&self, options: &NearDupOptions) -> bool {
        self.features >= options.min_features && self.chars as usize >= options.min_chars
    }

    /// Hamming distance between two fingerprints.
    pub fn distance(&self, other: &Fingerprint) -> u32 {
        (self.simhash ^ other.simhash).count_ones()
    }
}

/// Computes fingerprints, reusing its buffers across calls.
#[derive(Debug, Default)]
pub struct FingerprintBuilder {
    features: Vec<u64>,
    words: Vec<u64>,
    seen: Vec<u64>,
    stream: TokenStream,
}

impl FingerprintBuilder {
    /// The fingerprint of a title and a snippet.
    pub fn build(&mut self, title: &str, snippet: &str) -> Fingerprint {
        self.build_visiting(title, snippet, |_| {})
    }

    /// [`Self::build`], also handing every token of the full title and of
    /// the snippet to `visit` (fusion measures keyword coverage with them,
    /// so each text is tokenised once).
    pub(crate) fn build_visiting(
        &mut self,
        title: &str,
        snippet: &str,
        mut visit: impl FnMut(&Tok<'_>),
    ) -> Fingerprint {
        self.features.clear();
        let stripped = title_without_site_name(title);
        if stripped.len() == title.len() {
            self.add_field(title, &mut visit);
        } else {
            self.stream.for_each(title, |t| visit(&t));
            self.add_field(stripped, &mut |_| {});
        }
        self.add_field(snippet, &mut visit);
        dedup_hashes(&mut self.features, &mut self.seen);
        let n = self.features.len() as u32;
        let counts = bit_counts(&self.features);
        let mut simhash = 0u64;
        for (bit, &count) in counts.iter().enumerate() {
            if 2 * count > n {
                simhash |= 1 << bit;
            }
        }
        let chars = title.chars().count() + snippet.chars().count();
        Fingerprint {
            simhash,
            features: n,
            chars: u32::try_from(chars).unwrap_or(u32::MAX),
        }
    }

    fn add_field(&mut self, text: &str, visit: &mut impl FnMut(&Tok<'_>)) {
        self.words.clear();
        let (words, features) = (&mut self.words, &mut self.features);
        self.stream.for_each(text, |t| {
            visit(&t);
            if t.cjk {
                features.push(mix(t.hash ^ CJK_TAG));
            } else {
                words.push(t.hash);
            }
        });
        match self.words.len() {
            0 => {}
            1 | 2 => {
                let h = self
                    .words
                    .iter()
                    .fold(SHORT_TAG, |acc, &w| mix(acc.rotate_left(23) ^ w));
                self.features.push(h);
            }
            _ => {
                for w in self.words.windows(3) {
                    self.features
                        .push(mix(w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42)));
                }
            }
        }
    }
}

/// Remove repeated values from `hashes` (keeping first occurrences), with
/// an open-addressing table in `table` (reused between calls). A zero hash
/// is the empty-slot marker, so a zero value is remapped to 1 first (one
/// feature in 2^64 changes value; the SimHash does not notice).
fn dedup_hashes(hashes: &mut Vec<u64>, table: &mut Vec<u64>) {
    let size = (hashes.len() * 2).next_power_of_two().max(16);
    table.clear();
    table.resize(size, 0);
    let mask = size - 1;
    hashes.retain_mut(|h| {
        if *h == 0 {
            *h = 1;
        }
        let mut slot = (*h as usize) & mask;
        loop {
            match table[slot] {
                0 => {
                    table[slot] = *h;
                    return true;
                }
                v if v == *h => return false,
                _ => slot = (slot + 1) & mask,
            }
        }
    });
}

/// `EXPAND[b]` has byte `i` set to bit `i` of `b`.
const EXPAND: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                table[b] |= 1 << (8 * i);
            }
            i += 1;
        }
        b += 1;
    }
    table
};

/// For each of the 64 bit positions, how many of `hashes` have it set.
/// Counts in byte lanes (eight table additions per hash instead of 64 bit
/// tests), spilled to the totals every 255 hashes before a lane can overflow.
fn bit_counts(hashes: &[u64]) -> [u32; 64] {
    let mut counts = [0u32; 64];
    for chunk in hashes.chunks(255) {
        let mut lanes = [0u64; 8];
        for &h in chunk {
            for (j, lane) in lanes.iter_mut().enumerate() {
                *lane += EXPAND[((h >> (8 * j)) & 0xff) as usize];
            }
        }
        for (j, lane) in lanes.iter().enumerate() {
            for i in 0..8 {
                counts[8 * j + i] += ((lane >> (8 * i)) & 0xff) as u32;
            }
        }
    }
    counts
}

const CJK_TAG: u64 = 0x9E37_79B9_7F4A_7C15;
const SHORT_TAG: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// "No entry" in the bucket lists.
const NONE: u32 = u32::MAX;

/// The first entry of each bucket: a dense array for 16-bit (or narrower)
/// blocks once there are enough results to fill one, a hash map otherwise.
enum Heads {
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

impl Heads {
    fn get(&self, key: u64) -> u32 {
        match self {
            Heads::Dense(v) => v[key as usize],
            Heads::Sparse(m) => m.get(&key).copied().unwrap_or(NONE),
        }
    }

    fn set(&mut self, key: u64, value: u32) {
        match self {
            Heads::Dense(v) => v[key as usize] = value,
            Heads::Sparse(m) => {
                m.insert(key, value);
            }
        }
    }
}

/// One block's index: representatives linked per block value (a bucket is
/// a list threaded through `next`, newest first), so inserting allocates
/// nothing.
struct BlockIndex {
    shift: u32,
    mask: u64,
    heads: Heads,
    next: Vec<u32>,
}

impl BlockIndex {
    fn new(shift: u32, mask: u64, n: usize) -> Self {
        let heads = if mask <= 0xFFFF && n >= 16_384 {
            Heads::Dense(vec![NONE; mask as usize + 1])
        } else {
            Heads::Sparse(FxHashMap::default())
        };
        BlockIndex {
            shift,
            mask,
            heads,
            next: vec![NONE; n],
        }
    }

    fn key(&self, simhash: u64) -> u64 {
        (simhash >> self.shift) & self.mask
    }

    fn insert(&mut self, simhash: u64, i: u32) {
        let key = self.key(simhash);
        self.next[i as usize] = self.heads.get(key);
        self.heads.set(key, i);
    }
}

/// The bit ranges `(shift, mask)` of the `threshold + 1` blocks.
fn blocks(threshold: u32) -> Vec<(u32, u64)> {
    let n = threshold + 1;
    let base = 64 / n;
    let extra = 64 % n;
    let mut out = Vec::with_capacity(n as usize);
    let mut shift = 0;
    for i in 0..n {
        let width = base + u32::from(i < extra);
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        out.push((shift, mask));
        shift += width;
    }
    out
}

/// Separators before a site name at the end of a title.
const SITE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " · ", " :: ", " » "];

/// Separators CJK sites write without spaces (`Rust 异步编程_知乎`).
const CJK_SITE_SEPARATORS: &[char] = &['_', '｜'];

/// Most tokens a trailing segment may have to count as a site name.
const MAX_SITE_NAME_TOKENS: usize = 4;

/// `title` without a trailing site-name segment: the part after the last
/// ` | `, ` - `, ` – `, ` — `, ` · `, ` :: ` or ` » ` (in CJK titles also
/// `_` or `｜` without spaces) when it has at most four tokens and
/// something is left before it. `Announcing Rust 1.80.0 | Mirror` →
/// `Announcing Rust 1.80.0`; a title without such a segment is unchanged.
pub fn title_without_site_name(title: &str) -> &str {
    let t = title.trim();
    let bytes = t.as_bytes();
    // Only a title with a separator byte can have a site name to cut.
    if !bytes
        .iter()
        .any(|&b| matches!(b, b'|' | b'-' | b'_' | b':' | 0xC2 | 0xE2 | 0xEF))
    {
        return t;
    }
    let cjk = crate::tokenize::has_cjk(t);
    // The last separator: a spaced one, or in CJK titles an unspaced one.
    let mut cut: Option<(usize, usize)> = None; // (start, length)
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' {
            // Every spaced separator has a punctuation byte after the space.
            if bytes
                .get(i + 1)
                .is_some_and(|n| !n.is_ascii_alphanumeric() && *n != b' ')
                && let Some(sep) = SITE_SEPARATORS.iter().find(|sep| t[i..].starts_with(**sep))
            {
                cut = Some((i, sep.len()));
            }
        } else if cjk && (b == b'_' || b == 0xEF) {
            // `_`, or the first byte of `｜` (U+FF5C, EF BD 9C).
            if let Some(c) = t[i..].chars().next()
                && CJK_SITE_SEPARATORS.contains(&c)
            {
                cut = Some((i, c.len_utf8()));
            }
        }
    }
    let Some((at, len)) = cut else {
        return t;
    };
    let head = t[..at].trim_end();
    let tail = &t[at + len..];
    let tail_tokens = count_tokens(tail);
    if head.is_empty() || tail_tokens == 0 || tail_tokens > MAX_SITE_NAME_TOKENS {
        return t;
    }
    head
}

/// A title's distinct token hashes, sorted: what titles are compared by.
fn title_key(stream: &mut TokenStream, title: &str) -> Box<[u64]> {
    let mut key = Vec::new();
    stream.for_each(title, |t| key.push(t.hash));
    key.sort_unstable();
    key.dedup();
    key.into_boxed_slice()
}

/// Jaccard similarity of two sorted, distinct hash lists; two empty lists
/// are 1.0.
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Jaccard similarity of two titles' token sets (tokens as
/// [`crate::tokenize::tokens`] gives them); two empty titles are 1.0.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    let mut stream = TokenStream::default();
    jaccard(&title_key(&mut stream, a), &title_key(&mut stream, b))
}

/// The partition class clustering must respect: `None` for public results,
/// the `auth_partition` for login results.
fn partition_class(r: &SearchResult) -> Option<&str> {
    r.provenance
        .is_login()
        .then_some(r.provenance.auth_partition.as_str())
}

/// The title similarity two results need: same-site or cross-site.
fn title_threshold(a: &SearchResult, b: &SearchResult, options: &NearDupOptions) -> f64 {
    if !a.domain.is_empty() && a.domain == b.domain {
        options.same_site_title_similarity
    } else {
        options.cross_site_title_similarity
    }
}

/// Title keys, computed the first time a result is compared.
struct TitleKeys {
    keys: Vec<Option<Box<[u64]>>>,
    stream: TokenStream,
}

impl TitleKeys {
    fn agree(&mut self, results: &[SearchResult], a: usize, b: usize, needed: f64) -> bool {
        for i in [a, b] {
            if self.keys[i].is_none() {
                self.keys[i] = Some(title_key(&mut self.stream, &results[i].title));
            }
        }
        match (&self.keys[a], &self.keys[b]) {
            (Some(ka), Some(kb)) => jaccard(ka, kb) >= needed - 1e-12,
            _ => false,
        }
    }
}

/// Fold near-duplicates of `results` (best first), computing fingerprints
/// from each result's title and snippet. See the module docs.
pub fn cluster(results: Vec<SearchResult>, options: &NearDupOptions) -> Vec<SearchResult> {
    let mut builder = FingerprintBuilder::default();
    let fps: Vec<Fingerprint> = results
        .iter()
        .map(|r| builder.build(&r.title, &r.snippet))
        .collect();
    cluster_with(results, &fps, options)
}

/// [`cluster`] with fingerprints already computed (`fingerprints[i]` belongs
/// to `results[i]`; a missing fingerprint makes a result ineligible).
pub fn cluster_with(
    results: Vec<SearchResult>,
    fingerprints: &[Fingerprint],
    options: &NearDupOptions,
) -> Vec<SearchResult> {
    let threshold = options.threshold.min(MAX_THRESHOLD);
    let mut index: Vec<BlockIndex> = blocks(threshold)
        .into_iter()
        .map(|(shift, mask)| BlockIndex::new(shift, mask, results.len()))
        .collect();
    // For each result: the representative it joined and the distance.
    let mut joined: Vec<Option<(u32, u32)>> = vec![None; results.len()];
    let mut any_joined = false;
    // The last result that compared each representative (a representative
    // found through several blocks is compared once).
    let mut seen_by: Vec<u32> = vec![NONE; results.len()];
    let mut titles = TitleKeys {
        keys: vec![None; results.len()],
        stream: TokenStream::default(),
    };

    for (i, r) in results.iter().enumerate() {
        let Some(fp) = fingerprints.get(i) else {
            continue;
        };
        if !fp.is_eligible(options) {
            continue;
        }
        let class = partition_class(r);
        let mut best: Option<(u32, u32)> = None; // (distance, rep index)
        for block in &index {
            let mut rep = block.heads.get(block.key(fp.simhash));
            let mut scanned = 0;
            while rep != NONE && scanned < options.max_bucket_scan {
                let at = rep as usize;
                if seen_by[at] != i as u32 {
                    seen_by[at] = i as u32;
                    let d = fp.distance(&fingerprints[at]);
                    if d <= threshold && best.is_none_or(|b| (d, rep) < b) {
                        let rep_r = &results[at];
                        if partition_class(rep_r) == class
                            && titles.agree(&results, i, at, title_threshold(r, rep_r, options))
                        {
                            best = Some((d, rep));
                        }
                    }
                }
                rep = block.next[at];
                scanned += 1;
            }
        }
        match best {
            Some((d, rep)) => {
                joined[i] = Some((rep, d));
                any_joined = true;
            }
            None => {
                for block in &mut index {
                    block.insert(fp.simhash, i as u32);
                }
            }
        }
    }
    drop(index);
    if !any_joined {
        return results;
    }

    let mut members: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, j) in joined.iter().enumerate() {
        if let Some((rep, d)) = j {
            members.entry(*rep).or_default().push((i, *d));
        }
    }
    let mut slots: Vec<Option<SearchResult>> = results.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        if joined[i].is_some() {
            continue;
        }
        let Some(mut rep) = slots[i].take() else {
            continue;
        };
        if let Some(list) = members.remove(&(i as u32)) {
            for (m, d) in list {
                if let Some(member) = slots[m].take() {
                    fold_into(&mut rep, member, d);
                }
            }
        }
        out.push(rep);
    }
    out
}

fn fold_into(rep: &mut SearchResult, member: SearchResult, distance: u32) {
    rep.near_duplicates.push(NearDuplicate {
        url: member.url,
        original_url: member.original_url,
        title: member.title,
        distance,
        sources: member.sources,
    });
    // Anything already folded into the member stays listed.
    rep.near_duplicates.extend(member.near_duplicates);
}
