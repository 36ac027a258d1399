//! Goggle matching and semantics through the public API: the shared
//! pattern cases (../shared/bench/goggles/own/match_cases.tsv), then one
//! behaviour per test with our own small goggles — `site=`, targets,
//! default strength, precedence, the generic `$discard`.

use std::path::PathBuf;

use ferret_core::goggles::{Goggle, Pattern, Subject, Verdict};

const HEADER: &str =
    "! name: test\n! description: a test goggle\n! public: false\n! author: tests\n";

fn goggle(body: &str) -> Goggle {
    Goggle::parse(&format!("{HEADER}{body}")).unwrap_or_else(|e| panic!("{body:?}: {e}"))
}

fn at(url: &str) -> Subject {
    Subject::new(url, "", "")
}

/// The verdict with the instruction's line instead of its index.
#[derive(Debug, PartialEq)]
enum V {
    Neutral,
    Boost(u8, usize),
    Downrank(u8, usize),
    Discard(usize),
}

fn judge(g: &Goggle, subject: &Subject) -> V {
    let line = |rule: usize| g.instructions()[rule].line();
    match g.verdict(subject) {
        Verdict::Neutral => V::Neutral,
        Verdict::Boost { strength, rule } => V::Boost(strength, line(rule)),
        Verdict::Downrank { strength, rule } => V::Downrank(strength, line(rule)),
        Verdict::Discard { rule } => V::Discard(line(rule)),
    }
}

fn shared_own() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let own = dir.join("bench/goggles/own");
    if own.is_dir() {
        Some(own)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

// --- the shared cases -------------------------------------------------------------------

#[test]
fn every_shared_match_case_matches_as_listed() {
    let Some(own) = shared_own() else { return };
    let text = std::fs::read_to_string(own.join("match_cases.tsv")).unwrap();
    let mut cases = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (pattern, url, expected) = (cols[0], cols[1], cols[2]);
        let expected = match expected {
            "match" => true,
            "no" => false,
            other => panic!("unknown expectation {other:?} in {line:?}"),
        };
        let compiled = Pattern::parse(pattern).unwrap();
        assert_eq!(
            compiled.matches(url),
            expected,
            "{pattern} on {url} ({})",
            cols[3]
        );
        // The same case as a goggle instruction on a result at that URL.
        let g = goggle(&format!("{pattern}$boost=2\n"));
        let verdict = judge(&g, &at(url));
        let want = if expected { V::Boost(2, 5) } else { V::Neutral };
        assert_eq!(verdict, want, "{pattern} on {url}");
        cases += 1;
    }
    assert!(cases >= 17, "{cases} cases");
}

// --- patterns ----------------------------------------------------------------------------

#[test]
fn a_plain_pattern_matches_anywhere_ignoring_case() {
    let p = Pattern::parse("/Docs/API/").unwrap();
    assert!(p.matches("https://example.com/docs/api/v1"));
    assert!(p.matches("HTTPS://EXAMPLE.COM/DOCS/API/"));
    assert!(!p.matches("https://example.com/docs/ap/"));
}

#[test]
fn the_caret_is_a_separator_or_the_end_but_never_a_word_character() {
    let p = Pattern::parse("-rs^").unwrap();
    assert!(p.matches("https://github.com/tokio-rs/tokio"));
    assert!(p.matches("https://github.com/tokio-rs"));
    assert!(p.matches("https://x.example/a-rs?x"));
    for not_sep in [
        "tokio-rsx",
        "tokio-rs.x",
        "tokio-rs_x",
        "tokio-rs%20",
        "tokio-rs-x",
    ] {
        assert!(
            !p.matches(&format!("https://x.example/{not_sep}")),
            "{not_sep}"
        );
    }
}

#[test]
fn wildcards_span_any_run_and_anchors_pin_the_ends() {
    let p = Pattern::parse("|https://*.github.io/*rust").unwrap();
    assert!(p.matches("https://me.github.io/posts/rust-async"));
    assert!(!p.matches("http://me.github.io/posts/rust"));
    let whole = Pattern::parse("|https://a.example/*|").unwrap();
    assert!(whole.matches("https://a.example/"));
    assert!(whole.matches("https://a.example/x/y"));
    assert!(!whole.matches("https://b.example/https://a.example/"));
}

#[test]
fn cjk_patterns_match_titles() {
    let p = Pattern::parse("最*的*个").unwrap();
    assert!(p.matches("最好用的 10 个 Python 库"));
    assert!(!p.matches("Python 库推荐"));
}

// --- site= ------------------------------------------------------------------------------

