//! The one date parser: every date Ferret reads — an engine's `page_age`,
//! a page's `<meta>` or JSON-LD date, a date in a result's snippet — goes
//! through [`parse`].
//!
//! Accepted (whitespace around is ignored; at most 100 bytes):
//!
//! | form | e.g. |
//! |---|---|
//! | RFC 3339 / ISO 8601 date-times, with or without a zone, `T` or a space, fractions, `±hh:mm` or `±hhmm`, a trailing `Z`, ` UTC`, ` GMT` | `2024-03-05T10:30:00Z`, `2019-11-19 10:04`, `2019-11-19T10:04:05.123+0100` |
//! | RFC 2822 | `Tue, 10 Oct 2017 16:00:00 GMT` |
//! | year-first dates with `-`, `/` or `.`, or compact, optionally followed by a time (anything else after the date is ignored) | `2024-03-05`, `2024/03/05 10:30`, `2024.03.05`, `20240305` |
//! | other numeric dates: `YYYY-MM` (the 1st), `D.M.YYYY` (day first), `M/D/YYYY` (month first unless the first number cannot be a month), one-digit parts | `2024-03`, `05.03.2024`, `03/05/2024`, `25/03/2024`, `2024-3-5` |
//! | English month names, full, abbreviated or any prefix of three letters or more, day before or after, ordinals, a leading weekday or label, a trailing time and zone | `Mar 3, 2024`, `Sept. 8, 2023`, `3rd March 2024`, `Tuesday, 19 Nov 2019`, `Nov. 19, 2019 at 3:04 p.m. ET`, `19-Nov-2019` |
//! | CJK dates, also with spaces and a trailing time | `2024年3月5日`, `2024 年 3 月 5 日 10:30`, `2024년 3월 5일`, `2024年3月` (the 1st) |
//! | Unix time, seconds (9–10 digits) or milliseconds (13) | `1709596800`, `1709596800000` |
//! | with a `now` only: relative ages in English and Chinese, and a month-day without a year (this year, or last year when that would be in the future) | `3 days ago`, `an hour ago`, `yesterday`, `3天前`, `昨天`, `3月5日` |
//!
//! Anything else is `None` — never a panic (a property test checks). The
//! result, [`WrittenDate`], keeps what was written: a bare date, a local
//! date-time, or a zoned one; callers take the UTC instant
//! ([`WrittenDate::to_utc`], freshness) or the ISO 8601 form
//! ([`WrittenDate::to_iso`], page metadata). [`find_date`] finds the first
//! date inside running text (a search snippet).

use std::sync::LazyLock;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, SecondsFormat,
    TimeZone, Utc,
};
use regex::Regex;

/// Longest input [`parse`] reads (bytes, after trimming).
pub const MAX_DATE_LEN: usize = 100;

/// How far in the future a month-day without a year may lie before it is
/// read as last year's (time zones).
const FUTURE_TOLERANCE_DAYS: i64 = 1;

/// The full English month names; a month word is any prefix of three
/// letters or more of one of them (`sept`, `marc`, `nov.`).
pub const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A date as it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrittenDate {
    /// A calendar date without a time.
    Date(NaiveDate),
    /// A date and time without a zone.
    Local(NaiveDateTime),
    /// A date and time with a zone (relative ages are zoned in UTC).
    Zoned(DateTime<FixedOffset>),
}

impl WrittenDate {
    /// The calendar date as written (a zoned date-time's local date).
    pub fn date(&self) -> NaiveDate {
        match self {
            WrittenDate::Date(d) => *d,
            WrittenDate::Local(dt) => dt.date(),
            WrittenDate::Zoned(dt) => dt.date_naive(),
        }
    }

    /// The instant in UTC: a bare date is midnight UTC, a local date-time
    /// is read as UTC.
    pub fn to_utc(&self) -> DateTime<Utc> {
        match self {
            WrittenDate::Date(d) => Utc.from_utc_datetime(&d.and_time(NaiveTime::MIN)),
            WrittenDate::Local(dt) => Utc.from_utc_datetime(dt),
            WrittenDate::Zoned(dt) => dt.with_timezone(&Utc),
        }
    }

