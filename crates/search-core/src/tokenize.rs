//! Tokenisation that handles CJK text: words for alphabetic scripts,
//! character bigrams for Chinese, Japanese and Korean runs (search-layer
//! never tokenised CJK; this fixes that).
//!
//! Used by keyword scoring, constraint matching and SimHash shingles.

/// Whether `c` belongs to a CJK script that is written without spaces
/// (Han ideographs, kana, Hangul syllables, CJK punctuation excluded).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F    // Hiragana
        | 0x30A0..=0x30FF  // Katakana
        | 0x3400..=0x4DBF  // CJK Extension A
        | 0x4E00..=0x9FFF  // CJK Unified Ideographs
        | 0xAC00..=0xD7AF  // Hangul syllables
        | 0xF900..=0xFAFF  // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // Extensions B–F, compatibility supplement
    )
}

/// One token and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A lowercased run of letters and digits from a non-CJK script.
    Word(String),
    /// Two adjacent CJK characters (or one, when a run has only one).
    Cjk(String),
}

impl Token {
    /// The token text.
    pub fn as_str(&self) -> &str {
        match self {
            Token::Word(s) | Token::Cjk(s) => s,
        }
    }

    /// The token text, owned.
    pub fn into_string(self) -> String {
        match self {
            Token::Word(s) | Token::Cjk(s) => s,
        }
    }
}

/// Split `text` into tokens: lowercased alphanumeric words (an apostrophe,
/// `+`, `#` or `.` inside a word is kept, so `c++`, `c#`, `node.js` stay one
/// token), and CJK runs as overlapping character bigrams (a one-character run
/// is one token).
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();

    fn flush_word(word: &mut String, out: &mut Vec<Token>) {
        let w = word.trim_end_matches(['.', '\'']);
        if !w.is_empty() {
            out.push(Token::Word(w.to_string()));
        }
        word.clear();
    }
    fn flush_cjk(cjk: &mut Vec<char>, out: &mut Vec<Token>) {
        match cjk.len() {
            0 => {}
            1 => out.push(Token::Cjk(cjk[0].to_string())),
            _ => {
                for pair in cjk.windows(2) {
                    out.push(Token::Cjk(pair.iter().collect()));
                }
            }
        }
        cjk.clear();
    }

    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            word.extend(c.to_lowercase());
        } else if !word.is_empty() && matches!(c, '+' | '#') {
            word.push(c);
        } else if !word.is_empty() && matches!(c, '.' | '\'') {
            // Kept only when a letter or digit follows (trimmed at flush).
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

/// The token texts of [`tokens`], owned.
pub fn token_strings(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(Token::into_string).collect()
}

/// Query terms for keyword coverage: word tokens longer than 2 characters
/// (search-layer's rule) plus every CJK bigram, deduplicated in order.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tokens(query) {
        let keep = match &t {
            Token::Word(w) => w.chars().count() > 2,
            Token::Cjk(_) => true,
        };
        if keep && !out.iter().any(|o| o == t.as_str()) {
            out.push(t.into_string());
        }
    }
    out
}

/// True when `text` contains any CJK character.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(is_cjk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_keep_inner_symbols() {
        assert_eq!(
            token_strings("Node.js vs C++ and C#, it's OK."),
            vec!["node.js", "vs", "c++", "and", "c#", "it's", "ok"]
        );
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(
            token_strings("Rust 异步编程"),
            vec!["rust", "异步", "步编", "编程"]
        );
        assert_eq!(token_strings("是"), vec!["是"]);
    }

    #[test]
    fn mixed_scripts_split_at_the_boundary() {
        assert_eq!(
            token_strings("Deno最新进展"),
            vec!["deno", "最新", "新进", "进展"]
        );
    }

    #[test]
    fn query_terms_drop_short_words_but_keep_cjk() {
        assert_eq!(
            query_terms("what is a k8s 集群"),
            vec!["what", "k8s", "集群"]
        );
    }
}
