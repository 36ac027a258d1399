//! Goggle URL patterns: literal text, `*` (any run), `^` (a separator or
//! the end) and `|` anchors, compiled into a matcher that runs in
//! O(text × pattern) time by construction — no backtracking.
//!
//! ## The matcher
//!
//! A pattern is split at its `*`s into segments; each segment is a fixed
//! sequence of literal characters and `^` classes. Matching a glob made of
//! segments separated by `*` needs no backtracking: taking each segment at
//! its **leftmost** position after the previous one is optimal, because a
//! later position only leaves less text for the segments that follow (a `^`
//! that matches the end of the text can only occur in a match that already
//! reaches the end, so it does not break this). Each segment is looked for
//! by trying every start position, so a pattern of `m` characters costs at
//! most `O(n·m)` on a text of `n` characters, whatever the pattern — and the
//! parser's limits (at most 2 `*`, 2 `^`, 500 characters) bound `m`.
//!
//! ## Choices where Brave's docs say nothing
//!
//! - **Case**: matching ignores case (both sides are lowercased character
//!   by character, Unicode-aware), as ad-block style URL filters do.
//! - **`^`**: a separator is any character that is not alphanumeric
//!   (Unicode: Brave's regex `[^\w\d._%-]` uses `\w`) and not `.`, `_`, `%`
//!   or `-`; `^` also matches the end of the text (zero-width, there only).
//! - **`|`**: only a leading `|` (prefix anchor) and a trailing `|` (suffix
//!   anchor) are special; a `|` anywhere else is a literal character.
//! - **URL form**: see [`super::Subject`] — a result's URL as the engine
//!   gave it and its canonical URL are both tried.

use std::fmt;

/// One position of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// A literal (lowercased) character.
    Char(char),
    /// `^`: a separator character, or the end of the text.
    Separator,
}

/// A compiled goggle pattern. Build with [`Pattern::parse`].
#[derive(Clone, PartialEq, Eq)]
pub struct Pattern {
    source: String,
    anchor_start: bool,
    anchor_end: bool,
    /// The pattern split at `*`: `segments.len() - 1` wildcards.
    segments: Vec<Vec<Piece>>,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternError {
    /// Nothing is left once the `|` anchors are removed (`|`, `||`).
    Empty,
}

/// Whether `c` is a separator for `^`: not alphanumeric and not one of
/// `.`, `_`, `%`, `-`.
pub fn is_separator(c: char) -> bool {
    !(c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '-'))
}

/// `text` lowercased character by character (the form [`Pattern::matches_chars`]
/// expects).
pub fn fold_case(text: &str) -> Vec<char> {
    text.chars().flat_map(char::to_lowercase).collect()
}

