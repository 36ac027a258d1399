//! The score tables behind fusion: authority tiers and patterns, domain
//! boosts, freshness buckets and the date formats engines send.

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use ferret_core::authority::{
    AuthorityRule, AuthorityScorer, DEFAULT_SCORE, PATTERN_RULES, TIER_DOMAINS, Tier, authority,
    registrable_domain,
};
use ferret_core::freshness::{
    FreshnessBasis, freshness, latest_year, parse_date, score_age_days, score_year,
};
use proptest::prelude::*;

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

fn tier_of(host: &str) -> (f64, AuthorityRule) {
    let a = authority(host);
    (a.score, a.rule)
}

fn tier_rule(tier: Tier, domain: &str) -> AuthorityRule {
    AuthorityRule::Tier {
        tier,
        domain: domain.to_string().into(),
    }
}

fn pattern_rule(p: &str) -> AuthorityRule {
    AuthorityRule::Pattern {
        pattern: p.to_string().into(),
    }
}

// ---------------------------------------------------------------- authority

#[test]
fn tier_domains_score_by_tier() {
    assert_eq!(
        tier_of("github.com"),
        (1.0, tier_rule(Tier::Tier1, "github.com"))
    );
    assert_eq!(tier_of("dev.to"), (0.8, tier_rule(Tier::Tier2, "dev.to")));
    assert_eq!(
        tier_of("medium.com"),
        (0.6, tier_rule(Tier::Tier3, "medium.com"))
    );
    assert_eq!(
        tier_of("example.com"),
        (DEFAULT_SCORE, AuthorityRule::Default)
    );
}

#[test]
fn subdomains_inherit_their_domains_tier() {
    assert_eq!(
        tier_of("en.wikipedia.org"),
        (1.0, tier_rule(Tier::Tier1, "wikipedia.org"))
    );
    assert_eq!(tier_of("zh.m.wikipedia.org").0, 1.0);
    assert_eq!(
        tier_of("WWW.GitHub.com."),
        (1.0, tier_rule(Tier::Tier1, "github.com"))
    );
    assert_eq!(tier_of("gist.github.com").0, 1.0);
    assert_eq!(tier_of("old.reddit.com").0, 0.8);
}

#[test]
fn the_longest_matching_suffix_wins() {
    assert_eq!(
        tier_of("docs.aws.amazon.com"),
        (1.0, tier_rule(Tier::Tier1, "docs.aws.amazon.com"))
    );
    assert_eq!(
        tier_of("console.aws.amazon.com"),
        (0.8, tier_rule(Tier::Tier2, "aws.amazon.com"))
    );
    // amazon.com itself is in no tier.
    assert_eq!(
        tier_of("amazon.com"),
        (DEFAULT_SCORE, AuthorityRule::Default)
    );
}

#[test]
fn cloud_google_com_is_tier_one_only() {
    assert_eq!(
        tier_of("cloud.google.com"),
        (1.0, tier_rule(Tier::Tier1, "cloud.google.com"))
    );
}

#[test]
fn no_domain_is_listed_in_two_tiers() {
    let mut seen = HashSet::new();
    for (domain, _) in TIER_DOMAINS {
        assert!(seen.insert(*domain), "{domain} listed twice");
        assert!(!domain.starts_with("www."), "{domain} keeps www.");
    }
}

