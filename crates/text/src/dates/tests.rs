//! The formats every earlier date reader accepted, read by the one parser.

use chrono::{TimeZone, Utc};
use proptest::prelude::*;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
}

fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// What freshness reads (engines' dates), as `(input, ISO form)`.
const FRESHNESS_FORMS: &[(&str, &str)] = &[
    ("2024-03-05T10:30:00Z", "2024-03-05T10:30:00Z"),
    ("2024-03-05T10:30:00+02:00", "2024-03-05T10:30:00+02:00"),
    ("2024-03-05T10:30:00.5", "2024-03-05T10:30:00"),
    ("2024-03-05 10:30:00", "2024-03-05T10:30:00"),
    ("2024-03-05T10:30", "2024-03-05T10:30:00"),
    ("2024-03-05 10:30 UTC", "2024-03-05T10:30:00Z"),
    ("2024-03-05T10:30+0100", "2024-03-05T10:30:00+01:00"),
    ("Tue, 10 Oct 2017 16:00:00 GMT", "2017-10-10T16:00:00Z"),
    ("2024-03-05", "2024-03-05"),
    ("2024/03/05", "2024-03-05"),
    ("2024.03.05", "2024-03-05"),
    ("2024-3-5", "2024-03-05"),
    ("05.03.2024", "2024-03-05"),
    ("03/05/2024", "2024-03-05"),
    ("25/03/2024", "2024-03-25"),
    ("2024-03", "2024-03-01"),
    ("Mar 3, 2024", "2024-03-03"),
    ("March 3, 2024", "2024-03-03"),
    ("Sept. 8, 2023", "2023-09-08"),
    ("Marc 8, 2023", "2023-03-08"),
    ("3 Mar 2024", "2024-03-03"),
    ("3rd March 2024", "2024-03-03"),
    ("Tue, Mar 5, 2024", "2024-03-05"),
    ("Mar 5, 2024 10:30 AM", "2024-03-05"),
    ("2024年3月5日", "2024-03-05"),
    ("2024年03月05日 10:30", "2024-03-05"),
    ("2024년 3월 5일", "2024-03-05"),
    ("2024年3月", "2024-03-01"),
    ("1709596800", "2024-03-05T00:00:00Z"),
    ("1709596800000", "2024-03-05T00:00:00Z"),
    ("  2024-03-05  ", "2024-03-05"),
];

/// What page metadata reads, as `(input, ISO form)`.
const METADATA_FORMS: &[(&str, &str)] = &[
    ("2019-11-19T15:04:05Z", "2019-11-19T15:04:05Z"),
    ("2019-11-19T10:04:05-05:00", "2019-11-19T10:04:05-05:00"),
    (
        "2019-11-19T10:04:05.123+0100",
        "2019-11-19T10:04:05.123+01:00",
    ),
    ("2019-11-19 10:04", "2019-11-19T10:04:00"),
    ("2019/11/19 10:04:05", "2019-11-19T10:04:05"),
    ("2019-11-19 (updated)", "2019-11-19"),
    ("20191119", "2019-11-19"),
    ("Tue, 19 Nov 2019 15:04:05 GMT", "2019-11-19T15:04:05Z"),
    ("November 19, 2019", "2019-11-19"),
    ("Nov. 19, 2019 at 3:04 p.m. ET", "2019-11-19"),
    ("19 November 2019", "2019-11-19"),
    ("Tuesday 19th November 2019", "2019-11-19"),
    ("19-Nov-2019", "2019-11-19"),
];

/// What search snippets hold: `(text, first date)`.
const SNIPPET_FORMS: &[(&str, &str)] = &[
    ("发布于2024年3月5日 新闻", "2024-03-05"),
    ("发布于 2024 年 3 月 5 日", "2024-03-05"),
    ("5 Mar 2024 — text", "2024-03-05"),
    ("5 Mar. 2024 — text", "2024-03-05"),
    ("Mar 5, 2024 · text", "2024-03-05"),
    ("September 30, 2025", "2025-09-30"),
    ("posted 2023-12-01", "2023-12-01"),
    ("Jan 2, 2020 then 2021年1月1日", "2020-01-02"),
    ("Feb 30, 2024 and then 2024-03-01", "2024-03-01"),
];

