//! The built-in Chinese → English glossary of technical and search terms
//! (`data/glossary_cn_en.tsv`, several hundred entries), used to add an
//! English variant to a Chinese query ("Rust 异步编程" → "Rust async
//! programming").
//!
//! Translation is greedy longest-match over each run of Han characters.
//! Entries with an empty English side are function words (的, 了, 吗 …)
//! that are dropped; entries whose English side starts with `^` are
//! question heads that move to the front ("WebAssembly 是什么" → "what is
//! WebAssembly"). A run with a character the glossary does not cover makes
//! the translation incomplete, and an incomplete translation is not used.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::tokenize::is_cjk;

/// The glossary source, embedded at build time.
pub(crate) const GLOSSARY_TSV: &str = include_str!("../../data/glossary_cn_en.tsv");

/// One glossary entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlossaryEntry {
    /// The Chinese term.
    pub zh: &'static str,
    /// Its English rendering; empty for a dropped function word.
    pub en: &'static str,
    /// A question head that moves to the front of the English variant.
    pub front: bool,
}

struct Glossary {
    entries: Vec<GlossaryEntry>,
    by_zh: HashMap<&'static str, usize>,
    max_chars: usize,
}

fn glossary() -> &'static Glossary {
    static GLOSSARY: OnceLock<Glossary> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let mut entries = Vec::new();
        let mut by_zh = HashMap::new();
        let mut max_chars = 1;
        for line in GLOSSARY_TSV.lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (zh, en) = line.split_once('\t').unwrap_or((line, ""));
            let zh = zh.trim();
            if zh.is_empty() {
                continue;
            }
            let en = en.trim();
            let (en, front) = match en.strip_prefix('^') {
                Some(rest) => (rest, true),
                None => (en, false),
            };
            // A later duplicate would be a data error (a test forbids it);
            // the first entry wins.
            if by_zh.contains_key(zh) {
                continue;
            }
            max_chars = max_chars.max(zh.chars().count());
            by_zh.insert(zh, entries.len());
            entries.push(GlossaryEntry { zh, en, front });
        }
        Glossary {
            entries,
            by_zh,
            max_chars,
        }
    })
}

/// Every entry, in file order.
pub fn entries() -> &'static [GlossaryEntry] {
    &glossary().entries
}

/// The entry for exactly `zh`, if any.
pub fn lookup(zh: &str) -> Option<&'static GlossaryEntry> {
    let g = glossary();
    g.by_zh.get(zh).map(|&i| &g.entries[i])
}

/// A Han ideograph (CJK but not kana or Hangul).
fn is_han(c: char) -> bool {
    is_cjk(c) && !matches!(c as u32, 0x3040..=0x30FF | 0xAC00..=0xD7AF)
}

/// CJK punctuation rendered for an English query.
fn ascii_punctuation(c: char) -> Option<&'static str> {
    Some(match c {
        '，' | '、' => ",",
        '。' | '．' => ".",
        '？' => "?",
        '！' => "!",
        '：' => ":",
        '；' => ";",
        '（' => "(",
        '）' => ")",
        '“' | '”' | '「' | '」' | '『' | '』' | '《' | '》' => "\"",
        '\u{3000}' => " ",
        _ => return None,
    })
}

/// The result of [`translate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The English rendering (untranslated characters kept as they were).
    pub text: String,
    /// Whether every CJK character was covered by the glossary.
    pub complete: bool,
}

/// Translate the Han runs of `text` with the glossary; other text is kept.
pub fn translate(text: &str) -> Translation {
    let g = glossary();
    let mut front: Vec<&'static str> = Vec::new();
    let mut body = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if is_han(c) {
            let run_len = rest
                .char_indices()
                .find(|(_, ch)| !is_han(*ch))
                .map_or(rest.len(), |(i, _)| i);
            translate_run(g, &rest[..run_len], &mut front, &mut body);
            rest = &rest[run_len..];
        } else {
            match ascii_punctuation(c) {
                Some(p) => body.push_str(p),
                None => body.push(c),
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    let mut out = String::with_capacity(body.len() + 16);
    for head in &front {
        push_word(&mut out, head);
    }
    for word in body.split_whitespace() {
        push_word(&mut out, word);
    }
    let out = out
        .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | ' '))
        .to_string();
    let complete = !out.chars().any(is_cjk);
    Translation {
        text: out,
        complete,
    }
}

/// The English variant of `text` when the glossary covers every CJK
/// character and the result differs from the input; `None` otherwise.
pub fn english_variant(text: &str) -> Option<String> {
    if !text.chars().any(is_cjk) {
        return None;
    }
    let t = translate(text);
    (t.complete && !t.text.is_empty() && t.text != text).then_some(t.text)
}

fn push_word(out: &mut String, word: &str) {
    if word.is_empty() {
        return;
    }
    let glue = matches!(
        word.chars().next(),
        Some(',' | '.' | '?' | '!' | ':' | ';' | ')')
    );
    if !out.is_empty() && !glue && !out.ends_with('(') {
        out.push(' ');
    }
    out.push_str(word);
}

fn translate_run(g: &Glossary, run: &str, front: &mut Vec<&'static str>, body: &mut String) {
    // Char boundary offsets of the run, plus its end.
    let bounds: Vec<usize> = run
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(run.len()))
        .collect();
    let n = bounds.len() - 1;
    let mut i = 0;
    while i < n {
        let longest = g.max_chars.min(n - i);
        let found = (1..=longest).rev().find_map(|len| {
            g.by_zh
                .get(&run[bounds[i]..bounds[i + len]])
                .map(|&e| (len, &g.entries[e]))
        });
        match found {
            Some((len, entry)) => {
                if entry.front {
                    if !front.contains(&entry.en) {
                        front.push(entry.en);
                    }
                } else if !entry.en.is_empty() {
                    body.push(' ');
                    body.push_str(entry.en);
                    body.push(' ');
                }
                i += len;
            }
            None => {
                body.push(' ');
                body.push_str(&run[bounds[i]..bounds[i + 1]]);
                body.push(' ');
                i += 1;
            }
        }
    }
}
