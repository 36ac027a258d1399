//! The facts of a piece of text: the numbers, dates, names and quoted
//! phrases a claim stands or falls by, each normalised so that two
//! spellings of one fact compare equal (`30,000` = `30000` = `30 thousand`
//! = `3万`, `9.5B` = `9.5 billion`, `十五` = `15`, `18 %` = `18 percent`,
//! `March 3, 2019` = `3 March 2019` = `2019-03-03` = `2019年3月3日`).
//!
//! [`facts_of`] reads a text once and returns every fact with its byte
//! span; the planner keeps a constraint's facts whole (a number is never
//! split into `30` and `000`) and the evidence ledger compares a claim's
//! facts with a sentence's. [`polarity_of`] finds negation (English, Chinese,
//! Japanese, Korean).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::tokenize::is_cjk;

/// One fact of a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fact {
    /// A quantity: its value (scale applied), whether it is a percentage,
    /// and the unit word that follows it, when one does (`8-speed` → 8,
    /// `speed`).
    Number {
        /// The value (`9.5B` → 9 500 000 000).
        value: f64,
        /// `18 %`, `18 percent`, `百分之十八`.
        percent: bool,
        /// The word right after the number (lowercased), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unit: Option<String>,
        /// The currency, when a symbol or a currency word gives one
        /// (`$`, `£`, `€`, `¥`, `₩`, `₹`; `dollars` → `$`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        currency: Option<char>,
        /// As written.
        text: String,
    },
    /// A calendar date or part of one.
    Date {
        /// The year, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        year: Option<i32>,
        /// The month (1–12), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        month: Option<u8>,
        /// The day (1–31), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        day: Option<u8>,
        /// As written.
        text: String,
    },
    /// A time of day (`06:40`).
    Time {
        /// Minutes since midnight.
        minutes: u32,
        /// As written.
        text: String,
    },
    /// A name: a run of capitalised words (`J.J. Abrams`, `Star Trek
    /// Beyond`), or a quoted phrase.
    Name {
        /// Lowercased, without dots and quotes, single-spaced.
        key: String,
        /// As written.
        text: String,
    },
}

impl Fact {
    /// The text as written.
    pub fn text(&self) -> &str {
        match self {
            Fact::Number { text, .. }
            | Fact::Date { text, .. }
            | Fact::Time { text, .. }
            | Fact::Name { text, .. } => text,
        }
    }

    /// Whether `self` (a claim's fact) is stated by `other` (a page's):
    /// equal numbers (relative difference under 1e-9, same percent-ness),
    /// dates that agree on every part both give, equal times, and names
    /// whose words contain the claim's (`Abrams` is stated by `J.J.
    /// Abrams`).
    pub fn stated_by(&self, other: &Fact) -> bool {
        match (self, other) {
            (
                Fact::Number {
                    value: a,
                    percent: pa,
                    ..
                },
                Fact::Number {
                    value: b,
                    percent: pb,
                    ..
                },
            ) => pa == pb && same_value(*a, *b),
            (Fact::Date { .. }, Fact::Date { .. }) => {
                self.date_agrees(other) && self.date_covered_by(other)
            }
            (Fact::Time { minutes: a, .. }, Fact::Time { minutes: b, .. }) => a == b,
            (Fact::Name { key: a, .. }, Fact::Name { key: b, .. }) => name_within(a, b),
            // A bare year written as a number.
            (
                Fact::Date {
                    year: Some(y),
                    month: None,
                    day: None,
                    ..
                },
                Fact::Number {
                    value,
                    percent: false,
                    ..
                },
            ) => same_value(f64::from(*y), *value),
            (
                Fact::Number {
                    value,
                    percent: false,
                    ..
                },
                Fact::Date {
                    year: Some(y),
                    month: None,
                    day: None,
                    ..
                },
            ) => same_value(f64::from(*y), *value),
            _ => false,
        }
    }

    /// Whether `other` is the same kind of fact with a different value: a
    /// number with the same percent-ness, a date that disagrees on a part
    /// both give, a different time.
    pub fn contradicted_by(&self, other: &Fact) -> bool {
        match (self, other) {
            (Fact::Number { percent: pa, .. }, Fact::Number { percent: pb, .. }) => {
                pa == pb && !self.stated_by(other)
            }
            (Fact::Date { .. }, Fact::Date { .. }) => !self.date_agrees(other),
            (Fact::Time { .. }, Fact::Time { .. }) => !self.stated_by(other),
            _ => false,
        }
    }

    fn date_parts(&self) -> (Option<i32>, Option<u8>, Option<u8>) {
        match self {
            Fact::Date {
                year, month, day, ..
            } => (*year, *month, *day),
            _ => (None, None, None),
        }
    }

