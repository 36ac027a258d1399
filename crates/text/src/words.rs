//! The words of a text as the judgement reads them: each with its byte
//! span, its stem ([`crate::stem`]) and whether it is a stopword
//! ([`crate::stopwords`]). CJK text is one word per character.

use std::ops::Range;

use crate::stem::stem;
use crate::stopwords::is_stopword;
use crate::tokenize::is_cjk;

/// A word of a text: its lowercased stem and where it sits.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// Lowercased, with a plain English suffix stripped (`directed` →
    /// `direct`, `cases` → `case`). A CJK run is split into characters.
    pub stem: String,
    /// The bytes in the text.
    pub span: Range<usize>,
    /// A function word (`the`, `of`, `by` …).
    pub stop: bool,
}

/// The words of `text` (letters and digits, apostrophes inside words; CJK
/// one character each), in order.
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let flush = |out: &mut Vec<Word>, s: usize, e: usize| {
        let raw = &text[s..e];
        let trimmed = raw.trim_end_matches(['\'', '’']);
        if trimmed.is_empty() {
            return;
        }
        let lower = trimmed.to_lowercase();
        let base = lower
            .strip_suffix("'s")
            .or_else(|| lower.strip_suffix("’s"))
            .unwrap_or(&lower);
        out.push(Word {
            stem: stem(base),
            span: s..s + trimmed.len(),
            stop: is_stopword(base),
        });
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(s) = start.take() {
                flush(&mut out, s, i);
            }
            out.push(Word {
                stem: c.to_string(),
                span: i..i + c.len_utf8(),
                stop: is_stopword(&c.to_string()),
            });
        } else if c.is_alphanumeric() || (matches!(c, '\'' | '’') && start.is_some()) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            flush(&mut out, s, i);
        }
    }
    if let Some(s) = start {
        flush(&mut out, s, text.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_carry_spans_and_stems() {
        let t = "Lin's films, 东京";
        let w = words(t);
        assert_eq!(w[0].stem, "lin");
        assert_eq!(&t[w[0].span.clone()], "Lin's");
        assert_eq!(w.last().map(|w| w.stem.as_str()), Some("京"));
    }
}
