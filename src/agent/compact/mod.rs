//! Compact renderings sized for a model: each tool's answer as a short text
//! that fits a budget of estimated tokens, and the same selection as JSON.
//!
//! **The token estimate** ([`estimate_tokens`]): an ASCII character counts
//! a quarter of a token (rounded up over the text), any other character a
//! whole token. Tokenizers of current models give about four characters of
//! English per token and one to two tokens per CJK character, so the
//! estimate errs on the long side and a rendering within the budget is
//! within it for a real tokenizer too.
//!
//! A rendering never goes over its budget by this estimate, with one
//! exception: a URL is never cut, so a single URL longer than the whole
//! budget is shown whole. Every rendering that has results keeps the top
//! result's URL.
//!
//! - [`search`]: ranked results with title, URL, snippet and a one-line why.
//! - [`fetch`]: highlights first, then the main text cut at the budget.
//! - [`research`]: the decision, each constraint with its quote and URL,
//!   what is missing and the next action.

pub mod fetch;
pub mod research;
pub mod search;

/// Estimated tokens of `text` (see the module docs).
pub fn estimate_tokens(text: &str) -> usize {
    let mut ascii = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else {
            other += 1;
        }
    }
    ascii.div_ceil(4) + other
}

/// Text built line by line within a budget. The budget counts each pushed
/// block's estimate separately, which is never less than the estimate of
/// the whole text, so the whole text is within the budget too.
#[derive(Debug, Clone)]
pub struct Page {
    budget: usize,
    used: usize,
    text: String,
}

impl Page {
    /// An empty page of `budget` estimated tokens.
    pub fn new(budget: usize) -> Self {
        Page {
            budget,
            used: 0,
            text: String::new(),
        }
    }

    /// Tokens still free.
    pub fn remaining(&self) -> usize {
        self.budget.saturating_sub(self.used)
    }

    /// Add `block` as one or more lines when it fits; say whether it did.
    pub fn push(&mut self, block: &str) -> bool {
        let cost = estimate_tokens(block) + 1;
        if cost > self.remaining() {
            return false;
        }
        self.push_unchecked(block, cost);
        true
    }

    /// Add `block` whatever its size (a URL that must be kept).
    pub fn push_always(&mut self, block: &str) {
        let cost = estimate_tokens(block) + 1;
        self.push_unchecked(block, cost);
    }

    /// Add as much of `text` as fits (at least `min_chars` characters are
    /// worth showing), cut on a word boundary with an ellipsis. Returns
    /// how many characters of `text` were shown.
    pub fn push_clipped(&mut self, prefix: &str, text: &str, min_chars: usize) -> usize {
        let room = self.remaining().saturating_sub(estimate_tokens(prefix) + 2);
        let clipped = clip_to_tokens(text, room);
        if clipped.chars().count() < min_chars.min(text.chars().count()) {
            return 0;
        }
        let shown = clipped.trim_end_matches('…').chars().count();
        self.push(&format!("{prefix}{clipped}"));
        shown
    }

    fn push_unchecked(&mut self, block: &str, cost: usize) {
        self.text.push_str(block);
        self.text.push('\n');
        self.used += cost;
    }

    /// The text (without its last newline).
    pub fn into_text(mut self) -> String {
        while self.text.ends_with('\n') {
            self.text.pop();
        }
        self.text
    }
}

/// Whitespace collapsed to single spaces.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of `text` (whitespace collapsed), cut with an
/// ellipsis.
pub fn clip_chars(text: &str, max: usize) -> String {
    let flat = flat(text);
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The longest prefix of `text` (whitespace collapsed) within `tokens`
/// estimated tokens, cut after a whole word when one fits, with an
/// ellipsis when cut.
pub fn clip_to_tokens(text: &str, tokens: usize) -> String {
    let flat = flat(text);
    if estimate_tokens(&flat) <= tokens {
        return flat;
    }
    // Reserve one token for the ellipsis.
    let (mut ascii, mut other, mut end) = (0usize, 0usize, 0usize);
    for (i, c) in flat.char_indices() {
        let (a, o) = if c.is_ascii() {
            (ascii + 1, other)
        } else {
            (ascii, other + 1)
        };
        if a.div_ceil(4) + o + 1 > tokens {
            break;
        }
        (ascii, other, end) = (a, o, i + c.len_utf8());
    }
    let cut = &flat[..end];
    let cut = match cut.rfind(' ') {
        Some(space) if space * 4 >= end * 3 => &cut[..space],
        _ => cut,
    };
    if cut.is_empty() {
        return String::new();
    }
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_estimate_counts_ascii_by_quarters_and_other_characters_whole() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("東京"), 2);
    }

    proptest! {
        #[test]
        fn clipping_never_exceeds_its_budget(text in "\\PC{0,400}", tokens in 0usize..120) {
            let clipped = clip_to_tokens(&text, tokens);
            prop_assert!(estimate_tokens(&clipped) <= tokens);
        }

        #[test]
        fn a_page_never_exceeds_its_budget(blocks in proptest::collection::vec("\\PC{0,200}", 0..20), budget in 1usize..400) {
            let mut page = Page::new(budget);
            for b in &blocks {
                if !page.push(b) {
                    page.push_clipped("", b, 1);
                }
            }
            prop_assert!(estimate_tokens(&page.into_text()) <= budget);
        }
    }
}
