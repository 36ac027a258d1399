//! The five built-in goggles (the domain presets): they parse, and they act
//! as the preset tables say on crafted results.

use ferret_core::Runtime;
use ferret_core::goggles::presets::{BUILTIN_NAMES, source};
use ferret_core::goggles::{Goggle, Subject, Verdict, apply};
use ferret_core::{Provenance, Scores, SearchResult};

fn preset(name: &str) -> Goggle {
    Goggle::builtin(name).unwrap_or_else(|| panic!("no built-in {name}"))
}

#[derive(Debug, PartialEq)]
enum Act {
    Boost,
    Downrank,
    Discard,
    None,
}

fn act(g: &Goggle, url: &str, title: &str) -> Act {
    match g.verdict(&Subject::new(url, title, "")) {
        Verdict::Boost { strength, .. } => {
            assert_eq!(strength, 1, "presets use bare boost (+2)");
            Act::Boost
        }
        Verdict::Downrank { strength, .. } => {
            assert_eq!(strength, 1, "presets use bare downrank (−1)");
            Act::Downrank
        }
        Verdict::Discard { .. } => Act::Discard,
        Verdict::Neutral => Act::None,
    }
}

fn check(g: &Goggle, cases: &[(&str, &str, Act)]) {
    for (url, title, want) in cases {
        assert_eq!(
            &act(g, url, title),
            want,
            "{} on {url} / {title:?}",
            g.name()
        );
    }
}

#[test]
fn every_builtin_is_available_by_name_and_parses_from_its_text() {
    assert_eq!(
        BUILTIN_NAMES,
        &[
            "general-tech",
            "academic",
            "product-research",
            "security",
            "zh-tech"
        ]
    );
    for name in BUILTIN_NAMES {
        let g = preset(name);
        assert_eq!(g.name(), *name);
        assert!(!g.instructions().is_empty());
        let reparsed = Goggle::parse(source(name).unwrap()).unwrap();
        assert_eq!(reparsed.instructions().len(), g.instructions().len());
        assert!(!g.metadata().public);
    }
    assert!(Goggle::builtin("General-Tech").is_some());
    assert!(Goggle::builtin("nope").is_none());
}

#[test]
fn general_tech_acts_as_its_table_says() {
    check(
        &preset("general-tech"),
        &[
            ("https://github.com/tokio-rs/tokio", "tokio", Act::Boost),
            ("https://docs.example.org/guide", "Guide", Act::Boost),
            ("https://svelte.dev/tutorial", "Svelte", Act::Boost),
            ("https://developer.chrome.com/docs", "Chrome", Act::Boost),
            (
                "https://kubernetes.io/docs/concepts/",
                "Concepts",
                Act::Boost,
            ),
            (
                "https://man7.org/linux/man-pages/man2/open.2.html",
                "open(2)",
                Act::Boost,
            ),
            ("https://docs.python.org/3/", "Python", Act::Boost),
            ("https://pkg.go.dev/net/http", "http", Act::Boost),
            ("https://medium.com/@me/post", "A post", Act::Downrank),
            ("https://dev.to/me/post", "A post", Act::Downrank),
            (
                "https://www.cnblogs.com/me/p/1.html",
                "A post",
                Act::Downrank,
            ),
            (
                "https://blog.csdn.net/me/article/1",
                "一文读懂 Rust 异步",
                Act::Downrank,
            ),
            (
                "https://blog.csdn.net/me/article/2",
                "万字长文：Tokio 详解",
                Act::Downrank,
            ),
            (
                "https://blog.csdn.net/me/article/3",
                "Tokio 运行时笔记",
                Act::None,
            ),
            ("https://www.toutiao.com/article/1/", "Rust", Act::Discard),
            ("https://m.toutiao.com/i1/", "Rust", Act::Discard),
            ("https://baidu.com/bjh/123", "Rust", Act::Discard),
            ("https://www.baidu.com/bjh/123", "Rust", Act::Discard),
            ("https://www.baidu.com/s?wd=rust", "Rust", Act::None),
            (
                "https://www.360doc.com/content/1.shtml",
                "Rust",
                Act::Discard,
            ),
            ("https://example.com/a", "2026 最全 Rust 教程", Act::Discard),
            (
                "https://example.com/b",
                "最好用的 10 个 Rust 库",
                Act::Discard,
            ),
            ("https://example.com/c", "Rust async notes", Act::None),
        ],
    );
}

#[test]
fn academic_acts_as_its_table_says() {
    check(
        &preset("academic"),
        &[
            ("https://arxiv.org/abs/1706.03762", "Attention", Act::Boost),
            ("https://cs.stanford.edu/people/x", "X", Act::Boost),
            ("https://www.ox.ac.uk/research", "Research", Act::Boost),
            ("https://www.u-tokyo.ac.jp/en/", "UTokyo", Act::Boost),
            ("https://openreview.net/forum?id=1", "Paper", Act::Boost),
            (
                "https://aclanthology.org/2023.acl-long.1/",
                "Paper",
                Act::Boost,
            ),
            (
                "https://proceedings.mlr.press/v202/x.html",
                "Paper",
                Act::Boost,
            ),
            (
                "https://scholar.google.com.hk/scholar?q=x",
                "Scholar",
                Act::Boost,
            ),
            (
                "https://www.semanticscholar.org/paper/1",
                "Paper",
                Act::Boost,
            ),
            ("https://dl.acm.org/doi/10.1145/1", "Paper", Act::Boost),
            (
                "https://ieeexplore.ieee.org/document/1",
                "Paper",
                Act::Boost,
            ),
            ("https://example.com/x", "白话讲 Transformer", Act::Discard),
            (
                "https://example.com/y",
                "小白也能懂的注意力机制",
                Act::Discard,
            ),
            (
                "https://medium.com/@me/attention",
                "Attention explained",
                Act::None,
            ),
        ],
    );
}