#[test]
fn the_table_matches_the_reference_authority_json() {
    let Some(shared) = shared_dir() else { return };
    let path = shared.join("seed-data/search-layer/authority-domains.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut count = 0;
    for (key, score) in [("tier1", 1.0), ("tier2", 0.8), ("tier3", 0.6)] {
        for d in json[key]["domains"].as_array().unwrap() {
            let d = d.as_str().unwrap();
            count += 1;
            let got = authority(d).score;
            if d == "cloud.google.com" {
                assert_eq!(got, 1.0, "cloud.google.com is kept in tier 1");
            } else {
                assert_eq!(got, score, "{d} in {key}");
            }
        }
    }
    assert_eq!(json["tier4_default_score"].as_f64(), Some(DEFAULT_SCORE));
    // Every domain of the reference file is in the table (cloud.google.com once).
    assert_eq!(
        TIER_DOMAINS.len(),
        count - 2,
        "www.rust-lang.org folds into rust-lang.org"
    );
    for rule in json["pattern_rules"].as_array().unwrap() {
        let p = rule["pattern"].as_str().unwrap();
        let ours = PATTERN_RULES.iter().find(|r| r.pattern == p).unwrap();
        assert_eq!(Some(ours.score), rule["score"].as_f64(), "{p}");
    }
}

#[test]
fn registrable_domains_follow_the_public_suffix_list() {
    assert_eq!(registrable_domain("example.co.uk"), "example.co.uk");
    assert_eq!(registrable_domain("a.b.example.co.uk"), "example.co.uk");
    assert_eq!(registrable_domain("en.wikipedia.org"), "wikipedia.org");
    assert_eq!(registrable_domain("user.github.io"), "user.github.io");
    assert_eq!(registrable_domain("127.0.0.1"), "127.0.0.1");
}

#[test]
fn public_suffixes_never_match_as_domains() {
    // `blog.*` needs a label left of the registrable domain: blog.co.uk is
    // a registrable domain of its own.
    assert_eq!(
        tier_of("blog.co.uk"),
        (DEFAULT_SCORE, AuthorityRule::Default)
    );
    assert_eq!(tier_of("blog.example.co.uk"), (0.6, pattern_rule("blog.*")));
    assert_eq!(tier_of("docs.example.co.uk"), (0.9, pattern_rule("docs.*")));
}

#[test]
fn every_pattern_rule_is_reachable() {
    let cases = [
        ("docs.example.com", "docs.*", 0.9),
        ("api.docs.example.com", "*.docs.*", 0.9),
        ("someone.github.io", "*.github.io", 0.7),
        ("blog.example.com", "blog.*", 0.6),
        ("cs.stanford.edu", "*.edu", 0.8),
        ("whitehouse.gov", "*.gov", 0.8),
        ("www.tsinghua.edu.cn", "*.edu.xx", 0.8),
        ("service.gov.uk", "*.gov.xx", 0.8),
        ("www.gov.uk", "*.gov.xx", 0.8),
        ("www.ox.ac.uk", "*.ac.xx", 0.8),
    ];
    let mut used = HashSet::new();
    for (host, pattern, score) in cases {
        assert_eq!(tier_of(host), (score, pattern_rule(pattern)), "{host}");
        used.insert(pattern);
    }
    for rule in PATTERN_RULES {
        assert!(used.contains(rule.pattern), "{} untested", rule.pattern);
    }
}

#[test]
fn the_best_matching_pattern_wins_and_tiers_beat_patterns() {
    // blog.* (0.6) and *.edu (0.8) both match.
    assert_eq!(tier_of("blog.mit.edu"), (0.8, pattern_rule("*.edu")));
    // github.com is tier 1 whatever its first label.
    assert_eq!(tier_of("docs.github.com").0, 1.0);
    // A three-letter label is not a country code.
    assert_eq!(tier_of("school.edu.com").1, AuthorityRule::Default);
    // An IP address has no patterns.
    assert_eq!(tier_of("10.1.2.3"), (DEFAULT_SCORE, AuthorityRule::Default));
}

#[test]
fn domain_boost_adds_point_two_capped_at_one() {
    let scorer =
        AuthorityScorer::new(&["dev.to", "https://www.Example.com/path", "  ", "github.com"]);
    assert_eq!(scorer.boosts(), ["dev.to", "example.com", "github.com"]);

    let a = scorer.score("dev.to");
    assert_eq!((a.base, a.score), (0.8, 1.0));
    assert_eq!(a.boosted_by.as_deref(), Some("dev.to"));

    let a = scorer.score("blog.example.com");
    assert_eq!(a.base, 0.6);
    assert!((a.score - 0.8).abs() < 1e-12);

    let a = scorer.score("shop.example.com");
    assert!((a.score - 0.6).abs() < 1e-12);
    assert_eq!(a.boosted_by.as_deref(), Some("example.com"));

    assert_eq!(scorer.score("github.com").score, 1.0);
    // Only at a label boundary.
    let a = scorer.score("notexample.com");
    assert_eq!((a.score, a.boosted_by), (DEFAULT_SCORE, None));
}

// ---------------------------------------------------------------- freshness

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap()
}

fn ymd(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap()
}

#[test]
fn age_buckets() {
    let table = [
        (0, 1.0),
        (1, 1.0),
        (2, 0.9),
        (7, 0.9),
        (8, 0.7),
        (30, 0.7),
        (31, 0.5),
        (90, 0.5),
        (91, 0.3),
        (365, 0.3),
        (366, 0.1),
        (5000, 0.1),
        (-3, 1.0),
    ];
    for (days, score) in table {
        assert_eq!(score_age_days(days), score, "{days} days");
    }
}