    /// No part that both dates give differs.
    fn date_agrees(&self, other: &Fact) -> bool {
        let (ya, ma, da) = self.date_parts();
        let (yb, mb, db) = other.date_parts();
        let agree = |a: Option<i64>, b: Option<i64>| a.zip(b).is_none_or(|(a, b)| a == b);
        agree(ya.map(i64::from), yb.map(i64::from))
            && agree(ma.map(i64::from), mb.map(i64::from))
            && agree(da.map(i64::from), db.map(i64::from))
    }

    /// Every part `self` gives is given by `other`.
    fn date_covered_by(&self, other: &Fact) -> bool {
        let (ya, ma, da) = self.date_parts();
        let (yb, mb, db) = other.date_parts();
        (ya.is_none() || yb.is_some())
            && (ma.is_none() || mb.is_some())
            && (da.is_none() || db.is_some())
    }
}

fn same_value(a: f64, b: f64) -> bool {
    let scale = a.abs().max(b.abs()).max(1e-12);
    (a - b).abs() / scale < 1e-9
}

/// Whether two name keys name the same: the words of one occur, in order,
/// among the other's (`Abrams` and `J.J. Abrams`; `Stadia` and `Google
/// Stadia`), the shorter ending with the longer's last word when it is the
/// page's (so `Venus Williams` is not `Serena Williams`).
fn name_within(claim: &str, page: &str) -> bool {
    if claim == page {
        return true;
    }
    let contains = |long: &str, short: &str| {
        let words: Vec<&str> = long.split(' ').collect();
        let wanted: Vec<&str> = short.split(' ').collect();
        words.windows(wanted.len()).any(|w| w == wanted.as_slice())
    };
    let last = |s: &str| s.rsplit(' ').next().unwrap_or_default().to_string();
    contains(page, claim) || (contains(claim, page) && last(claim) == last(page))
}

/// A fact and where it sits in the text (byte offsets).
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    /// The fact.
    pub fact: Fact,
    /// Its bytes in the text.
    pub span: Range<usize>,
}

const MONTH_RE: &str = r"(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

/// Dates, most specific spellings first.
static DATE_RES: LazyLock<Vec<(Regex, DateShape)>> = LazyLock::new(|| {
    let shapes = [
        (
            r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b".to_string(),
            DateShape::Ymd,
        ),
        (
            r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]".to_string(),
            DateShape::Ymd,
        ),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月".to_string(), DateShape::Ym),
        (
            r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]".to_string(),
            DateShape::Md,
        ),
        (
            r"(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일".to_string(),
            DateShape::Ymd,
        ),
        (
            format!(r"\b({MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"),
            DateShape::MonDY,
        ),
        (
            format!(r"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_RE}),?\s+(\d{{4}})\b"),
            DateShape::DMonY,
        ),
        (format!(r"\b({MONTH_RE})\s+(\d{{4}})\b"), DateShape::MonY),
        (
            format!(r"\b({MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"),
            DateShape::MonD,
        ),
        (
            format!(r"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_RE})\b"),
            DateShape::DMon,
        ),
        (r"(\d{4})\s*年".to_string(), DateShape::Y),
        (r"(\d{4})\s*년".to_string(), DateShape::Y),
        (
            r"\b(1[5-9]\d{2}|20\d{2}|2100)s?\b".to_string(),
            DateShape::Y,
        ),
    ];
    shapes
        .into_iter()
        .map(|(re, shape)| (Regex::new(&re).expect("date patterns are valid"), shape))
        .collect()
});

#[derive(Debug, Clone, Copy)]
enum DateShape {
    Ymd,
    Ym,
    Md,
    MonDY,
    DMonY,
    MonY,
    MonD,
    DMon,
    Y,
}

fn date_of(
    caps: &regex::Captures<'_>,
    shape: DateShape,
) -> Option<(Option<i32>, Option<u8>, Option<u8>)> {
    let num = |i: usize| caps.get(i).and_then(|m| m.as_str().parse::<i64>().ok());
    // The pattern only captures month words, which the one month table reads.
    let mon = |i: usize| {
        caps.get(i)
            .and_then(|m| crate::dates::month_number(m.as_str()))
            .map(|n| n as u8)
    };
    let (y, m, d) = match shape {
        DateShape::Ymd => (num(1), num(2).map(|v| v as u8), num(3).map(|v| v as u8)),
        DateShape::Ym => (num(1), num(2).map(|v| v as u8), None),
        DateShape::Md => (None, num(1).map(|v| v as u8), num(2).map(|v| v as u8)),
        DateShape::MonDY => (num(3), mon(1), num(2).map(|v| v as u8)),
        DateShape::DMonY => (num(3), mon(2), num(1).map(|v| v as u8)),
        DateShape::MonY => (num(2), mon(1), None),
        DateShape::MonD => (None, mon(1), num(2).map(|v| v as u8)),
        DateShape::DMon => (None, mon(2), num(1).map(|v| v as u8)),
        DateShape::Y => (num(1), None, None),
    };
    let valid_m = m.is_none_or(|m| (1..=12).contains(&m));
    let valid_d = d.is_none_or(|d| (1..=31).contains(&d));
    (valid_m && valid_d && (y.is_some() || m.is_some())).then(|| (y.map(|y| y as i32), m, d))
}

