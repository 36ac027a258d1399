//! The mode → source matrix: which kinds of engine take part in which mode,
//! kept as data in [`MODE_MATRIX`].

use serde::{Deserialize, Serialize};

use crate::engine::{EngineCapabilities, EngineKind};
use crate::query::Mode;

/// Whether engines of one kind take part in one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "rule", content = "kind")]
pub enum Participation {
    /// They run.
    Runs,
    /// They do not run.
    Skipped,
    /// They run only when no engine of the given kind is configured (Grok
    /// stands in for Exa in `fast` when there is no Exa key).
    FallbackFor(EngineKind),
}

/// One row of [`MODE_MATRIX`]: a kind and its participation per mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixRow {
    /// The engine kind.
    pub kind: EngineKind,
    /// Participation in `fast`.
    pub fast: Participation,
    /// Participation in `deep`.
    pub deep: Participation,
    /// Participation in `answer`.
    pub answer: Participation,
}

impl MatrixRow {
    /// Participation in `mode`.
    pub fn get(&self, mode: Mode) -> Participation {
        match mode {
            Mode::Fast => self.fast,
            Mode::Deep => self.deep,
            Mode::Answer => self.answer,
        }
    }
}

const fn always(kind: EngineKind) -> MatrixRow {
    MatrixRow {
        kind,
        fast: Participation::Runs,
        deep: Participation::Runs,
        answer: Participation::Runs,
    }
}

/// The mode → source matrix, one row per [`EngineKind`]. See the table in
/// the [`crate::fanout`] module docs.
pub const MODE_MATRIX: &[MatrixRow] = &[
    always(EngineKind::Web),
    MatrixRow {
        kind: EngineKind::Neural,
        fast: Participation::Runs,
        deep: Participation::Runs,
        answer: Participation::Skipped,
    },
    MatrixRow {
        kind: EngineKind::Answer,
        fast: Participation::Skipped,
        deep: Participation::Runs,
        answer: Participation::Runs,
    },
    MatrixRow {
        kind: EngineKind::Llm,
        fast: Participation::FallbackFor(EngineKind::Neural),
        deep: Participation::Runs,
        answer: Participation::Skipped,
    },
    always(EngineKind::Scraper),
    always(EngineKind::Reference),
    always(EngineKind::Code),
    always(EngineKind::Local),
    always(EngineKind::External),
    always(EngineKind::Browser),
];

/// How engines of `kind` take part in `mode`.
pub fn participation(kind: EngineKind, mode: Mode) -> Participation {
    MODE_MATRIX
        .iter()
        .find(|row| row.kind == kind)
        .map_or(Participation::Runs, |row| row.get(mode))
}

fn kind_name(kind: EngineKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{kind:?}").to_lowercase())
}

/// The modes in which engines of `kind` always run, for skip messages.
fn modes_of(kind: EngineKind) -> String {
    let modes: Vec<&str> = Mode::ALL
        .iter()
        .filter(|m| participation(kind, **m) == Participation::Runs)
        .map(|m| m.as_str())
        .collect();
    modes.join(", ")
}

/// Decide whether an engine with `capabilities` runs in `mode`, given every
/// configured engine's name and capabilities. `Err` holds the reason it is
/// skipped.
///
/// An engine with several kinds runs when any of its kinds does; an engine
/// that declares no kind runs in every mode.
pub(crate) fn decide(
    capabilities: &EngineCapabilities,
    mode: Mode,
    configured: &[(&str, EngineCapabilities)],
) -> Result<(), String> {
    if capabilities.kinds.is_empty() {
        return Ok(());
    }
    let mut reasons = Vec::new();
    for &kind in &capabilities.kinds {
        match participation(kind, mode) {
            Participation::Runs => return Ok(()),
            Participation::Skipped => reasons.push(format!(
                "mode {mode} does not use {kind} engines ({kind} engines run in: {modes})",
                kind = kind_name(kind),
                modes = modes_of(kind),
            )),
            Participation::FallbackFor(needed) => {
                let present: Vec<&str> = configured
                    .iter()
                    .filter(|(_, c)| c.is(needed))
                    .map(|(name, _)| *name)
                    .collect();
                if present.is_empty() {
                    return Ok(());
                }
                reasons.push(format!(
                    "mode {mode} uses {kind} engines only when no {needed} engine is configured, \
                     and {present} is",
                    kind = kind_name(kind),
                    needed = kind_name(needed),
                    present = present
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ));
            }
        }
    }
    Err(reasons.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_exactly_one_row() {
        let kinds = [
            EngineKind::Web,
            EngineKind::Neural,
            EngineKind::Answer,
            EngineKind::Llm,
            EngineKind::Scraper,
            EngineKind::Reference,
            EngineKind::Code,
            EngineKind::Local,
            EngineKind::External,
            EngineKind::Browser,
        ];
        for kind in kinds {
            assert_eq!(
                MODE_MATRIX.iter().filter(|r| r.kind == kind).count(),
                1,
                "{kind:?}"
            );
        }
        assert_eq!(MODE_MATRIX.len(), kinds.len());
    }

    #[test]
    fn skip_reason_names_the_modes_the_kind_runs_in() {
        let caps = EngineCapabilities::new(EngineKind::Answer);
        let reason = decide(&caps, Mode::Fast, &[]).unwrap_err();
        assert_eq!(
            reason,
            "mode fast does not use answer engines (answer engines run in: deep, answer)"
        );
    }

    #[test]
    fn a_kindless_engine_runs_everywhere() {
        let mut caps = EngineCapabilities::new(EngineKind::Web);
        caps.kinds.clear();
        for mode in Mode::ALL {
            assert!(decide(&caps, *mode, &[]).is_ok());
        }
    }
}
