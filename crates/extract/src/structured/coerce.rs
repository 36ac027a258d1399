//! Safe coercions of page values to the schema's scalar types.
//!
//! Only conversions that cannot change a value's meaning are made:
//! `"$1,299.00"` → 1299 for a number, `"Yes"`/`"No"` → a boolean,
//! `"4.5"` → 4.5 — but never `"Free"` → 0, `"1.94.1"` → a number, or
//! `"10k"` → 10000.

use serde_json::{Number, Value};

/// Currency signs that may prefix or suffix a number.
const CURRENCY_SIGNS: &[char] = &[
    '$', '€', '£', '¥', '₩', '₹', '₽', '₺', '₫', '₪', '₱', '฿', '¢', '￥', '₴', '₦', '₲', '₡',
];

/// Words and symbols read as true / false.
const TRUE_WORDS: &[&str] = &[
    "yes",
    "y",
    "true",
    "on",
    "1",
    "✓",
    "✔",
    "✔️",
    "☑",
    "✅",
    "included",
    "supported",
    "available",
    "https://schema.org/true",
    "http://schema.org/true",
    "是",
    "예",
];
const FALSE_WORDS: &[&str] = &[
    "no",
    "n",
    "false",
    "off",
    "0",
    "✗",
    "✘",
    "✕",
    "×",
    "❌",
    "not included",
    "not supported",
    "unavailable",
    "not available",
    "https://schema.org/false",
    "http://schema.org/false",
    "否",
    "아니요",
];

/// Cell contents that mean "no value" rather than a value.
const EMPTY_MARKERS: &[&str] = &[
    "", "-", "–", "—", "n/a", "na", "none", "null", "?", "tbd", "…",
];

/// Unit suffixes allowed after a price (`$10/mo`, `€5 per user`).
const RATE_WORDS: &[&str] = &[
    "mo", "month", "monthly", "yr", "year", "annually", "yearly", "user", "seat", "member", "day",
    "week", "hour", "hr", "h", "unit", "each", "ea", "person",
];

/// True when the text stands for a missing value (`—`, `N/A`, blank).
pub(crate) fn is_empty_marker(s: &str) -> bool {
    let t = s.trim().to_lowercase();
    EMPTY_MARKERS.contains(&t.as_str())
}

/// Parses a number written for people: currency signs and ISO codes,
/// thousands separators (`,` `.` space `'`), a decimal comma, a leading
/// sign, a trailing `%` or a rate (`/mo`, `per user`). `None` when anything
/// else is left.
pub(crate) fn parse_number(s: &str) -> Option<f64> {
    let mut t = s.trim().replace(['\u{a0}', '\u{202f}', '\u{2009}'], " ");
    // A rate suffix after the number.
    if let Some(cut) = rate_suffix_start(&t) {
        t.truncate(cut);
    }
    let mut t = t.trim().to_owned();
    if let Some(stripped) = t.strip_suffix('%') {
        t = stripped.trim_end().to_owned();
    }
    let mut negative = false;
    // Sign before or after the currency.
    for _ in 0..2 {
        let trimmed = t.trim_start();
        if let Some(rest) = trimmed
            .strip_prefix('-')
            .or_else(|| trimmed.strip_prefix('−'))
        {
            negative = !negative;
            t = rest.to_owned();
        } else if let Some(rest) = trimmed.strip_prefix('+') {
            t = rest.to_owned();
        }
        t = strip_currency(&t);
    }
    let t = t.trim();
    if t.is_empty() || !t.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if !t
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | ' ' | '\''))
    {
        return None;
    }
    let digits = normalize_separators(t)?;
    let v: f64 = digits.parse().ok()?;
    v.is_finite().then_some(if negative { -v } else { v })
}

/// Where a `/mo`, `per month`, `a month` suffix starts, if the text has one.
fn rate_suffix_start(t: &str) -> Option<usize> {
    // Lowercasing ASCII keeps byte offsets; other text has no rate words.
    let lower = t.to_ascii_lowercase();
    let mut best: Option<usize> = None;
    for sep in ["/", " per ", " a ", " an "] {
        for (i, _) in lower.match_indices(sep) {
            let rest = &lower[i + sep.len()..];
            let ok = rest
                .split(['/', ' '])
                .filter(|w| !w.is_empty())
                .all(|w| RATE_WORDS.contains(&w.trim_end_matches('.')));
            if ok && !rest.trim().is_empty() && t[..i].chars().any(|c| c.is_ascii_digit()) {
                best = Some(best.map_or(i, |b: usize| b.min(i)));
                break;
            }
        }
    }
    best
}