static TIME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([01]?\d|2[0-3]):([0-5]\d)\b").expect("valid"));

/// A number with separators, a decimal part, a currency sign before it and
/// a scale, percent or unit after it.
static NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?P<neg>[-−])?
        (?P<cur>[$€£¥₩])?\s?
        (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)
        (?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|[kKmMbB](?:\b|$)|万|亿|千|百万|億|만|억))?
        (?:\s?(?P<pct>%|％|percent\b|per\s?cent\b))?
        ",
    )
    .expect("valid")
});

const SCALES: &[(&str, f64)] = &[
    ("thousand", 1e3),
    ("k", 1e3),
    ("千", 1e3),
    ("million", 1e6),
    ("mn", 1e6),
    ("m", 1e6),
    ("百万", 1e6),
    ("billion", 1e9),
    ("bn", 1e9),
    ("b", 1e9),
    ("trillion", 1e12),
    ("万", 1e4),
    ("만", 1e4),
    ("亿", 1e8),
    ("億", 1e8),
    ("억", 1e8),
];

/// Number words (English) with their values.
const WORDS: &[(&str, f64)] = &[
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("dozen", 12.0),
    ("half", 0.5),
    ("twice", 2.0),
];

static WORD_NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| {
    let words: Vec<&str> = WORDS.iter().map(|(w, _)| *w).collect();
    Regex::new(&format!(
        r"(?i)\b(?:{w})(?:[\s-](?:{w}))*(?:\s(?:thousand|million|billion))?\b",
        w = words.join("|")
    ))
    .expect("valid")
});

static CJK_NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:百分之)?[零〇一二两三四五六七八九十百千万亿]+(?:点[零〇一二三四五六七八九]+)?")
        .expect("valid")
});

/// Every fact of `text`, in text order (dates first claim their digits, so
/// `2019` in `March 3, 2019` is not also a number).
pub fn facts_of(text: &str) -> Vec<Spanned> {
    let mut out: Vec<Spanned> = Vec::new();
    // Dates, times and digit numbers all hold an ASCII digit.
    if text.bytes().any(|b| b.is_ascii_digit()) {
        dates(text, &mut out);
        times(text, &mut out);
        digit_numbers(text, &mut out);
    }
    word_numbers(text, &mut out);
    cjk_numbers(text, &mut out);
    let names: Vec<Spanned> = names_of(text)
        .into_iter()
        .filter(|n| !overlaps(&out, &n.span))
        .collect();
    out.extend(names);
    out.sort_by_key(|s| s.span.start);
    out
}

/// The dates of `text`, each date pattern in order. A pattern is read with
/// captures only where it matches at all (captures cost far more than a
/// match test).
fn dates(text: &str, out: &mut Vec<Spanned>) {
    for (re, shape) in DATE_RES.iter().filter(|(re, _)| re.is_match(text)) {
        for caps in re.captures_iter(text) {
            let m = caps.get(0).expect("group 0");
            if overlaps(out, &m.range()) {
                continue;
            }
            if let Some((year, month, day)) = date_of(&caps, *shape) {
                out.push(Spanned {
                    fact: Fact::Date {
                        year,
                        month,
                        day,
                        text: m.as_str().to_string(),
                    },
                    span: m.range(),
                });
            }
        }
    }
}

/// The clock times (`06:40`) of `text` not inside a date.
fn times(text: &str, out: &mut Vec<Spanned>) {
    if !TIME_RE.is_match(text) {
        return;
    }
    for caps in TIME_RE.captures_iter(text) {
        let m = caps.get(0).expect("group 0");
        if overlaps(out, &m.range()) {
            continue;
        }
        let h: u32 = caps[1].parse().unwrap_or(0);
        let min: u32 = caps[2].parse().unwrap_or(0);
        out.push(Spanned {
            fact: Fact::Time {
                minutes: h * 60 + min,
                text: m.as_str().to_string(),
            },
            span: m.range(),
        });
    }
}

fn overlaps(out: &[Spanned], r: &Range<usize>) -> bool {
    out.iter()
        .any(|s| s.span.start < r.end && r.start < s.span.end)
}

