//! Titles as near-duplicate clustering reads them: without a trailing
//! site name, and compared by their token sets.

use crate::tokenize::Tokenizer;

/// Separators before a site name at the end of a title.
const SITE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " · ", " :: ", " » "];

/// Separators CJK sites write without spaces (`Rust 异步编程_知乎`).
const CJK_SITE_SEPARATORS: &[char] = &['_', '｜'];

/// Most tokens a trailing segment may have to count as a site name.
const MAX_SITE_NAME_TOKENS: usize = 4;

/// The bytes that start a site-name separator's mark: `| - _ :`, and the
/// lead bytes of the non-ASCII ones (`–` and `—` start with E2, `·` and `»`
/// with C2, `｜` with EF). One table load a byte instead of seven
/// comparisons.
const SEPARATOR_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = [b'|', b'-', b'_', b':', 0xC2, 0xE2, 0xEF];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// `title` without a trailing site-name segment: the part after the last
/// ` | `, ` - `, ` – `, ` — `, ` · `, ` :: ` or ` » ` (in CJK titles also
/// `_` or `｜` without spaces) when it has at most four tokens and
/// something is left before it. `Announcing Rust 1.80.0 | Mirror` →
/// `Announcing Rust 1.80.0`; a title without such a segment is unchanged.
pub fn title_without_site_name(title: &str) -> &str {
    let t = title.trim();
    let bytes = t.as_bytes();
    // Only a title with a separator byte can have a site name to cut. An
    // ASCII title (most) can only hold `|`, `-`, `_` or `:`, and `_` only
    // separates in CJK titles: one vectorised search for three bytes.
    let has_separator = if t.is_ascii() {
        memchr::memchr3(b'|', b'-', b':', bytes).is_some()
    } else {
        bytes.iter().any(|&b| SEPARATOR_BYTE[b as usize])
    };
    if !has_separator {
        return t;
    }
    cut_site_name(t)
}

/// [`title_without_site_name`] of a trimmed title, found by reading all of
/// it.
fn cut_site_name(t: &str) -> &str {
    let bytes = t.as_bytes();
    let cjk = crate::tokenize::has_cjk(t);
    // The last separator: a spaced one, or in CJK titles an unspaced one.
    let mut cut: Option<(usize, usize)> = None; // (start, length)
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' {
            // Every spaced separator has a punctuation byte after the space.
            if bytes
                .get(i + 1)
                .is_some_and(|n| !n.is_ascii_alphanumeric() && *n != b' ')
                && let Some(sep) = SITE_SEPARATORS.iter().find(|sep| t[i..].starts_with(**sep))
            {
                cut = Some((i, sep.len()));
            }
        } else if cjk && (b == b'_' || b == 0xEF) {
            // `_`, or the first byte of `｜` (U+FF5C, EF BD 9C).
            if let Some(c) = t[i..].chars().next()
                && CJK_SITE_SEPARATORS.contains(&c)
            {
                cut = Some((i, c.len_utf8()));
            }
        }
    }
    let Some((at, len)) = cut else {
        return t;
    };
    let head = t[..at].trim_end();
    let tail = &t[at + len..];
    let tail_tokens = Tokenizer::default().count(tail);
    if head.is_empty() || tail_tokens == 0 || tail_tokens > MAX_SITE_NAME_TOKENS {
        return t;
    }
    head
}

/// A title's distinct token hashes, sorted: what titles are compared by.
pub(super) fn title_key(tokenizer: &mut Tokenizer, title: &str) -> Box<[u64]> {
    let mut key = Vec::new();
    tokenizer.for_each(title, |t| key.push(t.hash));
    key.sort_unstable();
    key.dedup();
    key.into_boxed_slice()
}

/// Jaccard similarity of two sorted, distinct hash lists; two empty lists
/// are 1.0.
pub(super) fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Jaccard similarity of two titles' token sets (tokens as
/// [`crate::tokenize::tokens`] gives them); two empty titles are 1.0.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    let mut tokenizer = Tokenizer::default();
    jaccard(&title_key(&mut tokenizer, a), &title_key(&mut tokenizer, b))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The separator-byte check only skips titles the full reading
        /// would leave as they are.
        #[test]
        fn the_separator_check_skips_only_uncut_titles(
            title in prop_oneof![
                "([a-zA-Z0-9]{1,6}| | \\| | - | :: |[|:_-]){0,8}",
                "([a-zA-Z0-9]{1,6}| | \\| | - | :: | · | » | – | — |[|:_｜-]|异步){0,10}",
            ],
        ) {
            let t = title.trim();
            prop_assert_eq!(title_without_site_name(&title), cut_site_name(t), "{:?}", title);
        }
    }
}
