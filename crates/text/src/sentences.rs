//! The one sentence splitter, and the clauses of a sentence.
//!
//! [`sentences`] cuts after `.`, `!` or `?` (and any closing quotes or
//! brackets) followed by whitespace, after the CJK and full-width ends
//! `。！？．`, and at line breaks. An abbreviation (`Mr.`, `J.J.`, `U.S.`,
//! `Dec. 15`, or a period before a lowercase word) does not end a sentence.
//! [`clauses`] cuts one sentence at `;` and at the start of a contrasting
//! clause (`, while`, `, but`, `；`, `，但` …).

use std::ops::Range;

/// Byte ranges of the sentences of `text`: cut after `.`, `!`, `?` (and
/// closing quotes or brackets) followed by whitespace, after the CJK ends
/// `。！？`, and at line breaks. Abbreviations such as `Mr.` or `J.J.` do
/// not end a sentence (the next word starts in lowercase, or the word
/// before is one or two letters).
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let end = match c {
            '。' | '！' | '？' | '．' | '\n' => Some(i + c.len_utf8()),
            '.' | '!' | '?' => {
                let mut j = i + 1;
                while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')' | b']') {
                    j += 1;
                }
                let next_is_space = text[j..].starts_with(char::is_whitespace);
                (next_is_space && !is_abbreviation(text, i)).then_some(j)
            }
            _ => None,
        };
        if let Some(end) = end {
            if !text[start..end].trim().is_empty() {
                out.push(trim_range(text, start..end));
            }
            start = end;
            while iter.peek().is_some_and(|(k, _)| *k < end) {
                iter.next();
            }
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(trim_range(text, start..text.len()));
    }
    out
}

fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    r.start + lead..r.end - trail
}

/// A period after a one- or two-letter word (`J.`, `Mr.`, `U.S.`), or
/// followed by a lowercase word, is not a sentence end.
fn is_abbreviation(text: &str, dot: usize) -> bool {
    let before: String = text[..dot]
        .chars()
        .rev()
        .take_while(|c| c.is_alphabetic() || *c == '.')
        .collect();
    let word = before.trim_matches('.');
    if !word.is_empty()
        && word.chars().filter(|c| c.is_alphabetic()).count() <= 2
        && word.chars().all(|c| c.is_alphabetic() || c == '.')
    {
        return true;
    }
    const TITLES: &[&str] = &[
        "Mr", "Mrs", "Ms", "Dr", "Prof", "Gov", "Sen", "Rep", "Gen", "Lt", "Sgt", "St", "Jr", "Sr",
        "Inc", "Co", "Corp", "Ltd", "vs", "No", "etc",
    ];
    let word_fwd: String = word.chars().rev().collect();
    if TITLES.contains(&word_fwd.as_str()) {
        return true;
    }
    // `Dec. 15`: a month before its day.
    const MONTHS: &[&str] = &[
        "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
    ];
    if MONTHS.contains(&word_fwd.as_str())
        && text[dot + 1..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    {
        return true;
    }
    text[dot + 1..]
        .trim_start()
        .chars()
        .next()
        .is_some_and(|c| c.is_lowercase())
}

/// Where a clause of a sentence ends: `;`, and `, while` / `, whereas` /
/// `, but` / `, although` / ` while ` / ` whereas ` (the start of a
/// contrasting clause).
const CLAUSE_BREAKS: &[&str] = &[
    "; ",
    ", while ",
    ", whereas ",
    ", but ",
    ", although ",
    ", though ",
    " while ",
    " whereas ",
    ", and ",
    " – ",
    " — ",
    "，而",
    "；",
    "，但",
];

/// The clauses of the sentence at `range` (one clause when nothing breaks
/// it).
pub fn clauses(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let sentence = &text[range.clone()];
    let lower = sentence.to_lowercase();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for b in CLAUSE_BREAKS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(b) {
            let s = from + at;
            cuts.push((s, s + b.len()));
            from = s + b.len();
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for (s, e) in cuts {
        if s < at || !sentence.is_char_boundary(s) || !sentence.is_char_boundary(e) {
            continue;
        }
        // A dash between numbers is a range (`2004 – 2014`), not a break.
        let dash = sentence[s..e]
            .trim()
            .chars()
            .all(|c| matches!(c, '–' | '—'));
        if dash && !sentence[e..].starts_with(char::is_alphabetic) {
            continue;
        }
        if s > at {
            out.push(range.start + at..range.start + s);
        }
        at = e;
    }
    if at < sentence.len() {
        out.push(range.start + at..range.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_skip_initials_and_titles() {
        let t = "Star Trek Beyond was directed by Justin Lin. J.J. Abrams directed the first two. Mr. Lin agreed! 第一句。第二句";
        let s: Vec<&str> = sentences(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(
            s,
            vec![
                "Star Trek Beyond was directed by Justin Lin.",
                "J.J. Abrams directed the first two.",
                "Mr. Lin agreed!",
                "第一句。",
                "第二句"
            ]
        );
    }

    #[test]
    fn full_width_stops_end_sentences() {
        let t = "ＡＢＣ．ＤＥＦ";
        let s: Vec<&str> = sentences(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(s, vec!["ＡＢＣ．", "ＤＥＦ"]);
    }

    #[test]
    fn clauses_break_at_contrasts() {
        let t = "The first two were directed by J.J. Abrams, while Star Trek Beyond was directed by Justin Lin.";
        let c: Vec<&str> = clauses(t, 0..t.len()).into_iter().map(|r| &t[r]).collect();
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(c[1].starts_with("Star Trek Beyond"));
    }
}