fn digit_numbers(text: &str, out: &mut Vec<Spanned>) {
    if !NUMBER_RE.is_match(text) {
        return;
    }
    for caps in NUMBER_RE.captures_iter(text) {
        let whole = caps.get(0).expect("group 0");
        let num = caps.name("num").expect("num");
        // Part of a larger token (a version `1.2.3`, an id `A380`)?
        let before = text[..num.start()].chars().next_back();
        if before.is_some_and(|c| (c.is_alphanumeric() && !is_cjk(c)) || c == '.') {
            continue;
        }
        if overlaps(out, &num.range()) {
            continue;
        }
        let Ok(mut value) = num.as_str().replace(',', "").parse::<f64>() else {
            continue;
        };
        if let Some(scale) = caps.name("scale") {
            let s = scale.as_str().to_lowercase();
            if let Some((_, f)) = SCALES.iter().find(|(k, _)| *k == s) {
                value *= f;
            }
        }
        if caps.name("neg").is_some() && before.is_none_or(char::is_whitespace) {
            value = -value;
        }
        let percent = caps.name("pct").is_some();
        let end = whole.end();
        let unit = unit_after(text, end);
        let currency = caps
            .name("cur")
            .and_then(|c| c.as_str().chars().next())
            .or_else(|| currency_before(&text[..whole.start()]))
            .or_else(|| unit.as_deref().and_then(currency_word));
        out.push(Spanned {
            fact: Fact::Number {
                value,
                percent,
                currency,
                unit,
                text: text[num.start()..end].trim().to_string(),
            },
            span: num.start()..end,
        });
    }
}

/// A currency written before a number (`Rs 299`, `US$ 5`, `₹299`).
fn currency_before(text: &str) -> Option<char> {
    let t = text.trim_end();
    if t.ends_with("Rs") || t.ends_with("Rs.") || t.ends_with('₹') || t.ends_with("INR") {
        Some('₹')
    } else if t.ends_with("US$") || t.ends_with("USD") {
        Some('$')
    } else if t.ends_with("EUR") {
        Some('€')
    } else if t.ends_with("GBP") {
        Some('£')
    } else {
        None
    }
}

/// The currency a unit word names (`dollars` → `$`).
fn currency_word(word: &str) -> Option<char> {
    match word {
        "dollar" | "dollars" | "usd" => Some('$'),
        "euro" | "euros" | "eur" => Some('€'),
        "pound" | "pounds" | "gbp" => Some('£'),
        "yen" | "yuan" | "renminbi" | "rmb" => Some('¥'),
        "won" => Some('₩'),
        "rupee" | "rupees" => Some('₹'),
        _ => None,
    }
}

/// The word right after a number (`8-speed` → `speed`, `46 animal` →
/// `animal`), lowercased.
fn unit_after(text: &str, end: usize) -> Option<String> {
    let rest = text[end..].trim_start_matches(['-', ' ', '\u{a0}']);
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    (!word.is_empty() && word.chars().count() <= 24).then_some(word)
}

fn word_numbers(text: &str, out: &mut Vec<Spanned>) {
    for m in WORD_NUMBER_RE.find_iter(text) {
        if overlaps(out, &m.range()) {
            continue;
        }
        let mut total = 0.0f64;
        let mut current = 0.0f64;
        for w in m.as_str().split([' ', '-']).map(str::to_ascii_lowercase) {
            match w.as_str() {
                "hundred" => current = current.max(1.0) * 100.0,
                "thousand" => {
                    total += current.max(1.0) * 1e3;
                    current = 0.0;
                }
                "million" => {
                    total += current.max(1.0) * 1e6;
                    current = 0.0;
                }
                "billion" => {
                    total += current.max(1.0) * 1e9;
                    current = 0.0;
                }
                w => current += WORDS.iter().find(|(k, _)| *k == w).map_or(0.0, |(_, v)| *v),
            }
        }
        let value = total + current;
        // "one" alone is too often a pronoun ("one of the"); keep it only
        // before a unit-like word.
        if m.as_str().eq_ignore_ascii_case("one") || m.as_str().eq_ignore_ascii_case("half") {
            continue;
        }
        out.push(Spanned {
            fact: Fact::Number {
                value,
                percent: text[m.end()..].trim_start().starts_with('%')
                    || text[m.end()..]
                        .trim_start()
                        .to_ascii_lowercase()
                        .starts_with("percent"),
                currency: unit_after(text, m.end()).as_deref().and_then(currency_word),
                unit: unit_after(text, m.end()),
                text: m.as_str().to_string(),
            },
            span: m.range(),
        });
    }
}

