//! An injectable [`Clock`] and the calendar arithmetic adapters need:
//! freshness windows as ISO dates (Exa's `startPublishedDate`, GitHub's
//! `updated:>=`), the current time for LLM prompts, and result-page dates
//! (`May 1, 2023`, `Jul 16, 2025`, `2025-07-16T00:00:00.0000000`) turned
//! into ISO 8601. All dates are UTC, proleptic Gregorian.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of the current time. Adapters take one so tests can pin it.
pub trait Clock: Send + Sync + Debug {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// A shared clock, as adapters hold it.
pub type SharedClock = Arc<dyn Clock>;

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock stopped at one instant.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub SystemTime);

impl FixedClock {
    /// A clock stopped at midnight UTC of `year-month-day`.
    pub fn at_date(year: i64, month: u32, day: u32) -> Self {
        let days = days_from_civil(year, month, day);
        let secs = u64::try_from(days.max(0)).unwrap_or(0) * 86_400;
        FixedClock(UNIX_EPOCH + Duration::from_secs(secs))
    }
}

impl Clock for FixedClock {
    fn now(&self) -> SystemTime {
        self.0
    }
}

/// The system clock, shared.
pub fn system() -> SharedClock {
    Arc::new(SystemClock)
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn epoch_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// Days since 1970-01-01 of an instant (UTC).
pub fn epoch_days(t: SystemTime) -> i64 {
    epoch_seconds(t).div_euclid(86_400)
}

/// `YYYY-MM-DD` of an instant (UTC).
pub fn iso_date(t: SystemTime) -> String {
    let (y, m, d) = civil_from_days(epoch_days(t));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SSZ` of an instant (UTC).
pub fn iso_datetime(t: SystemTime) -> String {
    let secs = epoch_seconds(t);
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        iso_date(t),
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// The instant `days` days before `t`.
pub fn days_before(t: SystemTime, days: u32) -> SystemTime {
    t.checked_sub(Duration::from_secs(u64::from(days) * 86_400))
        .unwrap_or(UNIX_EPOCH)
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

fn valid(year: i64, month: u32, day: u32) -> bool {
    (1..=9999).contains(&year)
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month)
}

/// An English `Month D, YYYY` date (`May 1, 2023`, `Jul 16, 2025`,
/// `September 8, 2023`) as `YYYY-MM-DD`; `None` for anything else
/// (relative ages such as `2 days ago` included).
pub fn parse_month_day_year(text: &str) -> Option<String> {
    let cleaned = text.trim().replace(',', " ");
    let mut parts = cleaned.split_whitespace();
    let month_word = parts.next()?.to_ascii_lowercase();
    let day: u32 = parts.next()?.parse().ok()?;
    let year: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || month_word.len() < 3 {
        return None;
    }
    let idx = MONTHS.iter().position(|m| month_word.starts_with(m))?;
    let month = idx as u32 + 1;
    valid(year, month, day).then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// An ISO 8601 date or date-time normalised: `YYYY-MM-DD`, or
/// `YYYY-MM-DDTHH:MM:SS` (fractions dropped, a trailing `Z` or offset kept).
/// `None` when the text does not start with a valid date.
pub fn normalize_iso(text: &str) -> Option<String> {
    let t = text.trim();
    let date = t.get(..10)?;
    let b = date.as_bytes();
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year: i64 = date[..4].parse().ok()?;
    let month: u32 = date[5..7].parse().ok()?;
    let day: u32 = date[8..10].parse().ok()?;
    if !valid(year, month, day) {
        return None;
    }
    let rest = &t[10..];
    if rest.is_empty() {
        return Some(date.to_string());
    }
    let time = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let hms = time.get(..8)?;
    let hb = hms.as_bytes();
    if hb[2] != b':'
        || hb[5] != b':'
        || !hms
            .chars()
            .filter(|c| *c != ':')
            .all(|c| c.is_ascii_digit())
    {
        return Some(date.to_string());
    }
    let mut tail = &time[8..];
    if let Some(frac) = tail.strip_prefix('.') {
        tail = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let zone = if tail == "Z" || tail.starts_with('+') || tail.starts_with('-') {
        tail
    } else {
        ""
    };
    Some(format!("{date}T{hms}{zone}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        let t = FixedClock::at_date(2026, 7, 25).now() + Duration::from_secs(3_723);
        assert_eq!(iso_date(t), "2026-07-25");
        assert_eq!(iso_datetime(t), "2026-07-25T01:02:03Z");
        assert_eq!(iso_date(days_before(t, 7)), "2026-07-18");
        assert_eq!(iso_date(days_before(t, 365)), "2025-07-25");
    }

    #[test]
    fn month_day_year_dates() {
        assert_eq!(
            parse_month_day_year("May 1, 2023").as_deref(),
            Some("2023-05-01")
        );
        assert_eq!(
            parse_month_day_year("Jul 16, 2025").as_deref(),
            Some("2025-07-16")
        );
        assert_eq!(
            parse_month_day_year("September 28, 2022").as_deref(),
            Some("2022-09-28")
        );
        assert_eq!(parse_month_day_year("2 days ago"), None);
        assert_eq!(parse_month_day_year("Feb 30, 2023"), None);
    }

    #[test]
    fn iso_normalisation() {
        assert_eq!(
            normalize_iso("2025-07-16T00:00:00.0000000").as_deref(),
            Some("2025-07-16T00:00:00")
        );
        assert_eq!(
            normalize_iso("2025-10-01T15:56:11Z").as_deref(),
            Some("2025-10-01T15:56:11Z")
        );
        assert_eq!(normalize_iso("2023-05-01").as_deref(), Some("2023-05-01"));
        assert_eq!(normalize_iso("yesterday"), None);
        assert_eq!(normalize_iso("2023-13-01"), None);
    }

    proptest! {
        #[test]
        fn civil_round_trips(days in -1_000_000i64..1_000_000) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
        }

        #[test]
        fn parsers_never_panic(s in "\\PC{0,40}") {
            let _ = normalize_iso(&s);
            let _ = parse_month_day_year(&s);
        }
    }
}
