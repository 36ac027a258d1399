//! Technical synonyms: short or informal names expanded
//! to the name pages use (k8s → Kubernetes, JS → JavaScript, Go → Golang,
//! Postgres → PostgreSQL …).
//!
//! Matching is whole-word and case-aware: an entry either matches in any
//! case (`k8s`, `K8S`) or only in the listed spellings (`Go` but not the
//! verb `go`; `React` but not `react`), and an entry can refuse a match
//! before certain words ("React Native" stays, "Go to" stays). A word that
//! is already the long form's prefix ("React.js") is left alone.

use std::borrow::Cow;

use crate::tokenize::is_cjk;

/// One synonym rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Synonym {
    /// The short forms. With `any_case`, the first one compared
    /// case-insensitively; otherwise these exact spellings.
    pub short: &'static [&'static str],
    /// The long form that replaces it.
    pub long: &'static str,
    /// Whether the short form matches in any letter case.
    pub any_case: bool,
    /// Lowercase words that, following the short form, veto the expansion.
    pub unless_followed_by: &'static [&'static str],
}

/// The synonym table.
pub const SYNONYMS: &[Synonym] = &[
    Synonym {
        short: &["k8s"],
        long: "Kubernetes",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["js"],
        long: "JavaScript",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["ts"],
        long: "TypeScript",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["Go", "GO"],
        long: "Golang",
        any_case: false,
        unless_followed_by: &["to", "back", "home", "away", "ahead"],
    },
    Synonym {
        short: &["postgres"],
        long: "PostgreSQL",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["mongo"],
        long: "MongoDB",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["tf"],
        long: "TensorFlow",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["torch"],
        long: "PyTorch",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["React", "REACT"],
        long: "React.js",
        any_case: false,
        unless_followed_by: &["native"],
    },
    Synonym {
        short: &["vue"],
        long: "Vue.js",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["py"],
        long: "Python",
        any_case: true,
        unless_followed_by: &[],
    },
    Synonym {
        short: &["cpp"],
        long: "C++",
        any_case: true,
        unless_followed_by: &[],
    },
];

/// A Latin word character (CJK characters end a word: "k8s集群").
fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '_'
}

/// The rule that expands `word` followed by `after`, if any.
fn rule_for(word: &str, after: &str) -> Option<&'static Synonym> {
    // Every short form is 2–8 ASCII bytes.
    if !(2..=8).contains(&word.len()) {
        return None;
    }
    let rule = SYNONYMS.iter().find(|s| {
        if s.any_case {
            s.short.iter().any(|f| f.eq_ignore_ascii_case(word))
        } else {
            s.short.contains(&word)
        }
    })?;
    // "React.js", "Vue.js", "Node.js": already a long form (or another name).
    if after.starts_with('.') && after[1..].starts_with(is_word_char) {
        return None;
    }
    // "C++", "TS-loader": part of a longer name.
    if after.starts_with(['+', '#', '-']) {
        return None;
    }
    let next_word: String = after
        .trim_start()
        .chars()
        .take_while(|c| is_word_char(*c))
        .flat_map(char::to_lowercase)
        .collect();
    if rule.unless_followed_by.contains(&next_word.as_str()) {
        return None;
    }
    Some(rule)
}

/// `text` with every short form replaced by its long form; borrowed when
/// nothing changed.
pub fn expand(text: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    let bytes_len = text.len();
    while i < bytes_len {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if !is_word_char(c) {
            i += c.len_utf8();
            continue;
        }
        let end = text[i..]
            .char_indices()
            .find(|(_, ch)| !is_word_char(*ch))
            .map_or(bytes_len, |(j, _)| i + j);
        // A word glued to a preceding '.', '-' or '+' is part of a longer
        // name ("node.js", "vue-router").
        let glued = text[..i].ends_with(['.', '-', '+', '/']);
        let rule = if glued {
            None
        } else {
            rule_for(&text[i..end], &text[end..])
        };
        if let Some(rule) = rule {
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
            buf.push_str(&text[copied..i]);
            buf.push_str(rule.long);
            copied = end;
        }
        i = end;
    }
    match out {
        Some(mut buf) => {
            buf.push_str(&text[copied..]);
            Cow::Owned(buf)
        }
        None => Cow::Borrowed(text),
    }
}
