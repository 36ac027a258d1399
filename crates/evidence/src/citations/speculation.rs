//! The `[推测]` cap: at most 30 % of a report's conclusions may rest on
//! speculation.

use serde::{Deserialize, Serialize};

use super::label::EvidenceLabel;

/// The tag that marks a speculative conclusion.
pub const SPECULATION_TAG: &str = "[推测]";

/// The English tag accepted alongside [`SPECULATION_TAG`] (any case).
pub const SPECULATION_TAG_EN: &str = "[speculation]";

/// The cap, as a fraction (30 %), written as `numerator / denominator` so
/// the check is exact: `speculative × 10 ≤ total × 3`.
pub const MAX_SPECULATION_SHARE: (usize, usize) = (3, 10);

/// How many conclusions are speculative.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpeculationShare {
    /// Conclusions counted.
    pub total: usize,
    /// Of which speculative.
    pub speculative: usize,
    /// `speculative / total` (0 for no conclusions).
    pub share: f64,
}

/// Too many conclusions are speculative.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error(
    "{} of {} conclusions ({:.0} %) are tagged [推测]; at most 30 % may be — find evidence for some or drop them",
    .0.speculative, .0.total, .0.share * 100.0
)]
pub struct SpeculationCapExceeded(pub SpeculationShare);

/// Whether a conclusion is tagged `[推测]` (or `[speculation]`).
pub fn is_speculative(conclusion: &str) -> bool {
    conclusion.contains(SPECULATION_TAG) || conclusion.to_lowercase().contains(SPECULATION_TAG_EN)
}

fn check(total: usize, speculative: usize) -> Result<SpeculationShare, SpeculationCapExceeded> {
    let share = SpeculationShare {
        total,
        speculative,
        share: if total == 0 {
            0.0
        } else {
            speculative as f64 / total as f64
        },
    };
    let (num, den) = MAX_SPECULATION_SHARE;
    if speculative * den <= total * num {
        Ok(share)
    } else {
        Err(SpeculationCapExceeded(share))
    }
}

/// Checks the cap over conclusions written as text: those tagged `[推测]`
/// count as speculative. No conclusions pass.
pub fn check_speculation_cap<S: AsRef<str>>(
    conclusions: &[S],
) -> Result<SpeculationShare, SpeculationCapExceeded> {
    let speculative = conclusions
        .iter()
        .filter(|c| is_speculative(c.as_ref()))
        .count();
    check(conclusions.len(), speculative)
}

/// Checks the cap over the labels the conclusions rest on.
pub fn check_label_cap(
    labels: &[EvidenceLabel],
) -> Result<SpeculationShare, SpeculationCapExceeded> {
    let speculative = labels
        .iter()
        .filter(|l| **l == EvidenceLabel::Speculation)
        .count();
    check(labels.len(), speculative)
}