impl Pattern {
    /// Compile `source` (the part of an instruction before its `$`). Limits
    /// on `*` and `^` are the parser's business; any count compiles here and
    /// still matches in `O(n·m)`.
    pub fn parse(source: &str) -> Result<Pattern, PatternError> {
        let mut body = source;
        let anchor_start = body.starts_with('|');
        if anchor_start {
            body = &body[1..];
        }
        let anchor_end = body.ends_with('|');
        if anchor_end {
            body = &body[..body.len() - 1];
        }
        if body.is_empty() {
            return Err(PatternError::Empty);
        }
        let mut segments = vec![Vec::new()];
        for c in body.chars() {
            match c {
                '*' => segments.push(Vec::new()),
                '^' => segments
                    .last_mut()
                    .expect("segments starts non-empty")
                    .push(Piece::Separator),
                c => segments
                    .last_mut()
                    .expect("segments starts non-empty")
                    .extend(c.to_lowercase().map(Piece::Char)),
            }
        }
        Ok(Pattern {
            source: source.to_string(),
            anchor_start,
            anchor_end,
            segments,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern starts with a `|` anchor.
    pub fn anchored_start(&self) -> bool {
        self.anchor_start
    }

    /// Whether the pattern ends with a `|` anchor.
    pub fn anchored_end(&self) -> bool {
        self.anchor_end
    }

    /// The number of `*` wildcards.
    pub fn wildcards(&self) -> usize {
        self.segments.len() - 1
    }

    /// The longest run of literal characters (lowercased) the pattern
    /// needs, when it is at least two characters long: a text that lacks it
    /// cannot match, which lets a goggle skip most patterns with one
    /// automaton pass over each text.
    pub fn required_literal(&self) -> Option<String> {
        let mut best = String::new();
        for segment in &self.segments {
            let mut run = String::new();
            for piece in segment.iter().chain(std::iter::once(&Piece::Separator)) {
                match piece {
                    Piece::Char(c) => run.push(*c),
                    Piece::Separator => {
                        if run.chars().count() > best.chars().count() {
                            best = std::mem::take(&mut run);
                        } else {
                            run.clear();
                        }
                    }
                }
            }
        }
        (best.chars().count() >= 2).then_some(best)
    }

    /// Whether the pattern matches `text` (case-insensitively).
    pub fn matches(&self, text: &str) -> bool {
        self.matches_chars(&fold_case(text))
    }

    /// Whether the pattern matches `text`, already folded by [`fold_case`]
    /// (so one subject can be folded once for many patterns).
    pub fn matches_chars(&self, text: &[char]) -> bool {
        let n = text.len();
        let last = self.segments.len() - 1;
        let mut pos = 0;
        for (i, segment) in self.segments.iter().enumerate() {
            let first = i == 0;
            let is_last = i == last;
            if first && self.anchor_start {
                match match_at(segment, text, 0) {
                    Some(end) if !(is_last && self.anchor_end) || end == n => pos = end,
                    _ => return false,
                }
            } else if is_last && self.anchor_end {
                return (pos..=n).any(|p| match_at(segment, text, p) == Some(n));
            } else {
                match (pos..=n).find_map(|p| match_at(segment, text, p)) {
                    Some(end) => pos = end,
                    None => return false,
                }
            }
        }
        true
    }
}

/// Match `segment` at `start` of `text`: the end position, if it matches.
fn match_at(segment: &[Piece], text: &[char], start: usize) -> Option<usize> {
    let mut i = start;
    for piece in segment {
        match *piece {
            Piece::Char(c) => {
                if text.get(i) == Some(&c) {
                    i += 1;
                } else {
                    return None;
                }
            }
            Piece::Separator => match text.get(i) {
                Some(&c) if is_separator(c) => i += 1,
                Some(_) => return None,
                // The end of the text: `^` matches it without consuming.
                None => {}
            },
        }
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_literal_is_the_longest_literal_run() {
        let lit = |p: &str| Pattern::parse(p).unwrap().required_literal();
        assert_eq!(
            lit("|https://Docs.RS/*^crate"),
            Some("https://docs.rs/".into())
        );
        assert_eq!(lit("a^bc*defg^h"), Some("defg".into()));
        assert_eq!(lit("*^x^"), None);
    }

    fn m(p: &str, t: &str) -> bool {
        Pattern::parse(p).unwrap().matches(t)
    }

    #[test]
    fn anchors_wildcards_and_separators() {
        assert!(m("|a*c|", "abc"));
        assert!(m("|a*c|", "ac"));
        assert!(!m("|a*c|", "acd"));
        assert!(m("a*b*c", "xxaxxbxxcxx"));
        assert!(!m("a*b*c", "cba"));
        assert!(m("foo^^", "x/foo"));
        assert!(m("|^", "/"));
        assert!(!m("|^", "a"));
        assert!(m("ABC", "xabcx"));
        assert!(m("|x|y|", "x|y"));
        assert_eq!(Pattern::parse("||"), Err(PatternError::Empty));
        assert_eq!(Pattern::parse("|"), Err(PatternError::Empty));
    }

    #[test]
    fn the_last_segment_may_need_a_later_occurrence_when_anchored_at_the_end() {
        assert!(m("a*bc|", "abcxbc"));
        assert!(m("*bc|", "bcbc"));
        assert!(!m("a*bc|", "abcx"));
    }
}
