//! Publication dates found in pages, normalised to ISO 8601.
//!
//! Pages write dates in many ways: RFC 3339 timestamps (with or without a
//! zone, with a space instead of `T`, with fractions), plain `2019-11-19`,
//! slashes or dots, compact `20191119`, RFC 2822 (`Tue, 19 Nov 2019 15:04:05
//! GMT`), English prose (`November 19, 2019`, `19 Nov 2019`) and CJK dates.
//! [`ferret_text::dates::parse`] reads them all (without a `now`, so no
//! relative ages); this module keeps publication years in range. A
//! timestamp with a zone becomes RFC 3339 with that offset, one without a
//! zone stays a local date-time (`2019-11-19T15:04:05`), and a date alone
//! becomes `2019-11-19`. Anything that is not a real calendar date is
//! rejected.

use chrono::Datelike;

/// Earliest and latest years accepted as publication dates.
const YEARS: std::ops::RangeInclusive<i32> = 1990..=2100;

/// Normalises a date or timestamp string to ISO 8601, or `None` when it is
/// not a recognisable calendar date.
pub fn normalize_date(input: &str) -> Option<String> {
    ferret_text::dates::parse(input, None)
        .filter(|d| YEARS.contains(&d.date().year()))
        .map(|d| d.to_iso())
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
