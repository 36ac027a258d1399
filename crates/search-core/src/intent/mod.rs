//! Intent classification: which of the seven
//! [`Intent`]s a query has, from Chinese, English, Korean and Japanese signal
//! words, and the per-intent [`IntentProfile`] (mode, freshness, weights,
//! domain boosts).
//!
//! The tables are data ([`signals::SIGNALS`], [`signals::WINDOW_CUES`],
//! [`signals::NEUTRAL_PHRASES`], [`profile::PROFILES`]); this module only
//! matches them:
//!
//! - Latin-script signals match whole words, case-insensitively (`vs` does
//!   not match `vsync`, `docs` not `dockside`); CJK signals match as
//!   substrings.
//! - A signal inside a longer matched signal or a neutral phrase is dropped
//!   ("what is the latest" is one Status signal, not Factual + Status;
//!   "文档数据库" is not a Resource signal): the most specific match wins.
//! - Strong signals decide by priority Resource > News > Status >
//!   Comparison > Tutorial > Factual > Exploratory. Modifiers ("latest",
//!   "最新", "today") decide only when nothing strong matched; otherwise
//!   they narrow the freshness ("Bun vs Deno 最新对比" is a comparison over
//!   the past month). With no signal at all the intent is Exploratory.
//! - "X or Y" counts as a comparison only when it reads as a choice: a short
//!   query (≤ 6 words) or one that asks "which / better / should I".
//!
//! Every [`Classification`] lists the signals it matched, so the choice can
//! be explained.

pub mod profile;
pub mod signals;

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};

use crate::query::{Freshness, Intent};
use crate::tokenize::is_cjk;

pub use profile::{IntentProfile, PROFILES, profile};
pub use signals::Strength;

/// One signal word found in a query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signal {
    /// The intent it points to.
    pub intent: Intent,
    /// The text as it appears in the query.
    pub text: String,
    /// Whether it decides the intent on its own.
    pub strength: Strength,
    /// Byte offset of its start in the query.
    pub start: usize,
    /// Byte offset just past its end in the query.
    pub end: usize,
}

/// A phrase that names a recency window ("today", "本月").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowCue {
    /// The window it names.
    pub window: Freshness,
    /// The text as it appears in the query.
    pub text: String,
    /// Byte offset of its start in the query.
    pub start: usize,
    /// Byte offset just past its end in the query.
    pub end: usize,
}

/// The outcome of [`classify`]: the intent and everything that led to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// The chosen intent.
    pub intent: Intent,
    /// Every signal matched, in query order (including those of intents
    /// that lost on priority).
    pub signals: Vec<Signal>,
    /// Recency-window phrases matched, in query order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<WindowCue>,
    /// Why this intent won, in one sentence.
    pub reason: String,
}

/// The recency window chosen for a plan, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreshnessChoice {
    /// The window, if any.
    pub window: Option<Freshness>,
    /// Why.
    pub reason: String,
}

impl Classification {
    /// The profile row of the chosen intent.
    pub fn profile(&self) -> &'static IntentProfile {
        profile(self.intent)
    }

    /// The signals that point to the chosen intent.
    pub fn decisive_signals(&self) -> impl Iterator<Item = &Signal> {
        self.signals.iter().filter(move |s| s.intent == self.intent)
    }

    /// Whether a recency modifier of another intent matched ("最新" in a
    /// comparison).
    pub fn has_recency_modifier(&self) -> bool {
        self.signals.iter().any(|s| {
            s.strength == Strength::Modifier && matches!(s.intent, Intent::Status | Intent::News)
        })
    }

    /// The recency window for `intent` given this query's cues:
    ///
    /// 1. Resource: none (official pages are undated).
    /// 2. A window cue in the query ("today" → pd, "本月" → pm, "this week" →
    ///    pw, "今年" → py; the narrowest if several) sets it.
    /// 3. Otherwise the profile's default (status pw, news pw, comparison
    ///    py, tutorial py, others none), narrowed by a recency modifier for
    ///    intents that are not about recency already: py → pm, none → py.
    pub fn freshness_for(&self, intent: Intent) -> FreshnessChoice {
        let row = profile(intent);
        if intent == Intent::Resource {
            return FreshnessChoice {
                window: None,
                reason: "resource: official pages are undated, no window".into(),
            };
        }
        if let Some(cue) = self.windows.iter().min_by_key(|w| w.window.days()) {
            return FreshnessChoice {
                window: Some(cue.window),
                reason: format!("the query names the window {:?}", cue.text),
            };
        }
        let recency = self
            .signals
            .iter()
            .find(|s| s.strength == Strength::Modifier && s.intent == Intent::Status);
        let narrows = !matches!(intent, Intent::Status | Intent::News);
        if let (Some(modifier), true) = (recency, narrows) {
            let (window, how) = match row.freshness {
                Some(Freshness::Py) => (Some(Freshness::Pm), "narrows py to pm"),
                None => (Some(Freshness::Py), "sets py"),
                other => (other, "keeps the profile window"),
            };
            return FreshnessChoice {
                window,
                reason: format!(
                    "{intent} profile; recency modifier {:?} {how}",
                    modifier.text
                ),
            };
        }
        FreshnessChoice {
            window: row.freshness,
            reason: match row.freshness {
                Some(w) => format!("{intent} profile default {w}"),
                None => format!("{intent} profile: no window"),
            },
        }
    }

    /// The recency window for the chosen intent (see [`Self::freshness_for`]).
    pub fn freshness(&self) -> FreshnessChoice {
        self.freshness_for(self.intent)
    }
}

