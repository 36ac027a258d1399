//! What the adapters share to push search controls down: `site:` query
//! operators, date ranges with their open ends filled in, and the day a
//! clock reads.

use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};
use ferret_core::EngineRequest;

/// Query or form parameters, as adapters build them.
pub type Params = Vec<(&'static str, String)>;

/// The first day of an open-ended date range for services that need both
/// ends (`until` alone means "from the start of the web's dates").
pub const EARLIEST: NaiveDate = match NaiveDate::from_ymd_opt(1990, 1, 1) {
    Some(day) => day,
    None => NaiveDate::MIN,
};

/// The UTC day of `now`.
pub fn day_of(now: SystemTime) -> NaiveDate {
    DateTime::<Utc>::from(now).date_naive()
}

/// `query` with the request's domains as query operators, for services
/// whose query language has them: ` site:a` for one domain to include,
/// ` (site:a OR site:b)` for several, and ` -site:c` for each one to
/// exclude.
pub fn with_site_operators(query: &str, request: &EngineRequest) -> String {
    let mut q = query.trim().to_string();
    match request.included_domains().as_slice() {
        [] => {}
        [one] => q.push_str(&format!(" site:{one}")),
        many => {
            let sites: Vec<String> = many.iter().map(|d| format!("site:{d}")).collect();
            q.push_str(&format!(" ({})", sites.join(" OR ")));
        }
    }
    for domain in &request.exclude_domains {
        q.push_str(&format!(" -site:{}", domain.trim()));
    }
    q
}

/// The request's date range with both ends: a missing `since` is
/// [`EARLIEST`], a missing `until` is `today`. `None` without a range.
pub fn closed_range(request: &EngineRequest, today: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    if !request.has_date_range() {
        return None;
    }
    let until = request.until.unwrap_or(today);
    let since = request.since.unwrap_or(EARLIEST.min(until));
    Some((since, until))
}

/// A date as `YYYY-MM-DD`.
pub fn iso_day(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn site_operators_for_one_several_and_excluded_domains() {
        let one = EngineRequest::new(" rust ").with_site("docs.rs");
        assert_eq!(with_site_operators(&one.query, &one), "rust site:docs.rs");
        let many = EngineRequest::new("rust")
            .with_include_domains(["docs.rs", "rust-lang.org"])
            .with_exclude_domains(["reddit.com", "quora.com"]);
        assert_eq!(
            with_site_operators(&many.query, &many),
            "rust (site:docs.rs OR site:rust-lang.org) -site:reddit.com -site:quora.com"
        );
        let none = EngineRequest::new("rust");
        assert_eq!(with_site_operators(&none.query, &none), "rust");
    }

    #[test]
    fn open_ends_are_filled_in() {
        let today = day("2026-07-25");
        let since = EngineRequest::new("x").with_since(day("2026-01-01"));
        assert_eq!(
            closed_range(&since, today),
            Some((day("2026-01-01"), today))
        );
        let until = EngineRequest::new("x").with_until(day("2020-05-01"));
        assert_eq!(
            closed_range(&until, today),
            Some((EARLIEST, day("2020-05-01")))
        );
        assert_eq!(closed_range(&EngineRequest::new("x"), today), None);
        assert_eq!(iso_day(today), "2026-07-25");
    }
}
