//! Reprints among the fetched pages: syndicated copies, mirrors and the same
//! page under another URL are found by the evidence dedup
//! ([`crate::evidence_dedup`]); a copy that agrees with its original counts
//! once toward support, the original listing it in `also_at`.

use ferret_core::Provenance;

use crate::evidence_dedup::{DedupOptions, dedup_evidence};
use crate::evidence_item::EvidenceItem;

/// One readable fetched page, as the dedup sees it.
pub(crate) struct ReadPage<'a> {
    /// Its index among the candidates.
    pub index: usize,
    pub url: &'a str,
    pub title: &'a str,
    pub text: &'a str,
    pub rank: u32,
    pub provenance: &'a Provenance,
    /// Its text carries prompt-injection signals.
    pub untrusted: bool,
}

/// For each candidate index, the index of the page it is a copy of (`None`
/// for an original, an unreadable page or a URL the dedup cannot read).
/// The original of a group is its best-ranked trusted page when it has one:
/// a copy with injection signals never stands in for a clean page.
pub(crate) fn copies_of(pages: &[ReadPage<'_>], candidates: usize) -> Vec<Option<usize>> {
    let mut copy_of = vec![None; candidates];
    let items: Vec<EvidenceItem> = pages
        .iter()
        .filter_map(|p| {
            let item = EvidenceItem::new(p.index.to_string(), p.url, p.provenance.clone()).ok()?;
            Some(
                item.with_title(p.title)
                    .with_fetched_text(p.text)
                    .with_rank(p.rank),
            )
        })
        .collect();
    let Ok(report) = dedup_evidence(items, &DedupOptions::default()) else {
        return copy_of;
    };
    let untrusted = |i: usize| pages.iter().any(|p| p.index == i && p.untrusted);
    for kept in &report.items {
        let Ok(first) = kept.item.id.parse::<usize>() else {
            continue;
        };
        let mut members = vec![first];
        members.extend(
            kept.merged
                .iter()
                .filter_map(|m| m.item.id.parse::<usize>().ok())
                .filter(|i| *i < candidates),
        );
        let root = members
            .iter()
            .copied()
            .find(|i| !untrusted(*i))
            .unwrap_or(first);
        for m in members.into_iter().filter(|m| *m != root) {
            copy_of[m] = Some(root);
        }
    }
    copy_of
}