    /// ISO 8601: `2019-11-19`, `2019-11-19T15:04:05` (local, whole
    /// seconds) or RFC 3339 with the written offset (`Z` for UTC).
    pub fn to_iso(&self) -> String {
        match self {
            WrittenDate::Date(d) => d.format("%Y-%m-%d").to_string(),
            WrittenDate::Local(dt) => dt.format("%Y-%m-%dT%H:%M:%S").to_string(),
            WrittenDate::Zoned(dt) => dt.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        }
    }
}

/// Parses a date string (see the [module docs](self)). Relative ages and
/// dates without a year need `now`; without it they are `None`.
pub fn parse(raw: &str, now: Option<DateTime<Utc>>) -> Option<WrittenDate> {
    let s = raw.trim();
    if s.is_empty() || s.len() > MAX_DATE_LEN {
        return None;
    }
    now.and_then(|now| parse_relative(s, now))
        .or_else(|| parse_machine(s))
        .or_else(|| parse_year_first(s))
        .or_else(|| parse_cjk(s, now))
        .or_else(|| parse_numeric(s))
        .or_else(|| parse_month_name(s))
        .or_else(|| parse_timestamp(s))
}

/// The number (1–12) of an English month word: a prefix of three letters
/// or more of a [`MONTH_NAMES`] entry, any case, a trailing dot ignored.
pub fn month_number(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTH_NAMES
        .iter()
        .position(|name| name.starts_with(&w))
        .map(|i| i as u32 + 1)
}

/// RFC 3339, RFC 2822, ISO date-times with a zone, and naive ISO
/// date-times (a trailing `Z`, ` UTC` or ` GMT` makes them UTC).
fn parse_machine(s: &str) -> Option<WrittenDate> {
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(WrittenDate::Zoned(d));
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(WrittenDate::Zoned(d));
    }
    const ZONED: &[&str] = &[
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%d %H:%M%z",
        "%Y-%m-%d %H:%M:%S%.f %z",
    ];
    if let Some(d) = ZONED
        .iter()
        .find_map(|f| DateTime::parse_from_str(s, f).ok())
    {
        return Some(WrittenDate::Zoned(d));
    }
    let utc_suffix = s
        .strip_suffix('Z')
        .or_else(|| s.strip_suffix(" UTC"))
        .or_else(|| s.strip_suffix(" GMT"));
    let local = naive_date_time(utc_suffix.unwrap_or(s))?;
    Some(match utc_suffix {
        Some(_) => WrittenDate::Zoned(Utc.from_utc_datetime(&local).fixed_offset()),
        None => WrittenDate::Local(local),
    })
}

/// `YYYY-MM-DD` with `T` or a space and a time of minutes, seconds or
/// fractions.
fn naive_date_time(s: &str) -> Option<NaiveDateTime> {
    const NAIVE: &[&str] = &[
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    NAIVE
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
}

/// A year-first date (`2019-11-19`, `2019/11/19`, `2019.11.19`,
/// `20191119`) and whatever follows it.
fn year_first_prefix(s: &str) -> Option<(NaiveDate, &str)> {
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
    Some((NaiveDate::from_ymd_opt(y as i32, m, d)?, rest))
}

/// A year-first date, then optionally a time (`15:04[:05][.fff]`) and a
/// zone (`Z`, `UTC`, `±hh[:]mm`); a time that does not read is ignored,
/// and so is anything after the date that is not a time.
fn parse_year_first(s: &str) -> Option<WrittenDate> {
    let (date, rest) = year_first_prefix(s)?;
    let rest = rest.trim_start_matches(['T', 't', ' ']);
    if rest.is_empty() || !rest.as_bytes()[0].is_ascii_digit() {
        return Some(WrittenDate::Date(date));
    }
    let candidate = format!("{}T{}", date.format("%Y-%m-%d"), rest.replace(' ', ""));
    if let Ok(dt) = DateTime::parse_from_rfc3339(&rfc3339_zone(&candidate)) {
        return Some(WrittenDate::Zoned(dt));
    }
    let local = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(&candidate, f).ok());
    Some(local.map_or(WrittenDate::Date(date), WrittenDate::Local))
}