/// What a pattern in the matcher stands for.
#[derive(Debug, Clone, Copy)]
enum PatternKind {
    Signal(Intent, Strength),
    Window(Freshness),
    Neutral,
}

#[derive(Debug)]
struct Pattern {
    kind: PatternKind,
    /// Latin-script patterns need word boundaries.
    whole_word: bool,
}

struct Matcher {
    automaton: Option<AhoCorasick>,
    patterns: Vec<Pattern>,
}

fn matcher() -> &'static Matcher {
    static MATCHER: OnceLock<Matcher> = OnceLock::new();
    MATCHER.get_or_init(|| {
        let mut texts: Vec<String> = Vec::new();
        let mut patterns = Vec::new();
        let mut push = |word: &str, kind: PatternKind| {
            let whole_word = !word.chars().any(is_cjk);
            let word = word.to_ascii_lowercase();
            if word.contains('\'') {
                // Also match the typographic apostrophe ("what’s new").
                texts.push(word.replace('\'', "\u{2019}"));
                patterns.push(Pattern { kind, whole_word });
            }
            texts.push(word);
            patterns.push(Pattern { kind, whole_word });
        };
        for set in signals::SIGNALS {
            for w in set.strong {
                push(w, PatternKind::Signal(set.intent, Strength::Strong));
            }
            for w in set.modifiers {
                push(w, PatternKind::Signal(set.intent, Strength::Modifier));
            }
        }
        for (window, words) in signals::WINDOW_CUES {
            for w in *words {
                push(w, PatternKind::Window(*window));
            }
        }
        for w in signals::NEUTRAL_PHRASES {
            push(w, PatternKind::Neutral);
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&texts)
            .ok();
        Matcher {
            automaton,
            patterns,
        }
    })
}

/// A Latin "word" character for boundary checks (CJK characters are
/// boundaries: "React教程" has the word "React").
fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '_'
}

fn at_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let first = text[start..end].chars().next();
    let last = text[start..end].chars().next_back();
    let left_ok = match (before, first) {
        (Some(b), Some(f)) => !(is_word_char(b) && is_word_char(f)),
        _ => true,
    };
    let right_ok = match (last, after) {
        (Some(l), Some(a)) => !(is_word_char(l) && is_word_char(a)),
        _ => true,
    };
    left_ok && right_ok
}

#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    kind: PatternKind,
}

/// Every table match in `query`, with contained matches removed.
fn table_hits(query: &str) -> Vec<Hit> {
    let m = matcher();
    let Some(ac) = &m.automaton else {
        return Vec::new();
    };
    let mut hits: Vec<Hit> = ac
        .find_overlapping_iter(query)
        .filter_map(|found| {
            let pattern = &m.patterns[found.pattern().as_usize()];
            let (start, end) = (found.start(), found.end());
            if pattern.whole_word && !at_word_boundaries(query, start, end) {
                return None;
            }
            Some(Hit {
                start,
                end,
                kind: pattern.kind,
            })
        })
        .collect();
    // Most specific match wins: a signal strictly inside a longer signal or
    // neutral phrase is dropped; a window cue only inside a neutral phrase.
    let containers: Vec<(usize, usize, bool)> = hits
        .iter()
        .filter_map(|h| match h.kind {
            PatternKind::Signal(..) => Some((h.start, h.end, false)),
            PatternKind::Neutral => Some((h.start, h.end, true)),
            PatternKind::Window(_) => None,
        })
        .collect();
    hits.retain(|h| {
        let inside = |neutral_only: bool| {
            containers.iter().any(|&(s, e, neutral)| {
                (!neutral_only || neutral)
                    && s <= h.start
                    && h.end <= e
                    && (e - s) > (h.end - h.start)
            })
        };
        match h.kind {
            PatternKind::Signal(..) => !inside(false),
            PatternKind::Window(_) => !inside(true),
            PatternKind::Neutral => false,
        }
    });
    hits.sort_by_key(|h| (h.start, h.end));
    hits
}

