//! The text units the judgement reads: words with their byte spans and
//! stems, sentences (Latin and CJK ends), and the windows evidence may sit
//! in — one sentence, two adjacent sentences, or one clause of a sentence.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use ferret_core::plan::stopwords::is_stopword;
use ferret_core::tokenize::is_cjk;

/// A word of a text: its lowercased stem and where it sits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    /// Lowercased, with a plain English suffix stripped (`directed` →
    /// `direct`, `cases` → `case`). A CJK run is split into characters.
    pub(crate) stem: String,
    /// The bytes in the text.
    pub(crate) span: Range<usize>,
    /// A function word (`the`, `of`, `by` …).
    pub(crate) stop: bool,
}

/// Irregular English forms and their base.
const IRREGULAR: &[(&str, &str)] = &[
    ("won", "win"),
    ("lost", "lose"),
    ("began", "begin"),
    ("begun", "begin"),
    ("took", "take"),
    ("taken", "take"),
    ("made", "make"),
    ("said", "say"),
    ("told", "tell"),
    ("gave", "give"),
    ("given", "give"),
    ("went", "go"),
    ("gone", "go"),
    ("came", "come"),
    ("saw", "see"),
    ("seen", "see"),
    ("found", "find"),
    ("held", "hold"),
    ("led", "lead"),
    ("left", "leave"),
    ("met", "meet"),
    ("paid", "pay"),
    ("ran", "run"),
    ("sold", "sell"),
    ("sent", "send"),
    ("spent", "spend"),
    ("stood", "stand"),
    ("thought", "think"),
    ("wrote", "write"),
    ("written", "write"),
    ("drove", "drive"),
    ("driven", "drive"),
    ("rose", "rise"),
    ("risen", "rise"),
    ("fell", "fall"),
    ("fallen", "fall"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("knew", "know"),
    ("known", "know"),
    ("lit", "light"),
    ("built", "build"),
    ("bought", "buy"),
    ("brought", "bring"),
    ("caught", "catch"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("fought", "fight"),
    ("flew", "fly"),
    ("flown", "fly"),
    ("kept", "keep"),
    ("struck", "strike"),
    ("taught", "teach"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("beaten", "beat"),
    ("ate", "eat"),
    ("eaten", "eat"),
    ("drew", "draw"),
    ("drawn", "draw"),
    ("broke", "break"),
    ("broken", "break"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("became", "become"),
    ("sat", "sit"),
    ("set", "set"),
    ("felt", "feel"),
    ("heard", "hear"),
    ("meant", "mean"),
    ("dealt", "deal"),
    ("sought", "seek"),
    ("won't", "will"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("people", "person"),
    ("mice", "mouse"),
];

/// Words a paraphrase swaps for each other, each group under its first
/// word's stem: `acquired` meets `purchased`, `defeated` meets `beat`.
const SYNONYMS: &[&[&str]] = &[
    &["buy", "purchase", "acquire"],
    &["beat", "defeat", "overcome"],
    &["begin", "start", "launch", "commence", "open"],
    &["end", "finish", "conclude"],
    &["rise", "increase", "grow", "climb", "gain", "jump"],
    &["fall", "decrease", "decline", "drop", "slide", "dip"],
    &["say", "tell", "announce"],
    &["appoint", "name"],
    &["choose", "select", "pick"],
    &["show", "reveal", "indicate"],
    &["receive", "get"],
    &["give", "grant", "award"],
    &["make", "create", "produce", "build"],
    &["die", "dead", "death"],
    &["kill", "slay"],
    &["sue", "lawsuit"],
    &["hire", "employ"],
    &["fire", "dismiss", "sack"],
    &["ban", "prohibit"],
    &["allow", "permit", "let"],
    &["cost", "price"],
    &["large", "big"],
    &["small", "little"],
    &["car", "vehicle", "automobile"],
    &["firm", "company", "business"],
    &["film", "movie"],
    &["job", "position", "role"],
    &["chief", "head", "leader"],
];

/// The stem of one word: an irregular form's base, else Snowball's English
/// stem (`directed`, `directs`, `directing` → `direct`), then the stem of
/// the synonym group it belongs to.
pub(crate) fn stem(word: &str) -> String {
    static STEMS: LazyLock<(Stemmer, HashMap<String, String>)> = LazyLock::new(|| {
        let stemmer = Stemmer::create(Algorithm::English);
        let groups = SYNONYMS
            .iter()
            .flat_map(|group| {
                let head = stemmer.stem(group[0]).into_owned();
                group.iter().map(move |w| (w.to_string(), head.clone()))
            })
            .map(|(w, head)| {
                (
                    Stemmer::create(Algorithm::English).stem(&w).into_owned(),
                    head,
                )
            })
            .collect();
        (stemmer, groups)
    });
    let w = word.to_lowercase();
    let base = IRREGULAR
        .iter()
        .find(|(form, _)| *form == w)
        .map_or(w.as_str(), |(_, base)| base);
    if !base.is_ascii() {
        return base.to_string();
    }
    let (stemmer, groups) = &*STEMS;
    let stemmed = stemmer.stem(base);
    match groups.get(stemmed.as_ref()) {
        Some(head) => head.clone(),
        None => stemmed.into_owned(),
    }
}

/// Lowercase prefixes (at most four characters) of every form a page
/// could use for `word` and still meet its stem: the word, its base and
/// stem, the irregular forms of that base and the words of its synonym
/// group. A sentence that contains none of them cannot hold the word.
pub(crate) fn surface_cues(word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let base = IRREGULAR
        .iter()
        .find(|(form, _)| *form == w)
        .map_or(w.clone(), |(_, b)| (*b).to_string());
    let mut forms = vec![w.clone(), base.clone(), stem(&w)];
    if let Some(group) = SYNONYMS
        .iter()
        .find(|g| g.iter().any(|m| stem(m) == stem(&base)))
    {
        forms.extend(group.iter().map(|m| m.to_string()));
    }
    let bases: Vec<String> = forms.clone();
    for (form, b) in IRREGULAR {
        if bases.iter().any(|x| x == b) {
            forms.push((*form).to_string());
        }
    }
    let mut out: Vec<String> = forms.iter().map(|f| f.chars().take(4).collect()).collect();
    out.sort();
    out.dedup();
    out
}

/// The words of `text` (letters and digits, apostrophes inside words; CJK
/// one character each), in order.
pub(crate) fn words(text: &str) -> Vec<Word> {
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

/// Byte ranges of the sentences of `text`: cut after `.`, `!`, `?` (and
/// closing quotes or brackets) followed by whitespace, after the CJK ends
/// `。！？`, and at line breaks. Abbreviations such as `Mr.` or `J.J.` do
/// not end a sentence (the next word starts in lowercase, or the word
/// before is one or two letters).
pub(crate) fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let end = match c {
            '。' | '！' | '？' | '\n' => Some(i + c.len_utf8()),
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
pub(crate) fn clauses(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
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

/// Whether `text` is mostly CJK.
pub(crate) fn mostly_cjk(text: &str) -> bool {
    let (mut cjk, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphanumeric()) {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk > other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet_across_inflections() {
        assert_eq!(stem("directed"), stem("directs"));
        assert_eq!(stem("cases"), stem("case"));
        assert_eq!(stem("studies"), stem("study"));
        assert_eq!(stem("won"), stem("win"));
        assert_eq!(stem("lit"), stem("light"));
    }

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
    fn clauses_break_at_contrasts() {
        let t = "The first two were directed by J.J. Abrams, while Star Trek Beyond was directed by Justin Lin.";
        let c: Vec<&str> = clauses(t, 0..t.len()).into_iter().map(|r| &t[r]).collect();
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(c[1].starts_with("Star Trek Beyond"));
    }

    #[test]
    fn words_carry_spans_and_stems() {
        let t = "Lin's films, 东京";
        let w = words(t);
        assert_eq!(w[0].stem, "lin");
        assert_eq!(&t[w[0].span.clone()], "Lin's");
        assert_eq!(w.last().map(|w| w.stem.as_str()), Some("京"));
    }
}