/// Adds the seconds and the zone colon RFC 3339 needs
/// (`…T15:04+0100` → `…T15:04:00+01:00`, `UTC` → `Z`).
fn rfc3339_zone(s: &str) -> String {
    let mut s = s.trim_end().to_string();
    for suffix in ["UTC", "GMT", "utc", "gmt"] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            s = format!("{}Z", stripped.trim_end());
        }
    }
    let bytes = s.as_bytes();
    let n = bytes.len();
    // ±hhmm without a colon.
    if n >= 5
        && matches!(bytes[n - 5], b'+' | b'-')
        && bytes[n - 4..].iter().all(u8::is_ascii_digit)
    {
        s.insert(n - 2, ':');
    }
    // Seconds when the time is hh:mm.
    if let Some(t) = s.find('T') {
        let time = &s[t + 1..];
        let zone_at = time.find(['Z', '+', '-']).unwrap_or(time.len());
        if zone_at == 5 {
            s.insert_str(t + 1 + 5, ":00");
        }
    }
    s
}

/// `YYYY-MM` (the 1st), and day-first or month-first `DD/MM/YYYY` /
/// `MM/DD/YYYY` (month-first unless the first number cannot be a month),
/// `DD.MM.YYYY`, with parts of one digit or more.
fn parse_numeric(s: &str) -> Option<WrittenDate> {
    let sep = s.chars().find(|c| matches!(c, '-' | '/' | '.'))?;
    let parts: Vec<&str> = s.split(sep).collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    let date = match (parts.as_slice(), n.as_slice()) {
        ([y, ..], [yy, m, d]) if y.len() == 4 => NaiveDate::from_ymd_opt(*yy as i32, *m, *d),
        ([y, _], [yy, m]) if y.len() == 4 && sep == '-' => {
            NaiveDate::from_ymd_opt(*yy as i32, *m, 1)
        }
        ([_, _, y], [a, b, yy]) if y.len() == 4 => {
            if sep == '.' || *a > 12 {
                NaiveDate::from_ymd_opt(*yy as i32, *b, *a)
            } else {
                NaiveDate::from_ymd_opt(*yy as i32, *a, *b)
            }
        }
        _ => None,
    }?;
    Some(WrittenDate::Date(date))
}

/// Words that may follow a month-name date: a time, a meridiem, a zone.
const TIME_WORDS: &[&str] = &[
    "at", "am", "pm", "a", "p", "m", "utc", "gmt", "z", "et", "ct", "mt", "pt", "est", "edt",
    "cst", "cdt", "mst", "mdt", "pst", "pdt", "bst", "cet", "cest", "jst", "kst", "ist",
];

/// A day number with an optional ordinal suffix (`19`, `19th`).
fn day_number(w: &str) -> Option<u32> {
    let digits = w.bytes().take_while(u8::is_ascii_digit).count();
    let suffix = &w[digits..];
    (digits > 0 && digits <= 2 && matches!(suffix, "" | "st" | "nd" | "rd" | "th"))
        .then(|| w[..digits].parse().ok())
        .flatten()
}