#[test]
fn product_research_acts_as_its_table_says() {
    check(
        &preset("product-research"),
        &[
            (
                "https://review.example/notion?ref=affiliate1",
                "Notion review",
                Act::Downrank,
            ),
            (
                "https://review.example/notion?x=1&aff=9",
                "Notion review",
                Act::Downrank,
            ),
            (
                "https://example.com/x",
                "Top 10 Alternatives to Notion in 2026",
                Act::Downrank,
            ),
            ("https://notion.so/pricing", "Pricing", Act::None),
            ("https://example.com/?xref=1", "Settings", Act::None),
        ],
    );
}

#[test]
fn security_acts_as_its_table_says() {
    check(
        &preset("security"),
        &[
            (
                "https://nvd.nist.gov/vuln/detail/CVE-2024-3094",
                "CVE",
                Act::Boost,
            ),
            (
                "https://cve.mitre.org/cgi-bin/cvename.cgi?name=CVE-1",
                "CVE",
                Act::Boost,
            ),
            ("https://www.cve.org/CVERecord?id=CVE-1", "CVE", Act::Boost),
            ("https://www.cisa.gov/known-exploited", "KEV", Act::Boost),
            ("https://security.microsoft.com/x", "MSRC", Act::Boost),
            ("https://blog.example.security/x", "Post", Act::Boost),
            ("https://osv.dev/vulnerability/GHSA-1", "OSV", Act::Boost),
            (
                "https://github.com/advisories/GHSA-abcd-1234-wxyz",
                "GHSA",
                Act::Boost,
            ),
            (
                "https://github.com/tokio-rs/tokio/security/advisories/GHSA-abcd",
                "GHSA",
                Act::Boost,
            ),
            ("https://github.com/tokio-rs/tokio", "tokio", Act::None),
            ("https://news.example/cve-story", "CVE story", Act::None),
        ],
    );
}

#[test]
fn zh_tech_acts_as_its_table_says() {
    check(
        &preset("zh-tech"),
        &[
            ("https://juejin.cn/post/1", "Rust", Act::Boost),
            ("https://www.infoq.cn/article/1", "Rust", Act::Boost),
            ("https://www.zhihu.com/question/1", "Rust", Act::Boost),
            ("https://zhuanlan.zhihu.com/p/1", "Rust", Act::Boost),
            ("https://mp.weixin.qq.com/s/abc", "Rust", Act::Boost),
            (
                "https://docs.python.org/zh-cn/3/library/asyncio.html",
                "asyncio",
                Act::Boost,
            ),
            (
                "https://kubernetes.io/zh-cn/docs/home/",
                "Kubernetes",
                Act::Boost,
            ),
            (
                "https://docs.python.org/3/library/asyncio.html",
                "asyncio",
                Act::None,
            ),
            ("https://blog.csdn.net/me/article/1", "Rust", Act::Downrank),
            ("https://www.cnblogs.com/me/p/1.html", "Rust", Act::Downrank),
            ("https://www.toutiao.com/article/1/", "Rust", Act::Discard),
            (
                "https://www.360doc.com/content/1.shtml",
                "Rust",
                Act::Discard,
            ),
            ("https://bjh.baidu.com/x", "Rust", Act::Discard),
            ("https://www.kuaishou.com/article/1", "Rust", Act::Discard),
            ("https://www.kuaishou.com/video/1", "Rust", Act::None),
            ("https://example.com/a", "收藏即学会 Rust", Act::Discard),
            ("https://example.com/b", "让你瞬间看懂异步", Act::Discard),
            ("https://example.com/c", "2026 必看的 Rust 书", Act::Discard),
        ],
    );
}

fn result(url: &str, title: &str) -> SearchResult {
    SearchResult {
        url: url.to_string(),
        original_url: url.into(),
        title: title.into(),
        snippet: Default::default(),
        published_at: None,
        domain: String::new(),
        sources: Vec::new(),
        scores: Scores::default(),
        score_basis: None,
        near_duplicates: Vec::new(),
        flags: Vec::new(),
        provenance: Provenance::public(Runtime::Http),
    }
}

#[test]
fn general_tech_drops_toutiao_and_lifts_github_in_a_fused_list() {
    let fused = vec![
        result("https://www.toutiao.com/article/1", "Rust 异步编程"),
        result("https://example.com/rust-async", "Rust async"),
        result("https://medium.com/@me/rust-async", "Rust async on Medium"),
        result("https://github.com/tokio-rs/tokio", "tokio"),
    ];
    let applied = apply(&preset("general-tech"), fused);
    let urls: Vec<&str> = applied.results.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://github.com/tokio-rs/tokio",
            "https://example.com/rust-async",
            "https://medium.com/@me/rust-async",
        ]
    );
    assert_eq!(applied.discarded.len(), 1);
    assert_eq!(
        applied.discarded[0].result.url,
        "https://www.toutiao.com/article/1"
    );
    assert_eq!(
        applied.discarded[0].instruction,
        "$discard,site=toutiao.com"
    );
    assert_eq!(applied.results[0].scores.goggle, Some(2.0));
    assert_eq!(applied.results[2].scores.goggle, Some(-1.0));
}
