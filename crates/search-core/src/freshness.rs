//! Freshness: a 0–1 recency score from a result's publication date, or from
//! a year mentioned in its title or snippet when no date is known (seed 001,
//! Phase 4).
//!
//! | age (whole days) | score |
//! |---|---|
//! | ≤ 1 | 1.0 |
//! | ≤ 7 | 0.9 |
//! | ≤ 30 | 0.7 |
//! | ≤ 90 | 0.5 |
//! | ≤ 365 | 0.3 |
//! | older | 0.1 |
//!
//! Without a usable date, the latest year `20xx` (not after this year) found
//! in the title or snippet scores 0.9 (this year), 0.6 (last year), 0.4 (two
//! years ago) or 0.2 (older); with no year either the score is 0.5.
//!
//! Dates are parsed by [`parse_date`], which accepts what engines give: ISO
//! 8601 dates and date-times (with or without a zone; a missing zone is
//! UTC, as in Brave's `page_age`), RFC 2822 (`Tue, 10 Oct 2017 16:00:00
//! GMT`), relative ages (`2 days ago`, `3 hours ago`, `a week ago`,
//! `yesterday`, `3天前`), English month names (`Mar 3, 2024`, `September 8,
//! 2023`, `3 Mar 2024`), CJK dates (`2024年3月5日`), slashed and dotted
//! numeric dates, and Unix timestamps. Anything else is "no date" — never a
//! panic. `now` is always passed in, so results are deterministic.
//!
//! A date more than one day in the future is treated as no date (a wrong
//! date says nothing about recency); a date up to a day ahead (time zones)
//! counts as age 0.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

/// Score by age: `(max whole days, score)`, first match wins.
pub const AGE_SCORES: &[(i64, f64)] = &[(1, 1.0), (7, 0.9), (30, 0.7), (90, 0.5), (365, 0.3)];

/// Score of a date older than the last [`AGE_SCORES`] bucket.
pub const OLDER_SCORE: f64 = 0.1;

/// Score by a year seen in the text: `(years before this year, score)`.
pub const YEAR_SCORES: &[(i32, f64)] = &[(0, 0.9), (1, 0.6), (2, 0.4)];

/// Score of a year in the text older than the last [`YEAR_SCORES`] entry.
pub const OLDER_YEAR_SCORE: f64 = 0.2;

/// Score when nothing tells the age.
pub const UNKNOWN_SCORE: f64 = 0.5;

/// How far in the future a date may lie and still count (time zones).
const FUTURE_TOLERANCE_DAYS: i64 = 1;

/// What a freshness score was based on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "basis", rename_all = "snake_case")]
pub enum FreshnessBasis {
    /// A publication date this many whole days old.
    Date {
        /// Age in whole days (0 for today or a date up to a day ahead).
        age_days: i64,
    },
    /// A year found in the title or snippet.
    YearInText {
        /// The year.
        year: i32,
    },
    /// Nothing told the age.
    Unknown,
}

/// A freshness score and its basis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FreshnessScore {
    /// 0–1.
    pub score: f64,
    /// What it was based on.
    pub basis: FreshnessBasis,
}

/// The score of an age in whole days (negative ages count as 0).
pub fn score_age_days(age_days: i64) -> f64 {
    let age = age_days.max(0);
    AGE_SCORES
        .iter()
        .find(|(max, _)| age <= *max)
        .map_or(OLDER_SCORE, |(_, s)| *s)
}

/// The score of a year mentioned in text, `now_year` being this year.
pub fn score_year(year: i32, now_year: i32) -> f64 {
    let diff = now_year - year;
    YEAR_SCORES
        .iter()
        .find(|(d, _)| diff == *d)
        .map_or(OLDER_YEAR_SCORE, |(_, s)| *s)
}

/// The freshness of a result: by its date when `published_at` parses (see
/// [`parse_date`]) and is not in the future, else by the latest year in
/// `title`/`snippet`, else [`UNKNOWN_SCORE`].
pub fn freshness(
    published_at: Option<&str>,
    title: &str,
    snippet: &str,
    now: DateTime<Utc>,
) -> FreshnessScore {
    if let Some(date) = published_at.and_then(|p| parse_date(p, now))
        && let Some(age_days) = age_in_days(date, now)
    {
        return FreshnessScore {
            score: score_age_days(age_days),
            basis: FreshnessBasis::Date { age_days },
        };
    }
    let year = latest_year(title, now.year()).max(latest_year(snippet, now.year()));
    match year {
        Some(year) => FreshnessScore {
            score: score_year(year, now.year()),
            basis: FreshnessBasis::YearInText { year },
        },
        None => FreshnessScore {
            score: UNKNOWN_SCORE,
            basis: FreshnessBasis::Unknown,
        },
    }
}