#[test]
fn site_matches_the_domain_and_its_subdomains_only() {
    let g = goggle("$boost=3,site=example.com\n");
    for url in [
        "https://example.com/",
        "https://a.b.example.com/x",
        "https://www.example.com/",
        "http://EXAMPLE.com.:8080/x",
    ] {
        assert_eq!(judge(&g, &at(url)), V::Boost(3, 5), "{url}");
    }
    for url in [
        "https://notexample.com/",
        "https://example.com.evil.org/",
        "https://evil.org/example.com",
        "https://evil.org/?u=https://example.com/",
    ] {
        assert_eq!(judge(&g, &at(url)), V::Neutral, "{url}");
    }
}

#[test]
fn site_can_name_a_top_level_or_public_suffix() {
    let g = goggle("$boost,site=rs\n$boost=2,site=github.io\n");
    assert_eq!(judge(&g, &at("https://docs.rs/tokio")), V::Boost(1, 5));
    assert_eq!(judge(&g, &at("https://me.github.io/post")), V::Boost(2, 6));
    assert_eq!(judge(&g, &at("https://github.com/me")), V::Neutral);
}

#[test]
fn a_pattern_with_a_site_needs_both() {
    let g = goggle("/forum/$boost=2,site=example.com\n");
    assert_eq!(
        judge(&g, &at("https://example.com/forum/1")),
        V::Boost(2, 5)
    );
    assert_eq!(judge(&g, &at("https://other.org/forum/1")), V::Neutral);
    assert_eq!(judge(&g, &at("https://example.com/blog/1")), V::Neutral);
}

// --- targets ----------------------------------------------------------------------------

#[test]
fn inurl_is_the_default_target() {
    let g = goggle("tutorial\n");
    assert_eq!(
        judge(&g, &Subject::new("https://a.example/tutorial", "x", "y")),
        V::Boost(1, 5)
    );
    assert_eq!(
        judge(
            &g,
            &Subject::new("https://a.example/", "tutorial", "tutorial")
        ),
        V::Neutral
    );
}

#[test]
fn intitle_checks_the_title_only() {
    let g = goggle("web3$intitle,downrank=2\n");
    assert_eq!(
        judge(&g, &Subject::new("https://a.example/", "The Web3 hype", "")),
        V::Downrank(2, 5)
    );
    assert_eq!(
        judge(&g, &Subject::new("https://a.example/web3", "Other", "web3")),
        V::Neutral
    );
}

#[test]
fn indescription_checks_the_snippet_only() {
    let g = goggle("sponsored$indescription,downrank\n");
    assert_eq!(
        judge(
            &g,
            &Subject::new("https://a.example/", "t", "A sponsored post")
        ),
        V::Downrank(1, 5)
    );
    assert_eq!(
        judge(
            &g,
            &Subject::new("https://a.example/sponsored", "sponsored", "")
        ),
        V::Neutral
    );
}

#[test]
fn incontent_checks_the_page_text_or_else_the_snippet() {
    let g = goggle("affiliate$incontent,downrank\n");
    let snippet_only = Subject::new("https://a.example/", "t", "affiliate links below");
    assert_eq!(judge(&g, &snippet_only), V::Downrank(1, 5));
    let with_text = Subject::new("https://a.example/", "t", "affiliate links below")
        .with_content("a clean page");
    assert_eq!(judge(&g, &with_text), V::Neutral);
    let text_hit =
        Subject::new("https://a.example/", "t", "").with_content("our Affiliate program");
    assert_eq!(judge(&g, &text_hit), V::Downrank(1, 5));
}

#[test]
fn url_patterns_try_every_url_of_the_subject() {
    // `?ref=` is only in the engine's URL; the canonical one drops it.
    let g = goggle("^ref=$downrank\n|https://brave.com|$boost=4\n");
    let s =
        Subject::new("https://shop.example/p?ref=abc", "", "").with_url("https://shop.example/p");
    assert_eq!(judge(&g, &s), V::Downrank(1, 5));
    let s = Subject::new("https://www.brave.com/", "", "").with_url("https://brave.com");
    assert_eq!(judge(&g, &s), V::Boost(4, 6));
}

// --- actions and precedence ---------------------------------------------------------------

#[test]
fn the_documented_conflict_example_ends_up_boosted_with_strength_3() {
    let g = goggle("$downrank=3,site=example.com\n/posts/$boost=3\n$boost=1,site=example.com\n");
    assert_eq!(
        judge(&g, &at("https://example.com/posts/hello.html")),
        V::Boost(3, 6)
    );
    // Elsewhere on the site the weaker boost still beats the downrank.
    assert_eq!(judge(&g, &at("https://example.com/about")), V::Boost(1, 7));
}