/// Words after "or" that make it something other than a choice.
const NOT_A_CHOICE_AFTER_OR: &[&str] = &["not", "else", "so", "more", "less", "two", "later"];
/// Words that make a longer "X or Y" question a choice.
const CHOICE_CUES: &[&str] = &["which", "better", "should", "choose", "pick", "prefer"];

/// "X or Y" read as a choice: exactly one "or" with words on both sides, and
/// either ≤ 6 words in all or a choice cue ("which", "better", "should").
fn choice_or(query: &str) -> Option<(usize, usize)> {
    let words: Vec<(usize, &str)> = query
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - query.as_ptr() as usize, w))
        .collect();
    let ors: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, (_, w))| w.eq_ignore_ascii_case("or"))
        .map(|(i, _)| i)
        .collect();
    let [i] = ors.as_slice() else {
        return None;
    };
    let i = *i;
    if i == 0 || i + 1 >= words.len() {
        return None;
    }
    let next = words[i + 1]
        .1
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_ascii_lowercase();
    if NOT_A_CHOICE_AFTER_OR.contains(&next.as_str()) {
        return None;
    }
    let cue = words.iter().any(|(_, w)| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        CHOICE_CUES.contains(&w.as_str())
    });
    if words.len() <= 6 || cue {
        let start = words[i].0;
        Some((start, start + 2))
    } else {
        None
    }
}

/// Classify `query` into one of the seven intents.
pub fn classify(query: &str) -> Classification {
    let (mut signals, windows) = signals_and_windows(query);
    let has_comparison = signals
        .iter()
        .any(|s| s.intent == Intent::Comparison && s.strength == Strength::Strong);
    // A strong comparison signal already says it; otherwise "X or Y" may.
    let choice = if has_comparison {
        None
    } else {
        choice_or(query)
    };
    if let Some((start, end)) = choice {
        signals.push(Signal {
            intent: Intent::Comparison,
            text: query[start..end].to_string(),
            strength: Strength::Strong,
            start,
            end,
        });
        signals.sort_by_key(|s| (s.start, s.end));
    }
    let (intent, reason) = decide(&signals);
    Classification {
        intent,
        signals,
        windows,
        reason,
    }
}

/// The table's signals and time-window cues found in `query`, in text order.
fn signals_and_windows(query: &str) -> (Vec<Signal>, Vec<WindowCue>) {
    let mut signals = Vec::new();
    let mut windows = Vec::new();
    for h in &table_hits(query) {
        let text = query[h.start..h.end].to_string();
        match h.kind {
            PatternKind::Signal(intent, strength) => signals.push(Signal {
                intent,
                text,
                strength,
                start: h.start,
                end: h.end,
            }),
            PatternKind::Window(window) => windows.push(WindowCue {
                window,
                text,
                start: h.start,
                end: h.end,
            }),
            PatternKind::Neutral => {}
        }
    }
    (signals, windows)
}

/// The winning intent and why: the highest-priority strong signal, else the
/// highest-priority modifier, else exploratory.
fn decide(signals: &[Signal]) -> (Intent, String) {
    let best = |strength: Strength| {
        signals
            .iter()
            .filter(|s| s.strength == strength)
            .map(|s| s.intent)
            .min_by_key(|i| signals::priority_rank(*i))
    };
    if let Some(intent) = best(Strength::Strong) {
        let mut others: Vec<Intent> = Vec::new();
        for s in signals {
            if s.strength == Strength::Strong && s.intent != intent && !others.contains(&s.intent) {
                others.push(s.intent);
            }
        }
        let reason = if others.is_empty() {
            format!("strong {intent} signal")
        } else {
            let names: Vec<&str> = others.iter().map(|i| i.as_str()).collect();
            format!(
                "strong {intent} signal; outranks {} by priority",
                names.join(", ")
            )
        };
        (intent, reason)
    } else if let Some(intent) = best(Strength::Modifier) {
        (
            intent,
            format!("only modifier signals matched; {intent} has the highest priority"),
        )
    } else {
        (
            Intent::Exploratory,
            "no signal matched; default exploratory".to_string(),
        )
    }
}

#[cfg(test)]
mod tests;
