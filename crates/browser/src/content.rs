//! Shaping extracted text: `focus` paragraphs, size caps, word counts.

/// Size cap of `fetch` content.
pub const FETCH_MAX_CHARS: usize = 60_000;
/// Size cap of `act` detail content.
pub const ACT_MAX_CHARS: usize = 30_000;
/// `focus` falls back to this many leading characters.
pub const FOCUS_FALLBACK_CHARS: usize = 8_000;
/// `focus` paragraphs totalling fewer characters than this fall back.
pub const FOCUS_MIN_CHARS: usize = 200;

/// The paragraphs of `text` that contain `keyword` (case-insensitive),
/// joined by blank lines; when none match or they total under
/// [`FOCUS_MIN_CHARS`], the first [`FOCUS_FALLBACK_CHARS`] characters.
/// Returns the text and whether the keyword paragraphs were used.
pub fn focus(text: &str, keyword: &str) -> (String, bool) {
    let key = keyword.trim().to_lowercase();
    if key.is_empty() {
        return (crate::serp::cut(text, FOCUS_FALLBACK_CHARS), false);
    }
    let kept: Vec<&str> = text
        .split('\n')
        .map(str::trim)
        .filter(|p| !p.is_empty() && p.to_lowercase().contains(&key))
        .collect();
    let joined = kept.join("\n\n");
    if joined.chars().count() < FOCUS_MIN_CHARS {
        (crate::serp::cut(text, FOCUS_FALLBACK_CHARS), false)
    } else {
        (joined, true)
    }
}

/// Collapse runs of blank lines and trailing spaces.
pub fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            if blank == 1 && !out.is_empty() {
                out.push('\n');
            }
            continue;
        }
        blank = 0;
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(line);
    }
    out.trim().to_string()
}

/// Words: whitespace-separated runs, with each CJK character counted as a
/// word.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace()
        .map(|w| {
            let cjk = w
                .chars()
                .filter(|c| ferret_core::tokenize::is_cjk(*c))
                .count();
            let rest = w.chars().any(|c| !ferret_core::tokenize::is_cjk(c));
            cjk + usize::from(rest)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn focus_keeps_keyword_paragraphs_or_falls_back() {
        let long = "caffeine ".repeat(30);
        let text = format!("intro line\n{long}\nother line\nCAFFEINE again {long}");
        let (f, used) = focus(&text, "Caffeine");
        assert!(used);
        assert!(!f.contains("intro line"));
        assert_eq!(f.matches("again").count(), 1);
        let (f, used) = focus("short caffeine\nrest", "caffeine");
        assert!(!used);
        assert_eq!(f, "short caffeine\nrest");
        let big = "x".repeat(20_000);
        assert_eq!(focus(&big, "zzz").0.chars().count(), FOCUS_FALLBACK_CHARS);
    }

    #[test]
    fn words_and_tidy() {
        assert_eq!(word_count("hello world"), 2);
        assert_eq!(word_count("咖啡 影响 sleep"), 5);
        assert_eq!(tidy("a  \n\n\n\nb\n c"), "a\n\nb\n c");
    }

    proptest! {
        #[test]
        fn focus_is_bounded(s in "\\PC{0,3000}", k in "[a-z]{0,4}") {
            let (f, used) = focus(&s, &k);
            if !used {
                prop_assert!(f.chars().count() <= FOCUS_FALLBACK_CHARS);
            } else {
                prop_assert!(f.chars().count() >= FOCUS_MIN_CHARS);
            }
        }
    }
}