/// A four-digit year.
fn year_number(w: &str) -> Option<i32> {
    (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
        .then(|| w.parse().ok())
        .flatten()
}

/// `Mar 3, 2024`, `March 3 2024`, `3 Mar 2024`, `3rd March, 2024`,
/// `19-Nov-2019`, after any leading words (a weekday, `Published`) and
/// before an optional time of day and zone.
fn parse_month_name(s: &str) -> Option<WrittenDate> {
    let lower = s.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let (at, month) = words
        .iter()
        .take(8)
        .enumerate()
        .find_map(|(i, w)| month_number(w).map(|m| (i, m)))?;
    let month_day_year = words
        .get(at + 1)
        .and_then(|d| day_number(d))
        .zip(words.get(at + 2).and_then(|y| year_number(y)))
        .map(|(d, y)| (d, y, at + 3));
    let day_month_year = || {
        let d = day_number(words.get(at.checked_sub(1)?)?)?;
        Some((d, year_number(words.get(at + 1)?)?, at + 2))
    };
    let (day, year, end) = month_day_year.or_else(day_month_year)?;
    // Anything after the year must read as a time of day.
    let trailing_ok = words[end..]
        .iter()
        .all(|w| w.bytes().all(|b| b.is_ascii_digit()) || TIME_WORDS.contains(w));
    if !trailing_ok {
        return None;
    }
    NaiveDate::from_ymd_opt(year, month, day).map(WrittenDate::Date)
}

/// The numbers of a CJK date, each with the unit character after it
/// (whitespace skipped; `'\0'` after the last). At most three.
fn cjk_numbers(s: &str) -> Option<Vec<(u32, char)>> {
    let mut nums: Vec<(u32, char)> = Vec::new();
    let mut chars = s.chars().peekable();
    while nums.len() < 3 {
        while chars.next_if(|c| !c.is_ascii_digit()).is_some() {}
        let mut digits = String::new();
        while let Some(c) = chars.next_if(char::is_ascii_digit) {
            digits.push(c);
        }
        if digits.is_empty() {
            break;
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let unit = chars.peek().copied().unwrap_or('\0');
        nums.push((digits.parse().ok()?, unit));
    }
    Some(nums)
}

/// `2024年3月5日` (also `년 월 일`, spaces between), `2024年3月` (the 1st),
/// and with `now`, `3月5日` (this year, or last year when that would lie in
/// the future); a time after it is ignored.
fn parse_cjk(s: &str, now: Option<DateTime<Utc>>) -> Option<WrittenDate> {
    if !s.contains(['年', '月', '년', '월']) {
        return None;
    }
    let is_year = |c: char| matches!(c, '年' | '년');
    let is_month = |c: char| matches!(c, '月' | '월');
    let date = match cjk_numbers(s)?.as_slice() {
        [(y, cy), (m, cm), (d, _), ..] if is_year(*cy) && is_month(*cm) => {
            NaiveDate::from_ymd_opt(*y as i32, *m, *d)
        }
        [(y, cy), (m, cm), ..] if is_year(*cy) && is_month(*cm) => {
            NaiveDate::from_ymd_opt(*y as i32, *m, 1)
        }
        [(m, cm), (d, _), ..] if is_month(*cm) => month_day_this_year(*m, *d, now?),
        _ => None,
    }?;
    Some(WrittenDate::Date(date))
}

/// Month and day in `now`'s year, or the year before when that date lies
/// more than a day after `now`.
fn month_day_this_year(month: u32, day: u32, now: DateTime<Utc>) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(now.year(), month, day)?;
    let midnight = Utc.from_utc_datetime(&this.and_time(NaiveTime::MIN));
    if midnight > now + Duration::days(FUTURE_TOLERANCE_DAYS) {
        NaiveDate::from_ymd_opt(now.year() - 1, month, day)
    } else {
        Some(this)
    }
}

/// English relative-age units: `(unit word, seconds)`.
const ENGLISH_UNITS: &[(&str, i64)] = &[
    ("second", 1),
    ("sec", 1),
    ("minute", 60),
    ("min", 60),
    ("hour", 3600),
    ("hr", 3600),
    ("h", 3600),
    ("day", 86_400),
    ("d", 86_400),
    ("week", 7 * 86_400),
    ("wk", 7 * 86_400),
    ("w", 7 * 86_400),
    ("month", 30 * 86_400),
    ("mo", 30 * 86_400),
    ("year", 365 * 86_400),
    ("yr", 365 * 86_400),
    ("y", 365 * 86_400),
];

/// Chinese relative-age units: `(unit, seconds)`.
const CHINESE_UNITS: &[(&str, i64)] = &[
    ("秒", 1),
    ("秒钟", 1),
    ("分钟", 60),
    ("分", 60),
    ("小时", 3600),
    ("个小时", 3600),
    ("天", 86_400),
    ("日", 86_400),
    ("周", 7 * 86_400),
    ("星期", 7 * 86_400),
    ("个星期", 7 * 86_400),
    ("个月", 30 * 86_400),
    ("月", 30 * 86_400),
    ("年", 365 * 86_400),
];

/// Fixed words for now and the days before: `(word, days back)`.
const RELATIVE_DAYS: &[(&str, i64)] = &[
    ("just now", 0),
    ("now", 0),
    ("today", 0),
    ("刚刚", 0),
    ("今天", 0),
    ("yesterday", 1),
    ("昨天", 1),
    ("前天", 2),
];

fn unit_seconds(table: &[(&str, i64)], unit: &str) -> Option<i64> {
    table.iter().find(|(u, _)| *u == unit).map(|(_, s)| *s)
}

/// Relative ages in English (`2 days ago`, `an hour ago`, `yesterday`,
/// `just now`) and Chinese (`3天前`, `5小时前`, `昨天`, `刚刚`).
fn parse_relative(s: &str, now: DateTime<Utc>) -> Option<WrittenDate> {
    let lower = s.to_lowercase();
    if let Some(&(_, days)) = RELATIVE_DAYS.iter().find(|(w, _)| *w == lower) {
        return back(now, days, 86_400);
    }
    if let Some(rest) = lower.strip_suffix("ago") {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let [n, unit] = words.as_slice() else {
            return None;
        };
        let n: i64 = match *n {
            "a" | "an" | "one" => 1,
            other => other.parse().ok()?,
        };
        return back(
            now,
            n,
            unit_seconds(ENGLISH_UNITS, unit.trim_end_matches('s'))?,
        );
    }
    let rest = lower.strip_suffix('前')?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let unit: String = rest.chars().skip(digits.len()).collect();
    let n: i64 = digits.parse().ok()?;
    back(now, n, unit_seconds(CHINESE_UNITS, unit.trim())?)
}

/// `now` minus `n` units of `unit_seconds`, zoned in UTC; `None` on
/// overflow.
fn back(now: DateTime<Utc>, n: i64, unit_seconds: i64) -> Option<WrittenDate> {
    let secs = n.checked_mul(unit_seconds)?;
    let d = Duration::try_seconds(secs)?;
    now.checked_sub_signed(d)
        .map(|t| WrittenDate::Zoned(t.fixed_offset()))
}

/// Unix time in seconds (9–10 digits) or milliseconds (13 digits).
fn parse_timestamp(s: &str) -> Option<WrittenDate> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = s.parse().ok()?;
    let t = match s.len() {
        9 | 10 => DateTime::from_timestamp(n, 0),
        13 => DateTime::from_timestamp_millis(n),
        _ => None,
    }?;
    Some(WrittenDate::Zoned(t.fixed_offset()))
}

/// The date shapes [`find_date`] looks for in running text: CJK
/// year-month-day, day-month-year and month-day-year with English month
/// names, and ISO `YYYY-MM-DD`.
static DATE_IN_TEXT: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    let month = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?";
    [
        r"\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}".to_string(),
        format!(r"(?i)\b\d{{1,2}}\s+{month}\s+\d{{4}}\b"),
        format!(r"(?i)\b{month}\s+\d{{1,2}},?\s+\d{{4}}\b"),
        r"\b\d{4}-\d{2}-\d{2}\b".to_string(),
    ]
    .map(|re| Regex::new(&re).expect("valid date regex"))
});

/// The first date written in `text` (earliest start wins; a shape that is
/// not a real calendar date, such as `Feb 30, 2024`, is skipped). Each
/// match is read by [`parse`].
pub fn find_date(text: &str) -> Option<NaiveDate> {
    DATE_IN_TEXT
        .iter()
        .flat_map(|re| re.find_iter(text))
        .filter_map(|m| parse(m.as_str(), None).map(|d| (m.start(), d.date())))
        .min_by_key(|(at, _)| *at)
        .map(|(_, d)| d)
}

#[cfg(test)]
mod tests;
