//! Step 3, build: each group of hits becomes one [`SearchResult`], made of
//! separate components — the RRF score, the text kept (title and snippet),
//! the publication date, the provenance and the component scores
//! (authority, freshness, keyword coverage) — with the fingerprint that
//! clustering needs.

use std::sync::Arc;

use chrono::SecondsFormat;
use rustc_hash::FxHashMap;

use super::group::{CallInfo, Groups, HitRef};
use super::{FusionOptions, ScoreBasis};
use crate::authority::{
    Authority, AuthorityScorer, normalised_host_of, registrable_domain_of_normalised,
};
use crate::engine::EngineHit;
use crate::freshness::{freshness, parse_date};
use crate::near_dup::{Fingerprint, FingerprintBuilder};
use crate::provenance::Provenance;
use crate::response::EngineCall;
use crate::result::{Scores, SearchResult, SourceHit};
use crate::text::Text;
use crate::tokenize::Tokenizer;
use crate::tokenize::terms::QueryTerms;

/// What ordering and clustering need besides a result.
#[derive(Clone, Copy)]
pub(super) struct Meta {
    pub(super) fingerprint: Fingerprint,
    pub(super) best_rank: u32,
    /// Login hits that may not merge with public ones (the merge key's
    /// second half; with the URL it makes the order total).
    pub(super) isolated: bool,
}

/// The state of building: what every result needs, and buffers reused
/// from one result to the next.
pub(super) struct Builder<'a> {
    calls: &'a [EngineCall],
    infos: &'a [CallInfo],
    options: &'a FusionOptions,
    k: f64,
    terms: QueryTerms<'a>,
    scorer: AuthorityScorer,
    /// Authority and where the registrable domain starts, by host (many
    /// results share a host).
    hosts: FxHashMap<Box<str>, (Authority, usize)>,
    fingerprints: FingerprintBuilder,
    tokenizer: Tokenizer,
    found: Vec<bool>,
    rrf_terms: Vec<(u32, u32, f64)>,
}

impl<'a> Builder<'a> {
    /// A builder for one fusion with RRF constant `k` and query terms
    /// `terms`.
    pub(super) fn new(
        calls: &'a [EngineCall],
        infos: &'a [CallInfo],
        options: &'a FusionOptions,
        k: f64,
        terms: &'a [String],
    ) -> Self {
        Builder {
            calls,
            infos,
            options,
            k,
            terms: QueryTerms::new(terms),
            scorer: AuthorityScorer::new(&options.domain_boosts),
            hosts: FxHashMap::default(),
            fingerprints: FingerprintBuilder::default(),
            tokenizer: Tokenizer::default(),
            found: vec![false; terms.len()],
            rrf_terms: Vec::new(),
        }
    }

    /// The result of every group, in group order.
    pub(super) fn build_all(mut self, groups: &Groups<'_>) -> (Vec<SearchResult>, Vec<Meta>) {
        // Sized up front: growing a list of large results copies them all.
        let mut results = Vec::with_capacity(groups.len());
        let mut metas = Vec::with_capacity(groups.len());
        for g in 0..groups.len() {
            let (key, hits) = groups.group(g);
            let (result, meta) = self.build(hits, key);
            results.push(result);
            metas.push(meta);
        }
        (results, metas)
    }