#[test]
fn dated_results_score_by_age() {
    let cases = [
        ("2026-06-15", 1.0, 0),
        ("2026-06-14T00:00:00Z", 1.0, 1),
        ("2026-06-10", 0.9, 5),
        ("2026-05-20", 0.7, 26),
        ("2026-04-01", 0.5, 75),
        ("2025-09-01", 0.3, 287),
        ("2019-08-05T00:00:00", 0.1, 2506),
    ];
    for (date, score, age_days) in cases {
        let f = freshness(Some(date), "", "", now());
        assert_eq!(f.score, score, "{date}");
        assert_eq!(f.basis, FreshnessBasis::Date { age_days }, "{date}");
    }
}

#[test]
fn years_in_text_score_when_there_is_no_date() {
    assert_eq!(score_year(2026, 2026), 0.9);
    assert_eq!(score_year(2025, 2026), 0.6);
    assert_eq!(score_year(2024, 2026), 0.4);
    assert_eq!(score_year(2023, 2026), 0.2);
    let f = freshness(None, "Rust roadmap 2026", "", now());
    assert_eq!(
        (f.score, f.basis),
        (0.9, FreshnessBasis::YearInText { year: 2026 })
    );
    assert_eq!(freshness(None, "", "Released in 2025.", now()).score, 0.6);
    assert_eq!(freshness(None, "Deno (2024)", "", now()).score, 0.4);
    assert_eq!(freshness(None, "", "since 2011", now()).score, 0.2);
    // The latest year counts; future years, longer numbers and 19xx do not.
    assert_eq!(freshness(None, "2019 vs 2025", "", now()).score, 0.6);
    assert_eq!(latest_year("plan for 2030, id 120260, 1999", 2026), None);
    let f = freshness(None, "no year here", "nor here", now());
    assert_eq!((f.score, f.basis), (0.5, FreshnessBasis::Unknown));
}

#[test]
fn an_unparseable_or_future_date_counts_as_no_date() {
    let f = freshness(Some("sometime soon"), "Plans 2025", "", now());
    assert_eq!(f.basis, FreshnessBasis::YearInText { year: 2025 });
    let f = freshness(Some("2026-07-30"), "", "", now());
    assert_eq!(f.basis, FreshnessBasis::Unknown);
    // Half a day ahead (time zones) is today.
    let f = freshness(Some("2026-06-16T00:00:00Z"), "", "", now());
    assert_eq!(f.basis, FreshnessBasis::Date { age_days: 0 });
}

#[test]
fn engine_date_formats_parse() {
    let n = now();
    let cases: &[(&str, DateTime<Utc>)] = &[
        ("2024-03-05", ymd(2024, 3, 5)),
        (
            "2024-03-28T19:35:02",
            Utc.with_ymd_and_hms(2024, 3, 28, 19, 35, 2).unwrap(),
        ),
        (
            "2024-03-28T19:35:02Z",
            Utc.with_ymd_and_hms(2024, 3, 28, 19, 35, 2).unwrap(),
        ),
        (
            "2024-03-28T19:35:02.123456Z",
            Utc.with_ymd_and_hms(2024, 3, 28, 19, 35, 2).unwrap()
                + chrono::Duration::microseconds(123_456),
        ),
        (
            "2024-03-28T19:35:02+08:00",
            Utc.with_ymd_and_hms(2024, 3, 28, 11, 35, 2).unwrap(),
        ),
        (
            "2024-03-28 19:35:02",
            Utc.with_ymd_and_hms(2024, 3, 28, 19, 35, 2).unwrap(),
        ),
        (
            "2024-03-28T19:35",
            Utc.with_ymd_and_hms(2024, 3, 28, 19, 35, 0).unwrap(),
        ),
        (
            "Tue, 10 Oct 2017 16:00:00 GMT",
            Utc.with_ymd_and_hms(2017, 10, 10, 16, 0, 0).unwrap(),
        ),
        (
            "Tue, 10 Oct 2017 16:00:00 +0200",
            Utc.with_ymd_and_hms(2017, 10, 10, 14, 0, 0).unwrap(),
        ),
        ("2 days ago", n - chrono::Duration::days(2)),
        ("3 hours ago", n - chrono::Duration::hours(3)),
        ("1 week ago", n - chrono::Duration::days(7)),
        ("2 weeks ago", n - chrono::Duration::days(14)),
        ("an hour ago", n - chrono::Duration::hours(1)),
        ("5 mins ago", n - chrono::Duration::minutes(5)),
        ("1 month ago", n - chrono::Duration::days(30)),
        ("yesterday", n - chrono::Duration::days(1)),
        ("3天前", n - chrono::Duration::days(3)),
        ("5小时前", n - chrono::Duration::hours(5)),
        ("Mar 3, 2024", ymd(2024, 3, 3)),
        ("March 3, 2024", ymd(2024, 3, 3)),
        ("Sept. 8, 2023", ymd(2023, 9, 8)),
        ("September 8, 2023", ymd(2023, 9, 8)),
        ("3 Mar 2024", ymd(2024, 3, 3)),
        ("3rd March 2024", ymd(2024, 3, 3)),
        ("Tue, Mar 5, 2024", ymd(2024, 3, 5)),
        ("Mar 5, 2024 10:30 AM", ymd(2024, 3, 5)),
        ("2024年3月5日", ymd(2024, 3, 5)),
        ("2024年03月05日 10:30", ymd(2024, 3, 5)),
        ("2024년 3월 5일", ymd(2024, 3, 5)),
        ("3月5日", ymd(2026, 3, 5)),
        ("12月30日", ymd(2025, 12, 30)),
        ("2024/03/05", ymd(2024, 3, 5)),
        ("2024.03.05", ymd(2024, 3, 5)),
        ("05.03.2024", ymd(2024, 3, 5)),
        ("03/05/2024", ymd(2024, 3, 5)),
        ("25/03/2024", ymd(2024, 3, 25)),
        ("2024-03", ymd(2024, 3, 1)),
        ("1709596800", ymd(2024, 3, 5)),
        ("1709596800000", ymd(2024, 3, 5)),
        ("  2024-03-05  ", ymd(2024, 3, 5)),
    ];
    for (raw, want) in cases {
        assert_eq!(parse_date(raw, n), Some(*want), "{raw:?}");
    }
}