/// Whole days from `date` to `now`; `None` when `date` is more than a day
/// in the future.
pub fn age_in_days(date: DateTime<Utc>, now: DateTime<Utc>) -> Option<i64> {
    let age = now - date;
    if age < -Duration::days(FUTURE_TOLERANCE_DAYS) {
        None
    } else {
        Some(age.num_days().max(0))
    }
}

/// The latest year `2000`–`2099` written as a standalone four-digit number
/// in `text` that is not after `now_year`.
pub fn latest_year(text: &str, now_year: i32) -> Option<i32> {
    // Every year starts with "20": look only where a `2` occurs (a
    // vectorised byte search, cheaper to start than a substring search on
    // texts this short; most snippets hold few).
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut best: Option<i32> = None;
    for start in memchr::memchr_iter(b'2', bytes) {
        // A run of exactly four digits, `20` first: none before, two after,
        // none then.
        if bytes.get(start + 1) != Some(&b'0')
            || (start > 0 && digit(start - 1))
            || !digit(start + 2)
            || !digit(start + 3)
        {
            continue;
        }
        if digit(start + 4) {
            continue;
        }
        let year =
            2000 + i32::from(bytes[start + 2] - b'0') * 10 + i32::from(bytes[start + 3] - b'0');
        if year <= now_year && best.is_none_or(|b| year > b) {
            best = Some(year);
        }
    }
    best
}

/// Parse a date as engines write it (see the module docs) into UTC.
/// Relative ages are taken back from `now`. `None` for anything unparseable.
pub fn parse_date(raw: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let s = raw.trim();
    if s.is_empty() || s.len() > 100 {
        return None;
    }
    parse_relative(s, now)
        .or_else(|| parse_machine(s))
        .or_else(|| parse_cjk(s, now))
        .or_else(|| parse_numeric(s))
        .or_else(|| parse_month_name(s))
        .or_else(|| parse_timestamp(s))
}

fn midnight(date: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&date.and_time(NaiveTime::MIN))
}

/// RFC 3339 / ISO 8601 with a zone, naive ISO date-times (UTC), ISO dates
/// and RFC 2822.
fn parse_machine(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.with_timezone(&Utc));
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d.with_timezone(&Utc));
    }
    const ZONED: &[&str] = &[
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%d %H:%M:%S%.f %z",
    ];
    for f in ZONED {
        if let Ok(d) = DateTime::parse_from_str(s, f) {
            return Some(d.with_timezone(&Utc));
        }
    }
    // A trailing "Z" or " UTC"/" GMT" on an otherwise naive date-time.
    let naive = s
        .strip_suffix('Z')
        .or_else(|| s.strip_suffix(" UTC"))
        .or_else(|| s.strip_suffix(" GMT"))
        .unwrap_or(s);
    const NAIVE: &[&str] = &[
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    for f in NAIVE {
        if let Ok(d) = NaiveDateTime::parse_from_str(naive, f) {
            return Some(Utc.from_utc_datetime(&d));
        }
    }
    None
}

