//! Publication dates found in pages, normalised to ISO 8601.
//!
//! Pages write dates in many ways: RFC 3339 timestamps (with or without a
//! zone, with a space instead of `T`, with fractions), plain `2019-11-19`,
//! slashes or dots, compact `20191119`, RFC 2822 (`Tue, 19 Nov 2019 15:04:05
//! GMT`) and English prose (`November 19, 2019`, `19 Nov 2019`). A timestamp
//! with a zone becomes RFC 3339 with that offset, one without a zone stays a
//! local date-time (`2019-11-19T15:04:05`), and a date alone becomes
//! `2019-11-19`. Anything that is not a real calendar date is rejected.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat};

/// Earliest and latest years accepted as publication dates.
const YEARS: std::ops::RangeInclusive<i32> = 1990..=2100;

/// Normalises a date or timestamp string to ISO 8601, or `None` when it is
/// not a recognisable calendar date.
pub fn normalize_date(input: &str) -> Option<String> {
    let s = input.trim();
    if s.is_empty() || s.len() > 80 {
        return None;
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return check_year(dt.date_naive())
            .then(|| dt.to_rfc3339_opts(SecondsFormat::AutoSi, true));
    }
    if let Some(iso) = iso_like(s) {
        return Some(iso);
    }
    if let Ok(dt) = DateTime::parse_from_rfc2822(s) {
        return check_year(dt.date_naive())
            .then(|| dt.to_rfc3339_opts(SecondsFormat::AutoSi, true));
    }
    prose_date(s).map(|d| d.format("%Y-%m-%d").to_string())
}

fn check_year(d: NaiveDate) -> bool {
    YEARS.contains(&chrono::Datelike::year(&d))
}

/// ISO-like forms: `2019-11-19`, `2019/11/19`, `2019.11.19`, `20191119`,
/// `2019-11-19 15:04[:05][.fff][Z|±hh[:]mm]`.
fn iso_like(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        (!part.is_empty() && part.bytes().all(|c| c.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    let (y, m, d, rest) = if b.len() >= 10 && matches!(b[4], b'-' | b'/' | b'.') && b[7] == b[4] {
        (digits(0..4)?, digits(5..7)?, digits(8..10)?, &s[10..])
    } else if b.len() >= 8
        && b[..8].iter().all(u8::is_ascii_digit)
        && (b.len() == 8 || !b[8].is_ascii_digit())
    {
        (digits(0..4)?, digits(4..6)?, digits(6..8)?, &s[8..])
    } else {
        return None;
    };
    let date = NaiveDate::from_ymd_opt(y as i32, m, d)?;
    if !check_year(date) {
        return None;
    }
    let rest = rest.trim_start_matches(['T', 't', ' ']);
    if rest.is_empty() || !rest.as_bytes()[0].is_ascii_digit() {
        return Some(date.format("%Y-%m-%d").to_string());
    }
    // A time follows: try with a zone, then without.
    let candidate = format!("{}T{}", date.format("%Y-%m-%d"), rest.replace(' ', ""));
    let with_colon_zone = fix_zone(&candidate);
    if let Ok(dt) = DateTime::parse_from_rfc3339(&with_colon_zone) {
        return Some(dt.to_rfc3339_opts(SecondsFormat::AutoSi, true));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(&candidate, fmt) {
            return Some(dt.format("%Y-%m-%dT%H:%M:%S").to_string());
        }
    }
    Some(date.format("%Y-%m-%d").to_string())
}

/// Adds seconds and a colon to zones RFC 3339 needs them in
/// (`…T15:04+0100` → `…T15:04:00+01:00`, `UTC` → `Z`).
fn fix_zone(s: &str) -> String {
    let mut s = s.trim_end().to_string();
    for suffix in ["UTC", "GMT", "utc", "gmt"] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            s = format!("{}Z", stripped.trim_end());
        }
    }
    let bytes = s.as_bytes();
    let n = bytes.len();
    // ±hhmm without a colon
    if n >= 5
        && matches!(bytes[n - 5], b'+' | b'-')
        && bytes[n - 4..].iter().all(u8::is_ascii_digit)
    {
        s.insert(n - 2, ':');
    }
    // add seconds when the time is hh:mm
    if let Some(t) = s.find('T') {
        let time = &s[t + 1..];
        let zone_at = time.find(['Z', '+', '-']).unwrap_or(time.len());
        if time[..zone_at].len() == 5 {
            s.insert_str(t + 1 + 5, ":00");
        }
    }
    s
}

/// English prose dates: `November 19, 2019`, `Nov. 19 2019`, `19 November
/// 2019`, `Tuesday, 19 Nov 2019`, possibly followed by a time.
fn prose_date(s: &str) -> Option<NaiveDate> {
    let lower = s.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .collect();
    let (month_at, month) = words
        .iter()
        .enumerate()
        .find_map(|(i, w)| ferret_core::plan::facts::month_of(w).map(|m| (i, u32::from(m))))?;
    let number = |w: &str| -> Option<u32> {
        let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
        let suffix = &w[digits.len()..];
        (matches!(suffix, "" | "st" | "nd" | "rd" | "th") && !digits.is_empty())
            .then(|| digits.parse().ok())
            .flatten()
    };
    let (day, year) = match (words.get(month_at + 1), words.get(month_at + 2)) {
        // Month Day Year
        (Some(d), Some(y)) if number(d).is_some_and(|d| d <= 31) && y.len() == 4 => {
            (number(d)?, y.parse().ok()?)
        }
        _ => {
            // Day Month Year
            let d = number(words.get(month_at.checked_sub(1)?)?)?;
            let y: i32 = words.get(month_at + 1)?.parse().ok()?;
            (d, y)
        }
    };
    let date = NaiveDate::from_ymd_opt(year, month, day)?;
    check_year(date).then_some(date)
}

#[cfg(test)]
mod tests {
    use super::normalize_date;

    #[test]
    fn normalises_common_forms() {
        let cases = [
            ("2019-11-19T15:04:05Z", "2019-11-19T15:04:05Z"),
            ("2019-11-19T10:04:05-05:00", "2019-11-19T10:04:05-05:00"),
            (
                "2019-11-19T10:04:05.123+0100",
                "2019-11-19T10:04:05.123+01:00",
            ),
            ("2019-11-19 10:04", "2019-11-19T10:04:00"),
            ("2019-11-19", "2019-11-19"),
            ("2019/11/19", "2019-11-19"),
            ("20191119", "2019-11-19"),
            ("Tue, 19 Nov 2019 15:04:05 GMT", "2019-11-19T15:04:05Z"),
            ("November 19, 2019", "2019-11-19"),
            ("Nov. 19, 2019 at 3:04 p.m. ET", "2019-11-19"),
            ("19 November 2019", "2019-11-19"),
            ("Tuesday 19th November 2019", "2019-11-19"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_date(input).as_deref(), Some(want), "{input}");
        }
    }

    #[test]
    fn rejects_non_dates() {
        for input in [
            "",
            "yesterday",
            "2019-13-40",
            "1234",
            "May the force",
            "0000-00-00",
        ] {
            assert_eq!(normalize_date(input), None, "{input}");
        }
    }
}