#[test]
fn every_format_of_every_reader_parses() {
    for (input, want) in FRESHNESS_FORMS.iter().chain(METADATA_FORMS) {
        let got = parse(input, Some(now())).map(|d| d.to_iso());
        assert_eq!(got.as_deref(), Some(*want), "{input:?}");
        let without_now = parse(input, None).map(|d| d.to_iso());
        assert_eq!(without_now.as_deref(), Some(*want), "{input:?} without now");
    }
    for (text, want) in SNIPPET_FORMS {
        let got = find_date(text).map(|d| d.format("%Y-%m-%d").to_string());
        assert_eq!(got.as_deref(), Some(*want), "{text:?}");
    }
}

#[test]
fn relative_ages_and_yearless_dates_need_now() {
    let n = now();
    let cases = [
        ("just now", n),
        ("3 days ago", n - Duration::days(3)),
        ("an hour ago", n - Duration::hours(1)),
        ("2 weeks ago", n - Duration::days(14)),
        ("yesterday", n - Duration::days(1)),
        ("前天", n - Duration::days(2)),
        ("3天前", n - Duration::days(3)),
        ("5小时前", n - Duration::hours(5)),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse(input, Some(n)).map(|d| d.to_utc()),
            Some(want),
            "{input}"
        );
        assert_eq!(parse(input, None), None, "{input}");
    }
    let this_year = parse("3月5日", Some(n)).map(|d| d.date());
    assert_eq!(this_year, Some(ymd(2026, 3, 5)));
    let last_year = parse("12月30日", Some(n)).map(|d| d.date());
    assert_eq!(last_year, Some(ymd(2025, 12, 30)));
    assert_eq!(parse("3月5日", None), None);
}

#[test]
fn non_dates_are_none() {
    for input in [
        "",
        "soon",
        "ago",
        "2 fortnights ago",
        "999999999999999 years ago",
        "32 Mar 2024",
        "Mar 32, 2024",
        "2024-13-01",
        "2024-02-30",
        "2019-13-40",
        "0000-00-00",
        "Marshal 3, 2024",
        "3 Mar 2024 was a Sunday",
        "May the force",
        "2024年13月5日",
        "1234",
        "12345",
        "--",
        "2024-",
        "/2024/",
    ] {
        assert_eq!(parse(input, Some(now())), None, "{input:?}");
    }
    assert_eq!(parse(&"9".repeat(300), Some(now())), None);
    assert_eq!(find_date("no date here 2024"), None);
    assert_eq!(find_date("Feb 30, 2024"), None);
}

#[test]
fn utc_instants_follow_the_zone() {
    let d = parse("2024-03-05T10:30:00+02:00", None).unwrap();
    assert_eq!(
        d.to_utc(),
        Utc.with_ymd_and_hms(2024, 3, 5, 8, 30, 0).unwrap()
    );
    let d = parse("2024-03-05 10:30", None).unwrap();
    assert_eq!(
        d.to_utc(),
        Utc.with_ymd_and_hms(2024, 3, 5, 10, 30, 0).unwrap()
    );
    assert_eq!(parse("2024-03-05", None).unwrap().date(), ymd(2024, 3, 5));
}

proptest! {
    #[test]
    fn parsing_never_panics(s in "\\PC{0,60}") {
        let _ = parse(&s, Some(now()));
        let _ = parse(&s, None);
        let _ = find_date(&s);
    }

    #[test]
    fn date_like_strings_never_panic(
        a in 0u32..100_000, b in 0u32..100, c in 0u32..100,
        sep in prop::sample::select(vec!["-", "/", ".", "年", " ", "T", ":"]),
        unit in prop::sample::select(vec!["days ago", "天前", "Mar", "月", "+0100", "Z", "UTC"]),
    ) {
        for s in [
            format!("{a}{sep}{b}{sep}{c}"),
            format!("{a} {unit}"),
            format!("{b} {unit} {a}"),
            format!("{a}-{b:02}-{c:02}T{b}:{c}{unit}"),
        ] {
            if let Some(d) = parse(&s, Some(now())) {
                let _ = (d.to_iso(), d.to_utc(), d.date());
            }
        }
    }
}
