//! Conflicting results, read by the evidence judgement
//! ([`crate::ledger::judge`]): each statement of a result's title and
//! snippet (a sentence with a fact, or enough content words) is judged
//! against the other result's text; the two disagree when the other's text
//! refutes it — a different number, date or name in its place, the
//! opposite polarity or direction. Results that agree, or that speak of
//! other things, never conflict.
//!
//! Only pairs that share at least two content stems or a name are judged
//! (a cheap test, so two hundred unrelated results cost little).

use std::collections::HashSet;

use crate::ledger::{Claim, Judgement, PageText, ReadText, judge::judge_read};
use ferret_text::sentences::sentences;
use ferret_text::words::words;

/// A result's title and snippet as one text.
pub(crate) fn text_of(title: &str, snippet: &str) -> String {
    match (title.trim(), snippet.trim()) {
        ("", s) => s.to_string(),
        (t, "") => t.to_string(),
        (t, s) if t.ends_with(['.', '!', '?', '。']) => format!("{t} {s}"),
        (t, s) => format!("{t}. {s}"),
    }
}

/// One result's text as the conflict check reads it.
pub(crate) struct Read<'a> {
    text: &'a str,
    read: ReadText<'a>,
    statements: Vec<Claim>,
    stems: HashSet<String>,
}

impl<'a> Read<'a> {
    /// Reads a result's text ([`text_of`]).
    pub(crate) fn new(text: &'a str) -> Self {
        let statements = sentences(text)
            .into_iter()
            .map(|r| Claim::new(&text[r]))
            .filter(Claim::is_judgeable)
            .collect();
        let stems = words(text)
            .into_iter()
            .filter(|w| !w.stop)
            .map(|w| w.stem)
            .collect();
        Read {
            text,
            read: ReadText::new(&PageText::text(text)),
            statements,
            stems,
        }
    }
}

/// Why two results disagree.
pub(crate) struct Disagreement {
    /// The claim's facts and words the refuting text holds.
    pub(crate) terms: Vec<String>,
    /// The judgement's reason (`negated: …`, `number_mismatch: …`).
    pub(crate) reason: String,
    /// The statement of the first result, and the passage of the second
    /// that refutes it (verbatim); or the other way round when `flipped`.
    pub(crate) quotes: (String, String),
    /// The second result's statement is refuted by the first's text.
    pub(crate) flipped: bool,
}

/// Whether `a` and `b` disagree, and how.
pub(crate) fn disagreement(a: &Read<'_>, b: &Read<'_>) -> Option<Disagreement> {
    if a.stems.intersection(&b.stems).take(2).count() < 2 {
        return None;
    }
    refuted(a, b, false).or_else(|| refuted(b, a, true))
}

/// A statement of `claims` that `other`'s text refutes.
fn refuted(claims: &Read<'_>, other: &Read<'_>, flipped: bool) -> Option<Disagreement> {
    claims.statements.iter().find_map(|claim| {
        let judged = judge_read(claim, &other.read);
        if judged.judgement != Judgement::Refutes {
            return None;
        }
        let passage = judged
            .window
            .and_then(|w| other.text.get(w))
            .unwrap_or_default()
            .to_string();
        Some(Disagreement {
            terms: judged.matched,
            reason: judged.reason,
            quotes: (claim.text().to_string(), passage),
            flipped,
        })
    })
}