    fn hit(&self, r: &HitRef) -> &'a EngineHit {
        &self.calls[r.call as usize].response.hits[r.hit as usize]
    }

    fn provenance_of(&self, r: &HitRef) -> &'a Provenance {
        &self.calls[r.call as usize].response.provenance
    }

    /// The result of one group of hits, in source order (best first).
    fn build(&mut self, refs: &[HitRef], canonical: &str) -> (SearchResult, Meta) {
        let best = refs[0];
        let rrf = self.rrf(refs);
        let (title, snippet) = self.texts(refs);
        let published_at = self.published_at(refs);
        let (provenance, flags) = self.provenance(refs);
        let sources = self.sources(refs);
        let (authority, domain) = self.authority(canonical);
        let now = self.options.now;
        let fresh = freshness(published_at.as_deref(), title, snippet, now);
        let (fingerprint, (keyword, terms_found)) = self.fingerprint_and_keywords(title, snippet);
        let result = SearchResult {
            url: canonical.to_string(),
            original_url: self.hit(&best).url.clone(),
            title: title.clone(),
            snippet: snippet.clone(),
            published_at,
            domain,
            sources,
            scores: Scores {
                rrf,
                keyword,
                freshness: fresh.score,
                authority: authority.score,
                intent: 0.0,
                goggle: None,
                final_score: 0.0,
            },
            score_basis: Some(ScoreBasis {
                authority_rule: authority.rule,
                boosted_by: authority.boosted_by,
                freshness: fresh.basis,
                keyword_terms_found: terms_found,
                keyword_terms: self.terms.len() as u32,
                best_rank: best.rank,
            }),
            near_duplicates: Vec::new(),
            flags,
            provenance,
        };
        let meta = Meta {
            fingerprint,
            best_rank: best.rank,
            isolated: self.infos[best.call as usize].isolated,
        };
        (result, meta)
    }

    /// RRF: each (engine, sub-query) pair's best rank `r` adds
    /// `weight / (k + r)`, summed in pair order.
    fn rrf(&mut self, refs: &[HitRef]) -> f64 {
        self.rrf_terms.clear();
        self.rrf_terms.extend(refs.iter().map(|r| {
            let info = &self.infos[r.call as usize];
            (info.pair, r.rank, info.weight)
        }));
        self.rrf_terms
            .sort_unstable_by_key(|&(pair, rank, _)| (pair, rank));
        self.rrf_terms.dedup_by_key(|(pair, _, _)| *pair);
        self.rrf_terms
            .iter()
            .map(|&(_, rank, weight)| weight / (self.k + f64::from(rank)))
            .sum()
    }

    /// The longest title and the longest snippet of the hits (shared with
    /// the hits, not copied).
    fn texts(&self, refs: &[HitRef]) -> (&'a Text, &'a Text) {
        let first = self.hit(&refs[0]);
        if refs.len() == 1 {
            return (&first.title, &first.snippet);
        }
        let (mut title, mut snippet) = (Longest::new(&first.title), Longest::new(&first.snippet));
        for r in &refs[1..] {
            title.offer(&self.hit(r).title);
            snippet.offer(&self.hit(r).snippet);
        }
        (title.text, snippet.text)
    }

    /// The date of the best-ranked hit whose date parses, as RFC 3339 UTC;
    /// else the first raw date given; else none.
    fn published_at(&self, refs: &[HitRef]) -> Option<String> {
        let mut raw = None;
        for r in refs {
            let Some(p) = self.hit(r).published_at.as_deref() else {
                continue;
            };
            if p.trim().is_empty() {
                continue;
            }
            if let Some(d) = parse_date(p, self.options.now) {
                return Some(d.to_rfc3339_opts(SecondsFormat::Secs, true));
            }
            raw.get_or_insert(p);
        }
        raw.map(str::to_string)
    }

    /// The result's provenance: the best-ranked login hit's, sealed, when
    /// any hit is a login hit (flagged `dual-sourced` when public hits were
    /// merged too), so login data is never laundered into a public result.
    fn provenance(&self, refs: &[HitRef]) -> (Provenance, Vec<String>) {
        let login = refs.iter().find(|r| self.provenance_of(r).is_login());
        let Some(login) = login else {
            return (self.provenance_of(&refs[0]).clone(), Vec::new());
        };
        let mut flags = Vec::new();
        if refs.iter().any(|r| !self.provenance_of(r).is_login()) {
            flags.push("dual-sourced".to_string());
        }
        (self.provenance_of(login).clone().sealed(), flags)
    }

    /// Every hit as a source of the result.
    fn sources(&self, refs: &[HitRef]) -> Vec<SourceHit> {
        refs.iter()
            .map(|r| {
                let info = &self.infos[r.call as usize];
                SourceHit {
                    engine: Arc::clone(&info.engine),
                    rank: r.rank,
                    sub_query: Arc::clone(&info.sub_query),
                    url: self.hit(r).url.clone(),
                    provenance: self.provenance_of(r).clone(),
                }
            })
            .collect()
    }

    /// The authority of the URL's host and its registrable domain.
    fn authority(&mut self, canonical: &str) -> (Authority, String) {
        let host = normalised_host_of(canonical);
        if let Some((a, at)) = self.hosts.get(host.as_ref()) {
            return (a.clone(), host[*at..].to_string());
        }
        let domain = registrable_domain_of_normalised(&host);
        let a = self.scorer.score_normalised(&host, domain);
        // The registrable domain is a suffix of the host: keep where it
        // starts.
        if let Some(at) = host.len().checked_sub(domain.len())
            && host.ends_with(domain)
        {
            self.hosts.insert(host.as_ref().into(), (a.clone(), at));
        }
        (a, domain.to_string())
    }

    /// The fingerprint (with near-duplicate clustering on; the query terms
    /// are found among the tokens it reads) and the keyword score.
    fn fingerprint_and_keywords(
        &mut self,
        title: &str,
        snippet: &str,
    ) -> (Fingerprint, (f64, u32)) {
        self.found.iter_mut().for_each(|f| *f = false);
        let (terms, found) = (&self.terms, &mut self.found);
        let fingerprint = if self.options.near_dup.is_some() {
            self.fingerprints
                .build_visiting(title, snippet, |t| terms.mark(t, found))
        } else {
            terms.find(&mut self.tokenizer, title, found);
            terms.find(&mut self.tokenizer, snippet, found);
            Fingerprint::default()
        };
        (
            fingerprint,
            self.terms.score(&mut self.found, [title, snippet]),
        )
    }
}

/// The longest of several texts by characters; ties go to the
/// lexicographically smaller text. A candidate with fewer bytes than the
/// current text has characters cannot be longer, and is not read.
struct Longest<'a> {
    text: &'a Text,
    chars: usize,
}

impl<'a> Longest<'a> {
    fn new(text: &'a Text) -> Self {
        Longest {
            text,
            chars: text.chars().count(),
        }
    }

    fn offer(&mut self, candidate: &'a Text) {
        if candidate.len() < self.chars {
            return;
        }
        let chars = candidate.chars().count();
        if chars > self.chars || (chars == self.chars && candidate < self.text) {
            self.text = candidate;
            self.chars = chars;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Longest;
    use crate::text::Text;

    proptest! {
        #[test]
        fn longest_is_the_most_chars_then_the_smallest_text(
            texts in prop::collection::vec("[a-cé异 ]{0,6}", 1..6)
        ) {
            let texts: Vec<Text> = texts.iter().map(Text::from).collect();
            let mut longest = Longest::new(&texts[0]);
            for t in &texts[1..] {
                longest.offer(t);
            }
            let expected = texts
                .iter()
                .min_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
            prop_assert_eq!(Some(longest.text), expected);
            prop_assert_eq!(longest.chars, longest.text.chars().count());
        }
    }
}