fn strip_currency(t: &str) -> String {
    let mut s = t.trim();
    loop {
        let before = s;
        s = s.trim_start_matches(CURRENCY_SIGNS).trim_start();
        s = s.trim_end_matches(CURRENCY_SIGNS).trim_end();
        for code in [s.get(..3), s.get(s.len().saturating_sub(3)..)]
            .into_iter()
            .flatten()
        {
            if code.len() == 3 && code.chars().all(|c| c.is_ascii_uppercase()) {
                if s.starts_with(code) {
                    s = s[3..].trim_start();
                } else if s.ends_with(code) {
                    s = s[..s.len() - 3].trim_end();
                }
                break;
            }
        }
        // Two-letter prefixes like "US$", "A$", "R$".
        if let Some(i) = s.find(CURRENCY_SIGNS)
            && i <= 2
            && s[..i].chars().all(|c| c.is_ascii_uppercase())
        {
            s = &s[i..];
        }
        if s == before {
            return s.to_owned();
        }
    }
}

/// Turns `1,299.00`, `1.299,00`, `1 299`, `12,5` into `1299.00`, `1299.00`,
/// `1299`, `12.5`; `None` for inconsistent grouping (`1.94.1`, `12,34,5`).
fn normalize_separators(t: &str) -> Option<String> {
    let last_comma = t.rfind(',');
    let last_dot = t.rfind('.');
    let decimal = match (last_comma, last_dot) {
        (Some(c), Some(d)) => Some(if c > d { ',' } else { '.' }),
        (Some(_), None) => {
            let commas = t.matches(',').count();
            let after = &t[t.rfind(',')? + 1..];
            if commas == 1 && after.len() != 3 {
                Some(',')
            } else {
                None
            }
        }
        (None, Some(_)) => {
            let dots = t.matches('.').count();
            if dots == 1 { Some('.') } else { None }
        }
        (None, None) => None,
    };
    let (int_part, frac_part) = match decimal {
        Some(sep) => {
            let i = t.rfind(sep)?;
            (&t[..i], Some(&t[i + 1..]))
        }
        None => (t, None),
    };
    if let Some(f) = frac_part
        && (f.is_empty() || !f.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    // The integer part: digit groups of three after the first.
    let groups: Vec<&str> = int_part.split([',', '.', ' ', '\'']).collect();
    if groups.len() > 1 {
        let first = groups[0];
        if first.is_empty() || first.len() > 3 || groups[1..].iter().any(|g| g.len() != 3) {
            return None;
        }
    }
    let mut out: String = groups.concat();
    if out.is_empty() {
        out.push('0');
    }
    if !out.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if let Some(f) = frac_part {
        out.push('.');
        out.push_str(f);
    }
    Some(out)
}

/// A JSON number for `v`: an integer when it is whole and fits, otherwise a
/// float.
pub(crate) fn number_value(v: f64) -> Option<Value> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(Value::Number(Number::from(v as i64)))
    } else {
        Number::from_f64(v).map(Value::Number)
    }
}

/// Reads yes/no, true/false, on/off, 1/0, check marks and schema.org's
/// `True`/`False`.
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    let t = s.trim().trim_end_matches('.').to_lowercase();
    if TRUE_WORDS.contains(&t.as_str()) {
        Some(true)
    } else if FALSE_WORDS.contains(&t.as_str()) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_parse() {
        assert_eq!(parse_number("$1,299.00"), Some(1299.0));
        assert_eq!(parse_number("1.299,00 €"), Some(1299.0));
        assert_eq!(parse_number("1 299,50 EUR"), Some(1299.5));
        assert_eq!(parse_number("USD 15"), Some(15.0));
        assert_eq!(parse_number("US$ 15"), Some(15.0));
        assert_eq!(parse_number("-$5"), Some(-5.0));
        assert_eq!(parse_number("$10/mo"), Some(10.0));
        assert_eq!(parse_number("€8 per user / month"), Some(8.0));
        assert_eq!(parse_number("12,5"), Some(12.5));
        assert_eq!(parse_number("15%"), Some(15.0));
        assert_eq!(parse_number(".5"), Some(0.5));
    }

    #[test]
    fn unsafe_numbers_are_refused() {
        for s in [
            "Free",
            "1.94.1",
            "10k",
            "4.5 out of 5",
            "10-20",
            "",
            "$",
            "call us",
            "1,2,3",
            "12,34,5",
            "v2",
            "2024-01-05",
        ] {
            assert_eq!(parse_number(s), None, "{s}");
        }
    }

    #[test]
    fn booleans_parse() {
        assert_eq!(parse_bool("Yes"), Some(true));
        assert_eq!(parse_bool("no"), Some(false));
        assert_eq!(parse_bool("✓"), Some(true));
        assert_eq!(parse_bool("https://schema.org/False"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn whole_numbers_become_integers() {
        assert_eq!(number_value(1299.0), Some(Value::from(1299)));
        assert_eq!(number_value(4.5), Some(Value::from(4.5)));
    }
}
