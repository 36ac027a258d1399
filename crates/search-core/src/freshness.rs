//! Freshness: a 0–1 recency score from a result's publication date, or from
//! a year mentioned in its title or snippet when no date is known.
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
//! Dates are parsed by [`parse_date`], that is [`crate::dates::parse`]
//! with `now`: ISO 8601 and RFC 2822 date-times (a missing zone is UTC, as
//! in Brave's `page_age`), relative ages (`2 days ago`, `3天前`), English
//! month names, CJK and numeric dates, Unix timestamps. Anything else is
//! "no date" — never a panic. `now` is always passed in, so results are
//! deterministic.
//!
//! A date more than one day in the future is treated as no date (a wrong
//! date says nothing about recency); a date up to a day ahead (time zones)
//! counts as age 0.

use chrono::{DateTime, Datelike, Duration, Utc};
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

/// Parse a date as engines write it into UTC: [`crate::dates::parse`]
/// (see its docs for the formats), relative ages taken back from `now`.
/// `None` for anything unparseable.
pub fn parse_date(raw: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    crate::dates::parse(raw, Some(now)).map(|d| d.to_utc())
}