fn cjk_numbers(text: &str, out: &mut Vec<Spanned>) {
    for m in CJK_NUMBER_RE.find_iter(text) {
        let raw = m.as_str();
        let (percent, body) = match raw.strip_prefix("百分之") {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        // A lone 一 / 十 inside a word (一起, 十分) is not a quantity.
        if body.chars().count() < 2 && !percent {
            continue;
        }
        if overlaps(out, &m.range()) {
            continue;
        }
        let Some(value) = cjk_value(body) else {
            continue;
        };
        out.push(Spanned {
            fact: Fact::Number {
                value,
                percent,
                unit: None,
                currency: None,
                text: raw.to_string(),
            },
            span: m.range(),
        });
    }
}

/// The value of a Chinese numeral (`十五` 15, `二十三` 23, `一百零五` 105,
/// `三千` 3000, `两万` 20000, `一点五` 1.5).
pub fn cjk_value(text: &str) -> Option<f64> {
    let (int_part, frac) = match text.split_once('点') {
        Some((i, f)) => (i, Some(f)),
        None => (text, None),
    };
    let digit = |c: char| match c {
        '零' | '〇' => Some(0.0),
        '一' => Some(1.0),
        '二' | '两' => Some(2.0),
        '三' => Some(3.0),
        '四' => Some(4.0),
        '五' => Some(5.0),
        '六' => Some(6.0),
        '七' => Some(7.0),
        '八' => Some(8.0),
        '九' => Some(9.0),
        _ => None,
    };
    // 十 百 千 scale the digit before them within a section; 万 亿 close
    // the section and scale all of it.
    let (mut total, mut section, mut current) = (0.0f64, 0.0f64, 0.0f64);
    for c in int_part.chars() {
        match c {
            '十' | '百' | '千' => {
                let unit = match c {
                    '十' => 10.0,
                    '百' => 100.0,
                    _ => 1000.0,
                };
                section += current.max(1.0) * unit;
                current = 0.0;
            }
            '万' | '亿' => {
                let unit = if c == '万' { 1e4 } else { 1e8 };
                total += (section + current).max(1.0) * unit;
                section = 0.0;
                current = 0.0;
            }
            c => current = digit(c)?,
        }
    }
    let mut value = total + section + current;
    if let Some(frac) = frac {
        let digits: String = frac
            .chars()
            .map(|c| digit(c).map_or('0', |d| char::from(b'0' + d as u8)))
            .collect();
        value += format!("0.{digits}").parse::<f64>().ok()?;
    }
    Some(value)
}

/// Names: runs of capitalised words (initials like `J.J.` included, joined
/// by `of`, `the`, `de`, `van` …) that do not cross punctuation or a
/// sentence end, not a single capitalised word opening a sentence, a
/// hyphenated lowercase tail cut off (`Cyprus-born` → `Cyprus`); and short
/// phrases in quotes or CJK brackets.
fn names_of(text: &str) -> Vec<Spanned> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""([^"\s][^"\n]{0,78}[^"\s])"|“([^”\n]{2,80})”|「([^」\n]{2,80})」|『([^』\n]{2,80})』|《([^》\n]{2,80})》"#)
            .expect("valid")
    });
    let mut out = Vec::new();
    for caps in QUOTED.captures_iter(text) {
        let Some(inner) = (1..=5).find_map(|i| caps.get(i)) else {
            continue;
        };
        // Straight quotes pair up wrongly across a dialogue (`," she said.
        // "`): a name in quotes is a few words, not a clause.
        let words = inner.as_str().split_whitespace().count();
        let punct_edge = inner
            .as_str()
            .starts_with(|c: char| c.is_ascii_punctuation())
            || inner.as_str().ends_with([',', ';', ':']);
        if words > 8 || punct_edge {
            continue;
        }
        out.push(Spanned {
            fact: Fact::Name {
                key: name_key(inner.as_str()),
                text: inner.as_str().to_string(),
            },
            span: inner.range(),
        });
    }
    for span in capitalised_runs(text) {
        let raw = &text[span.clone()];
        if overlaps(&out, &span) {
            continue;
        }
        let words = raw.split_whitespace().count();
        let opens_sentence = text[..span.start]
            .trim_end()
            .chars()
            .next_back()
            .is_none_or(|c| matches!(c, '.' | '!' | '?' | '\n' | ':' | '"' | '“' | '—' | '–'));
        if words == 1 && (opens_sentence || is_function_word(raw)) {
            continue;
        }
        out.push(Spanned {
            fact: Fact::Name {
                key: name_key(raw),
                text: raw.to_string(),
            },
            span,
        });
    }
    out
}

/// Connectors a name may hold between capitalised words.
const NAME_CONNECTORS: &[&str] = &[
    "of", "the", "de", "da", "van", "von", "del", "la", "le", "&",
];