/// `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYY.MM.DD`, `YYYY-MM`, and day-first or
/// month-first `DD/MM/YYYY` / `MM/DD/YYYY` (month-first unless the first
/// number cannot be a month), `DD.MM.YYYY`.
fn parse_numeric(s: &str) -> Option<DateTime<Utc>> {
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
    Some(midnight(date))
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month_number(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    let idx = MONTHS.iter().position(|m| w.starts_with(m))?;
    // The word must be a prefix of the full name (`sept`, `march`), not
    // something else that starts the same way (`marshal`).
    const FULL: &[&str] = &[
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
    FULL[idx].starts_with(&w).then_some(idx as u32 + 1)
}

const WEEKDAYS: &[&str] = &["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// `Mar 3, 2024`, `March 3 2024`, `3 Mar 2024`, `3 March, 2024`, with an
/// optional leading weekday (`Tue, Mar 5, 2024`) and an optional
/// trailing time that is ignored.
fn parse_month_name(s: &str) -> Option<DateTime<Utc>> {
    let cleaned: String = s.chars().map(|c| if c == ',' { ' ' } else { c }).collect();
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    if words.first().is_some_and(|w| {
        let w = w.trim_end_matches('.').to_ascii_lowercase();
        w.len() >= 3 && WEEKDAYS.iter().any(|d| w.starts_with(d))
    }) {
        words.remove(0);
    }
    if words.len() < 3 {
        return None;
    }
    let num = |w: &str| -> Option<u32> {
        let w = w.trim_end_matches(['.', 's', 't', 'n', 'd', 'r', 'h']);
        (!w.is_empty() && w.len() <= 4 && w.bytes().all(|b| b.is_ascii_digit()))
            .then(|| w.parse().ok())
            .flatten()
    };
    let (month, day, year) = if let Some(m) = month_number(words[0]) {
        (m, num(words[1])?, num(words[2])?)
    } else {
        (month_number(words[1])?, num(words[0])?, num(words[2])?)
    };
    if !(1000..=9999).contains(&year) {
        return None;
    }
    // Anything after the year must look like a time of day.
    if words[3..]
        .iter()
        .any(|w| !w.bytes().all(|b| b.is_ascii_digit() || b == b':') && !is_meridiem_or_zone(w))
    {
        return None;
    }
    NaiveDate::from_ymd_opt(year as i32, month, day).map(midnight)
}

fn is_meridiem_or_zone(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "am" | "pm" | "utc" | "gmt" | "z"
    )
}

/// `2024年3月5日` (also with `년 월 일`), `2024年3月`, `3月5日` (this year, or
/// last year if that would be in the future), optionally followed by a time.
fn parse_cjk(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if !s.contains(['年', '月', '년', '월']) {
        return None;
    }
    let mut nums: Vec<(u32, char)> = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                let n: u32 = cur.parse().ok()?;
                nums.push((n, c));
                cur.clear();
            }
            if nums.len() == 3 {
                break;
            }
        }
    }
    if !cur.is_empty() {
        nums.push((cur.parse().ok()?, '\0'));
    }
    let is_year = |c: char| matches!(c, '年' | '년');
    let is_month = |c: char| matches!(c, '月' | '월');
    let date = match nums.as_slice() {
        [(y, cy), (m, cm), (d, _), ..] if is_year(*cy) && is_month(*cm) => {
            NaiveDate::from_ymd_opt(*y as i32, *m, *d)
        }
        [(y, cy), (m, cm), ..] if is_year(*cy) && is_month(*cm) => {
            NaiveDate::from_ymd_opt(*y as i32, *m, 1)
        }
        [(m, cm), (d, _), ..] if is_month(*cm) => {
            let this = NaiveDate::from_ymd_opt(now.year(), *m, *d)?;
            if midnight(this) > now + Duration::days(FUTURE_TOLERANCE_DAYS) {
                NaiveDate::from_ymd_opt(now.year() - 1, *m, *d)
            } else {
                Some(this)
            }
        }
        _ => None,
    }?;
    Some(midnight(date))
}

/// Relative ages in English (`2 days ago`, `an hour ago`, `yesterday`,
/// `just now`) and Chinese (`3天前`, `5小时前`, `昨天`, `刚刚`).
fn parse_relative(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lower = s.to_lowercase();
    match lower.as_str() {
        "just now" | "now" | "today" | "刚刚" | "今天" => return Some(now),
        "yesterday" | "昨天" => return Some(now - Duration::days(1)),
        "前天" => return Some(now - Duration::days(2)),
        _ => {}
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
        let unit = unit.trim_end_matches('s');
        let seconds = match unit {
            "second" | "sec" => 1,
            "minute" | "min" => 60,
            "hour" | "hr" | "h" => 3600,
            "day" | "d" => 86_400,
            "week" | "wk" | "w" => 7 * 86_400,
            "month" | "mo" => 30 * 86_400,
            "year" | "yr" | "y" => 365 * 86_400,
            _ => return None,
        };
        return back(now, n, seconds);
    }
    if let Some(rest) = lower.strip_suffix('前') {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let unit: String = rest.chars().skip(digits.len()).collect();
        let n: i64 = digits.parse().ok()?;
        let seconds = match unit.trim() {
            "秒" | "秒钟" => 1,
            "分钟" | "分" => 60,
            "小时" | "个小时" => 3600,
            "天" | "日" => 86_400,
            "周" | "星期" | "个星期" => 7 * 86_400,
            "个月" | "月" => 30 * 86_400,
            "年" => 365 * 86_400,
            _ => return None,
        };
        return back(now, n, seconds);
    }
    None
}

fn back(now: DateTime<Utc>, n: i64, unit_seconds: i64) -> Option<DateTime<Utc>> {
    let secs = n.checked_mul(unit_seconds)?;
    let d = Duration::try_seconds(secs)?;
    now.checked_sub_signed(d)
}

/// Unix time in seconds (10 digits) or milliseconds (13 digits).
fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = s.parse().ok()?;
    match s.len() {
        9 | 10 => DateTime::from_timestamp(n, 0),
        13 => DateTime::from_timestamp_millis(n),
        _ => None,
    }
}