#[test]
fn garbage_dates_are_none() {
    for raw in [
        "",
        "   ",
        "soon",
        "ago",
        "2 fortnights ago",
        "999999999999999 years ago",
        "32 Mar 2024",
        "Mar 32, 2024",
        "2024-13-01",
        "2024-02-30",
        "Marshal 3, 2024",
        "3 Mar 2024 was a Sunday",
        "2024年13月5日",
        "12345",
        "--",
        "2024-",
        "/2024/",
        &"9".repeat(300),
    ] {
        assert_eq!(parse_date(raw, now()), None, "{raw:?}");
    }
}

#[test]
fn braves_page_age_and_age_agree_on_a_real_capture() {
    let Some(shared) = shared_dir() else { return };
    let path = shared.join("fixtures/api/brave-search-api-web-q-laravel-2024-03.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The capture was taken on 2024-03-29 ("1 day ago" = page_age 2024-03-28).
    let captured = Utc.with_ymd_and_hms(2024, 3, 29, 20, 0, 0).unwrap();
    let mut checked = 0;
    for r in json["web"]["results"].as_array().unwrap() {
        let (Some(page_age), Some(age)) = (r["page_age"].as_str(), r["age"].as_str()) else {
            continue;
        };
        let exact = parse_date(page_age, captured).expect(page_age);
        let shown = parse_date(age, captured).expect(age);
        assert_eq!(
            exact.date_naive(),
            shown.date_naive(),
            "{age:?} vs {page_age:?}"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} dated results");
}

proptest! {
    #[test]
    fn date_parsing_never_panics(s in "\\PC{0,40}") {
        let _ = parse_date(&s, now());
        let f = freshness(Some(&s), &s, &s, now());
        prop_assert!((0.0..=1.0).contains(&f.score));
    }

    #[test]
    fn date_like_strings_never_panic(
        a in 0u32..10000, b in 0u32..100, c in 0u32..100,
        sep in prop::sample::select(vec!["-", "/", ".", "年", " "]),
        unit in prop::sample::select(vec!["days ago", "years ago", "天前", "Mar", "月"]),
    ) {
        for s in [format!("{a}{sep}{b}{sep}{c}"), format!("{a} {unit}"), format!("{b} {unit} {a}")] {
            let _ = parse_date(&s, now());
        }
    }

    #[test]
    fn authority_is_always_in_range(host in "[a-z0-9.-]{0,30}", boost in "[a-z.]{0,12}") {
        let a = AuthorityScorer::new(&[boost]).score(&host);
        prop_assert!((0.0..=1.0).contains(&a.score));
        prop_assert!(a.score >= a.base);
    }
}

/// `latest_year` by its definition, digit run by digit run.
fn latest_year_by_runs(text: &str, now_year: i32) -> Option<i32> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| run.len() == 4 && run.starts_with("20"))
        .filter_map(|run| run.parse::<i32>().ok())
        .filter(|year| *year <= now_year)
        .max()
}

proptest! {
    #[test]
    fn latest_year_is_the_latest_standalone_four_digit_year(
        text in "([0-9]{1,6}|[ a-z,.年]{1,3}){0,12}",
        now_year in 2000i32..2100,
    ) {
        prop_assert_eq!(latest_year(&text, now_year), latest_year_by_runs(&text, now_year));
    }
}