/// Byte spans of runs of capitalised words (see [`names_of`]).
fn capitalised_runs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let mut pending_connector = false;
    let flush = |run: &mut Option<(usize, usize)>, out: &mut Vec<Range<usize>>| {
        if let Some((s, e)) = run.take() {
            out.push(s..e);
        }
    };
    for (start, token) in tokens_with_offsets(text) {
        let core = token.trim_end_matches([',', ';', ':', '!', '?', ')', '"', '”', '’', '\'']);
        let (core, cut) = cut_lowercase_tail(core);
        let capitalised = core.chars().next().is_some_and(char::is_uppercase);
        let ends_sentence = core.ends_with('.') && !is_initial_or_title(core);
        let name_core = core.trim_end_matches('.');
        let name_core = if is_initial_or_title(core) {
            core
        } else {
            name_core
        };
        let punct_after = core.len() < token.len() || cut;
        if capitalised && !(run.is_none() && is_function_word(name_core) && !ends_sentence) {
            let end = start + name_core.len();
            run = Some(run.map_or((start, end), |(s, _)| (s, end)));
            pending_connector = false;
            if ends_sentence || punct_after {
                flush(&mut run, &mut out);
            }
        } else if run.is_some() && NAME_CONNECTORS.contains(&core) && !pending_connector {
            pending_connector = true;
        } else {
            flush(&mut run, &mut out);
            pending_connector = false;
        }
    }
    flush(&mut run, &mut out);
    out.into_iter()
        .map(|r| trim_function_words(text, r))
        .filter(|r| !r.is_empty())
        .collect()
}

/// Whitespace-separated tokens with their byte offsets.
fn tokens_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace()
        .map(move |t| (t.as_ptr() as usize - text.as_ptr() as usize, t))
}

/// `Cyprus-born` → (`Cyprus`, true); `Ocasio-Cortez` stays whole.
fn cut_lowercase_tail(token: &str) -> (&str, bool) {
    match token.find('-') {
        Some(at) if token[at + 1..].starts_with(char::is_lowercase) => (&token[..at], true),
        _ => (token, false),
    }
}

/// `J.`, `J.J.`, `U.S.`, `Mr.`, `Dr.` … (a period that does not end a
/// sentence).
fn is_initial_or_title(token: &str) -> bool {
    let letters = token.chars().filter(|c| c.is_alphabetic()).count();
    let dotted = token.ends_with('.') && token.chars().all(|c| c.is_alphabetic() || c == '.');
    dotted
        && (token.matches('.').count() == letters
            || matches!(
                token,
                "Mr."
                    | "Mrs."
                    | "Ms."
                    | "Dr."
                    | "St."
                    | "Gov."
                    | "Sen."
                    | "Rep."
                    | "Gen."
                    | "Jr."
                    | "Sr."
                    | "Prof."
            ))
}

/// A run without leading function words or connectors (`The Lumen` →
/// `Lumen`) and without a trailing connector.
fn trim_function_words(text: &str, mut r: Range<usize>) -> Range<usize> {
    loop {
        let s = &text[r.clone()];
        let Some((first, rest)) = s.split_once(char::is_whitespace) else {
            break;
        };
        if !is_function_word(first) && !NAME_CONNECTORS.contains(&first) {
            break;
        }
        r.start = r.end - rest.trim_start().len();
    }
    r
}

/// Capitalised words that are not names when they stand alone, sorted
/// (byte order) for [`is_function_word`]'s binary search.
const FUNCTION_WORDS: &[&str] = &[
    "A",
    "About",
    "Above",
    "According",
    "Across",
    "After",
    "All",
    "Along",
    "Also",
    "Amid",
    "Among",
    "An",
    "And",
    "Are",
    "Around",
    "As",
    "At",
    "Before",
    "Below",
    "Between",
    "Both",
    "But",
    "By",
    "Can",
    "Could",
    "Despite",
    "Did",
    "Do",
    "Does",
    "Dr",
    "During",
    "Each",
    "Earlier",
    "Even",
    "Every",
    "For",
    "Friday",
    "From",
    "Had",
    "Has",
    "Have",
    "He",
    "Her",
    "Here",
    "His",
    "How",
    "However",
    "I",
    "If",
    "In",
    "Into",
    "Is",
    "It",
    "Its",
    "Just",
    "Last",
    "Later",
    "Like",
    "Many",
    "Meanwhile",
    "Monday",
    "Most",
    "Mr",
    "Mrs",
    "Ms",
    "Must",
    "My",
    "Next",
    "No",
    "Not",
    "Now",
    "Of",
    "On",
    "Only",
    "Onto",
    "Or",
    "Our",
    "Over",
    "Per",
    "Saturday",
    "Shall",
    "She",
    "Should",
    "Since",
    "So",
    "Some",
    "St",
    "Still",
    "Such",
    "Sunday",
    "That",
    "The",
    "Their",
    "Then",
    "There",
    "These",
    "They",
    "This",
    "Those",
    "Through",
    "Throughout",
    "Thursday",
    "To",
    "Today",
    "Tomorrow",
    "Tuesday",
    "Under",
    "Unlike",
    "Until",
    "Upon",
    "Via",
    "Was",
    "We",
    "Wednesday",
    "Were",
    "What",
    "When",
    "Where",
    "Which",
    "While",
    "Who",
    "Why",
    "Will",
    "With",
    "Within",
    "Without",
    "Would",
    "Yesterday",
    "Yet",
    "You",
    "Your",
];

