//! One-pass matching of several cue-word lists (claim words, source hints,
//! era markers, optional markers): Latin cues match whole words,
//! case-insensitively; CJK cues as substrings.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::tokenize::is_cjk;

/// A set of cue lists, each with a bit; [`CueSet::find`] returns the bits of
/// the lists with a cue in the text.
pub(crate) struct CueSet {
    automaton: Option<AhoCorasick>,
    /// Per pattern: its list's bit, and whether it needs word boundaries.
    patterns: Vec<(u32, bool)>,
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '_'
}

impl CueSet {
    /// Build from `(bit, words)` pairs; `bit` < 32.
    pub(crate) fn new(lists: &[(u32, &[&str])]) -> Self {
        let mut texts: Vec<&str> = Vec::new();
        let mut patterns = Vec::new();
        for (bit, words) in lists {
            for w in *words {
                texts.push(w);
                patterns.push((1u32 << bit, !w.chars().any(is_cjk)));
            }
        }
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&texts)
            .ok();
        CueSet {
            automaton,
            patterns,
        }
    }

    /// The bits of every list with a cue in `text`.
    pub(crate) fn find(&self, text: &str) -> u32 {
        let Some(ac) = &self.automaton else {
            return 0;
        };
        let mut bits = 0;
        for m in ac.find_overlapping_iter(text) {
            let (bit, whole_word) = self.patterns[m.pattern().as_usize()];
            if bits & bit != 0 {
                continue;
            }
            if whole_word {
                let before = text[..m.start()].chars().next_back();
                let after = text[m.end()..].chars().next();
                if before.is_some_and(is_word_char) || after.is_some_and(is_word_char) {
                    continue;
                }
            }
            bits |= bit;
        }
        bits
    }
}