#[test]
fn the_shared_conflicts_goggle_boosts_the_documented_url_with_strength_3() {
    let Some(own) = shared_own() else { return };
    let g = Goggle::from_file(own.join("valid/conflicts.goggle")).unwrap();
    match g.verdict(&at("https://example.com/posts/hello.html")) {
        Verdict::Boost { strength, .. } => assert_eq!(strength, 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_discard_beats_any_boost() {
    let g = goggle("$boost=10,site=example.com\n/ads/$discard\n");
    assert_eq!(judge(&g, &at("https://example.com/ads/1")), V::Discard(6));
    assert_eq!(judge(&g, &at("https://example.com/docs")), V::Boost(10, 5));
}

#[test]
fn the_strongest_boost_wins() {
    let g = goggle("$boost=2,site=example.com\n/docs/$boost=4\n/docs/$boost=3\n");
    assert_eq!(judge(&g, &at("https://example.com/docs/")), V::Boost(4, 6));
}

#[test]
fn the_weakest_downrank_wins() {
    let g = goggle("$downrank=5,site=example.com\n/old/$downrank=2\n/old/$downrank=9\n");
    assert_eq!(
        judge(&g, &at("https://example.com/old/")),
        V::Downrank(2, 6)
    );
    assert_eq!(
        judge(&g, &at("https://example.com/new/")),
        V::Downrank(5, 5)
    );
}

#[test]
fn equal_strengths_go_to_the_instruction_written_first() {
    let g = goggle("/a/$boost=2\n$boost=2,site=example.com\n");
    assert_eq!(judge(&g, &at("https://example.com/a/")), V::Boost(2, 5));
    let g = goggle("$boost=2,site=example.com\n/a/$boost=2\n");
    assert_eq!(judge(&g, &at("https://example.com/a/")), V::Boost(2, 5));
}

#[test]
fn an_instruction_without_an_action_boosts_with_strength_one() {
    let g = goggle("$site=example.com\n");
    assert_eq!(judge(&g, &at("https://example.com/")), V::Boost(1, 5));
}

#[test]
fn a_generic_discard_keeps_only_what_an_instruction_matches() {
    let g = goggle("$discard\n$boost=3,site=en.wikipedia.org\n$downrank,site=old.example\n");
    assert_eq!(
        judge(&g, &at("https://en.wikipedia.org/wiki/X")),
        V::Boost(3, 6)
    );
    assert_eq!(judge(&g, &at("https://old.example/x")), V::Downrank(1, 7));
    assert_eq!(
        judge(&g, &at("https://de.wikipedia.org/wiki/X")),
        V::Discard(5)
    );
}

#[test]
fn the_shared_allowlist_keeps_listed_sites_and_drops_the_rest() {
    let Some(own) = shared_own() else { return };
    let g = Goggle::from_file(own.join("valid/allowlist.goggle")).unwrap();
    assert!(
        !g.verdict(&at("https://en.wikipedia.org/wiki/Rust"))
            .is_discard()
    );
    assert!(!g.verdict(&at("https://rust-lang.github.io/x")).is_discard());
    assert!(g.verdict(&at("https://spam.example/")).is_discard());
}

#[test]
fn a_site_discard_without_a_pattern_is_not_generic() {
    let g = goggle("$discard,site=spam.example\n");
    assert!(!g.has_generic_discard());
    assert_eq!(judge(&g, &at("https://spam.example/x")), V::Discard(5));
    assert_eq!(judge(&g, &at("https://ok.example/x")), V::Neutral);
}

#[test]
fn a_generic_boost_or_downrank_applies_to_every_result() {
    let g = goggle("$downrank=2\n$boost,site=good.example\n");
    assert_eq!(judge(&g, &at("https://any.example/")), V::Downrank(2, 5));
    assert_eq!(judge(&g, &at("https://good.example/")), V::Boost(1, 6));
}

#[test]
fn a_large_site_list_is_looked_up_by_host_suffix() {
    let mut body = String::new();
    for i in 0..5_000 {
        body.push_str(&format!("$boost=2,site=site{i}.example\n"));
    }
    body.push_str("$discard,site=site42.example\n");
    let g = goggle(&body);
    assert_eq!(
        judge(&g, &at("https://blog.site4999.example/p")),
        V::Boost(2, 5004)
    );
    assert_eq!(judge(&g, &at("https://site42.example/")), V::Discard(5005));
    assert_eq!(judge(&g, &at("https://site5000.example/")), V::Neutral);
}