/// Capitalised words that are not names when they stand alone.
fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS
        .binary_search(&word.trim_end_matches('.'))
        .is_ok()
}

/// A name's comparison key: lowercased, dots and quotes removed, possessive
/// `'s` dropped, single-spaced.
pub fn name_key(name: &str) -> String {
    let lowered = name.to_lowercase().replace('’', "'");
    lowered
        .split(|c: char| c.is_whitespace() || matches!(c, '+' | '＋' | '/' | '·' | '・'))
        .map(|w| {
            w.strip_suffix("'s")
                .unwrap_or(w)
                .chars()
                .filter(|c| !matches!(c, '.' | '"' | '“' | '”' | '\''))
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Negation markers: whole English words, and CJK markers found as
/// substrings.
pub const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "neither",
    "nor",
    "without",
    "cannot",
    "can't",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "hasn't",
    "haven't",
    "hadn't",
    "shouldn't",
    "couldn't",
    "wouldn't",
    "denied",
    "denies",
    "deny",
    "refused",
    "refuses",
    "failed",
    "fails",
    "unable",
    "lacks",
    "lacked",
    "nobody",
    "nothing",
    "nowhere",
    "rejected",
    "rejects",
    "false",
    "myth",
];

/// CJK negation markers.
pub const CJK_NEGATIONS: &[&str] = &[
    "不",
    "没",
    "沒",
    "未",
    "否认",
    "否認",
    "无法",
    "無法",
    "并非",
    "並非",
    "非",
    "ない",
    "ません",
    "なかった",
    "ず",
    "否定",
    "않",
    "없",
    "못",
    "아니",
    "안 ",
    "부정",
];

/// Whether one lowercased English word negates: a word of [`NEGATIONS`]
/// or any word ending in `n't`.
pub fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word) || word.ends_with("n't")
}

/// English phrases that negate though none of their words does alone.
const NEGATION_PHRASES: &[&str] = &["far from"];

/// How many negations `text` holds (English words and phrases, CJK
/// markers). A claim and a sentence agree in polarity when these are both
/// even or both odd.
pub fn polarity_of(text: &str) -> usize {
    let lower = text.to_lowercase();
    let words = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.replace('’', "'"))
        .filter(|w| is_negation(w))
        .count();
    let phrases = NEGATION_PHRASES
        .iter()
        .filter(|p| lower.contains(*p))
        .count();
    // `BPA-free`, `tax-free`: without the thing named.
    let free = lower.matches("-free").count();
    let cjk = CJK_NEGATIONS
        .iter()
        .map(|m| lower.matches(m).count())
        .sum::<usize>();
    words + phrases + free + cjk
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(text: &str) -> Vec<f64> {
        facts_of(text)
            .into_iter()
            .filter_map(|s| match s.fact {
                Fact::Number { value, .. } => Some(value),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn numbers_stay_whole_in_every_spelling() {
        assert_eq!(numbers("a fine of 30,000 euros"), vec![30_000.0]);
        assert_eq!(numbers("it sold for $101,000"), vec![101_000.0]);
        assert_eq!(numbers("a 9.5 rating"), vec![9.5]);
        assert_eq!(numbers("revenue of 9.5B"), vec![9.5e9]);
        assert_eq!(numbers("revenue of 9.5 billion"), vec![9.5e9]);
        assert_eq!(numbers("fifteen people"), vec![15.0]);
        assert_eq!(numbers("twenty-three cases"), vec![23.0]);
        assert_eq!(numbers("十五个人"), vec![15.0]);
        assert_eq!(numbers("三万人"), vec![30_000.0]);
        assert_eq!(numbers("3万人"), vec![30_000.0]);
        let pct = facts_of("up 18 % on the year");
        assert!(matches!(pct[0].fact, Fact::Number { value, percent: true, .. } if value == 18.0));
        let speed = facts_of("an 8-speed gearbox");
        assert!(
            matches!(&speed[0].fact, Fact::Number { value, unit: Some(u), .. } if *value == 8.0 && u == "speed")
        );
    }

    #[test]
    fn dates_in_english_chinese_japanese_and_korean_agree() {
        let date = |t: &str| {
            facts_of(t)
                .into_iter()
                .find(|s| matches!(s.fact, Fact::Date { .. }))
                .map(|s| s.fact)
                .unwrap_or_else(|| panic!("no date in {t}"))
        };
        let a = date("on March 3, 2019 the plant closed");
        for t in [
            "on 3 March 2019",
            "on 2019-03-03",
            "2019年3月3日に",
            "2019년 3월 3일",
        ] {
            assert!(a.stated_by(&date(t)), "{t}");
        }
        assert!(a.contradicted_by(&date("on March 4, 2019")));
        assert!(date("in 2019").stated_by(&a));
        assert!(
            !a.stated_by(&date("in 2019")),
            "a year does not state a full date"
        );
        // The year of a date is not also a number.
        assert!(numbers("on March 3, 2019").is_empty());
    }

    #[test]
    fn times_and_names() {
        let f = facts_of("The train leaves at 06:40, said J.J. Abrams of Bad Robot.");
        assert!(
            f.iter()
                .any(|s| matches!(s.fact, Fact::Time { minutes: 400, .. }))
        );
        let names: Vec<String> = f
            .iter()
            .filter_map(|s| match &s.fact {
                Fact::Name { key, .. } => Some(key.clone()),
                _ => None,
            })
            .collect();
        assert!(
            names.contains(&"jj abrams of bad robot".to_string())
                || names.contains(&"jj abrams".to_string()),
            "{names:?}"
        );
        let abrams = Fact::Name {
            key: "abrams".into(),
            text: "Abrams".into(),
        };
        let full = Fact::Name {
            key: "jj abrams".into(),
            text: "J.J. Abrams".into(),
        };
        assert!(abrams.stated_by(&full));
        assert!(!full.stated_by(&Fact::Name {
            key: "justin lin".into(),
            text: "Justin Lin".into()
        }));
    }

    #[test]
    fn polarity_counts_negations_in_four_languages() {
        assert_eq!(polarity_of("He won the cup twice."), 0);
        assert_eq!(polarity_of("He did not win the cup."), 1);
        assert_eq!(
            polarity_of("He never won it, and he is no longer coaching."),
            2
        );
        assert_eq!(polarity_of("他没有赢得冠军"), 1);
        assert_eq!(polarity_of("彼は優勝しなかった"), 1);
        assert_eq!(polarity_of("그는 우승하지 않았다"), 1);
    }

    #[test]
    fn cjk_values() {
        for (t, v) in [
            ("十五", 15.0),
            ("二十三", 23.0),
            ("一百零五", 105.0),
            ("三千", 3000.0),
            ("两万", 20000.0),
            ("一点五", 1.5),
            ("十", 10.0),
        ] {
            assert_eq!(cjk_value(t), Some(v), "{t}");
        }
    }

    /// The function-word table holds exactly the words of the list it
    /// replaced (kept here in its original order), and is sorted.
    #[test]
    fn function_words_table_keeps_the_old_list() {
        const OLD: &[&str] = &[
            "I",
            "A",
            "An",
            "The",
            "This",
            "That",
            "These",
            "Those",
            "It",
            "Its",
            "He",
            "She",
            "They",
            "We",
            "You",
            "His",
            "Her",
            "Their",
            "Our",
            "My",
            "Your",
            "In",
            "On",
            "At",
            "For",
            "But",
            "And",
            "Or",
            "If",
            "When",
            "While",
            "As",
            "After",
            "Before",
            "With",
            "Without",
            "By",
            "From",
            "To",
            "Of",
            "Into",
            "Onto",
            "Upon",
            "Amid",
            "Among",
            "According",
            "Across",
            "Along",
            "Around",
            "Despite",
            "During",
            "Since",
            "Until",
            "Under",
            "Over",
            "Through",
            "Throughout",
            "Meanwhile",
            "However",
            "Also",
            "Yet",
            "Still",
            "Then",
            "Now",
            "Today",
            "Yesterday",
            "Tomorrow",
            "Last",
            "Next",
            "Earlier",
            "Later",
            "Here",
            "There",
            "Why",
            "How",
            "What",
            "Who",
            "Where",
            "Which",
            "Some",
            "Many",
            "Most",
            "All",
            "Both",
            "Each",
            "Every",
            "No",
            "Not",
            "Only",
            "Even",
            "Just",
            "So",
            "Such",
            "Like",
            "Unlike",
            "About",
            "Above",
            "Below",
            "Between",
            "Within",
            "Per",
            "Via",
            "Mr",
            "Mrs",
            "Ms",
            "Dr",
            "St",
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
            "Is",
            "Are",
            "Was",
            "Were",
            "Do",
            "Does",
            "Did",
            "Has",
            "Have",
            "Had",
            "Can",
            "Could",
            "Will",
            "Would",
            "Should",
            "Shall",
            "Must",
        ];
        assert!(
            FUNCTION_WORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        assert_eq!(FUNCTION_WORDS.len(), OLD.len());
        for word in OLD {
            assert!(is_function_word(word), "{word}");
            assert!(is_function_word(&format!("{word}.")), "{word}.");
        }
        for word in ["Paris", "the", "THE", "Mon", "", "Zeus", "Apple"] {
            assert!(!is_function_word(word), "{word}");
        }
    }
}
