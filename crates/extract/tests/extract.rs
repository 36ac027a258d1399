//! Behaviour of `ferret_extract::extract` on small pages written here.

use ferret_extract::{
    BlockKind, CharsetSource, ExtractOptions, Extracted, LanguageSource, Strategy, extract,
    extract_bytes,
};
use url::Url;

fn run(html: &str) -> Extracted {
    extract(html, None, &ExtractOptions::default())
}

fn run_at(html: &str, url: &str) -> Extracted {
    let url = Url::parse(url).expect("test URL parses");
    extract(html, Some(&url), &ExtractOptions::default())
}

const LONG_1: &str = "The city council voted on Tuesday to expand the bicycle network, adding forty kilometres of protected lanes over the next three years, a plan that supporters say will make the streets safer for everyone.";
const LONG_2: &str = "Opponents argued that the project would remove parking spaces from busy shopping streets, but the council's transport committee found that most customers in those areas arrive on foot or by tram.";
const LONG_3: &str = "Work on the first section, along the river embankment, is expected to begin in the spring, and the city has promised to publish monthly progress reports on its website.";

/// A news page with every kind of chrome around a three-paragraph article.
fn news_page() -> String {
    format!(
        r#"<!doctype html>
<html lang="en-GB">
<head>
  <title>Council expands bike lanes | The Daily Example</title>
  <meta property="og:site_name" content="The Daily Example">
  <meta name="description" content="Forty kilometres of new lanes.">
  <link rel="canonical" href="/news/bike-lanes">
</head>
<body>
  <header class="site-header">
    <nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></nav>
  </header>
  <main>
    <article>
      <h1>Council expands bike lanes</h1>
      <p class="byline">By <a rel="author" href="/staff/ana">Ana Lima</a></p>
      <div class="share-tools"><a href="https://twitter.com/share">Share on Twitter</a> <a href="https://facebook.com/share">Share on Facebook</a></div>
      <div class="article-body">
        <p>{LONG_1}</p>
        <p>{LONG_2}</p>
        <p>{LONG_3}</p>
      </div>
      <section class="related-stories">
        <h2>Related stories</h2>
        <ul>
          <li><a href="/a">Tram line to reopen after repairs next month</a> A short summary of the tram story.</li>
          <li><a href="/b">Parking fees to rise in the city centre</a> A short summary of the parking story.</li>
          <li><a href="/c">New bridge opens to cyclists and walkers</a> A short summary of the bridge story.</li>
        </ul>
      </section>
    </article>
    <section id="comments" class="comments">
      <h2>Comments</h2>
      <div class="comment"><p>I have been cycling in this city for twenty years and this is the best news I have heard in a very long time, thank you.</p></div>
      <div class="comment"><p>What about the people who need to drive to work because there is no tram line anywhere near their homes? Nobody asked them.</p></div>
    </section>
  </main>
  <aside class="sidebar"><h3>Most read</h3><p>Something else entirely that happened somewhere else in the world this week.</p></aside>
  <footer><p>Copyright 2024 The Daily Example. All rights reserved. Contact us for more information.</p></footer>
</body>
</html>"#
    )
}

#[test]
fn article_text_keeps_paragraphs_and_drops_chrome() {
    let out = run(&news_page());
    assert_eq!(out.strategy, Strategy::Container);
    assert!(out.text.contains(LONG_1));
    assert!(out.text.contains(LONG_2));
    assert!(out.text.contains(LONG_3));
    for chrome in [
        "Home",
        "Share on Twitter",
        "Tram line to reopen",
        "cycling in this city for twenty years",
        "Something else entirely",
        "Copyright 2024",
    ] {
        assert!(
            !out.text.contains(chrome),
            "{chrome:?} leaked into {:?}",
            out.text
        );
    }
    // paragraphs stay separate
    assert_eq!(out.text.matches("\n\n").count(), 2, "{:?}", out.text);
    assert_eq!(out.text_chars, out.text.chars().count());
}

#[test]
fn title_is_cleaned_of_the_site_name() {
    let out = run(&news_page());
    assert_eq!(out.title.as_deref(), Some("Council expands bike lanes"));
    assert_eq!(out.site_name.as_deref(), Some("The Daily Example"));
    // the headline is the title, not part of the text
    assert!(!out.text.contains("Council expands"), "{}", out.text);
}

#[test]
fn title_without_site_name_drops_a_short_suffix() {
    let out = run(
        "<html><head><title>Why the river flooded again this winter - Riverside Times</title></head><body><p>x</p></body></html>",
    );
    assert_eq!(
        out.title.as_deref(),
        Some("Why the river flooded again this winter")
    );
}

#[test]
fn byline_comes_from_rel_author_when_no_meta() {
    let out = run(&news_page());
    assert_eq!(out.byline.as_deref(), Some("Ana Lima"));
}

#[test]
fn meta_signals_count_canonical_description_open_graph_and_json_ld() {
    let out = run_at(&news_page(), "https://example.com/news/bike-lanes?utm=x");
    assert_eq!(
        out.meta.canonical.as_deref(),
        Some("https://example.com/news/bike-lanes")
    );
    assert_eq!(
        out.meta.description.as_deref(),
        Some("Forty kilometres of new lanes.")
    );
    assert!(out.meta.open_graph);
    assert!(!out.meta.json_ld);
    assert_eq!(out.meta.count(), 3);
}

#[test]
fn json_ld_gives_date_and_author_and_bad_blocks_are_reported() {
    let html = format!(
        r#"<html><head>
<script type="application/ld+json">{{"@context":"https://schema.org","@graph":[{{"@type":"WebSite","name":"Example"}},{{"@type":"NewsArticle","headline":"Bridge opens","datePublished":"2024-03-05T10:00:00+01:00","author":[{{"@type":"Person","name":"Jane Doe"}},{{"@type":"Person","name":"Max Roe"}}]}}]}}</script>
<script type="application/ld+json">{{"@type": "Article", "headline": "broken",}}</script>
</head><body><article><p>{LONG_1}</p><p>{LONG_2}</p></article></body></html>"#
    );
    let out = run(&html);
    assert_eq!(out.published.as_deref(), Some("2024-03-05T10:00:00+01:00"));
    assert_eq!(out.byline.as_deref(), Some("Jane Doe, Max Roe"));
    assert_eq!(out.json_ld.len(), 1);
    assert_eq!(out.json_ld_errors.len(), 1);
    assert_eq!(out.json_ld_errors[0].index, 1);
    assert!(!out.json_ld_errors[0].message.is_empty());
    assert!(out.meta.json_ld);
    assert_eq!(out.title.as_deref(), Some("Bridge opens"));
}

#[test]
fn meta_published_time_is_normalised() {
    let html = format!(
        r#"<html><head><meta property="article:published_time" content="2019-11-19 10:04:05 +0000"><meta name="author" content="By  Sam Poe"></head><body><p>{LONG_1}</p></body></html>"#
    );
    let out = run(&html);
    assert_eq!(out.published.as_deref(), Some("2019-11-19T10:04:05Z"));
    assert_eq!(out.byline.as_deref(), Some("Sam Poe"));
}

#[test]
fn time_element_gives_the_date_when_nothing_else_does() {
    let html = format!(
        r#"<html><body><article><p class="meta">Posted <time datetime="2023-07-01">July 1st</time></p><p>{LONG_1}</p><p>{LONG_2}</p></article></body></html>"#
    );
    assert_eq!(run(&html).published.as_deref(), Some("2023-07-01"));
}

#[test]
fn date_in_the_url_is_the_last_resort() {
    let html = format!("<html><body><p>{LONG_1}</p></body></html>");
    let out = run_at(&html, "https://example.com/2021/02/03/some-story/");
    assert_eq!(out.published.as_deref(), Some("2021-02-03"));
}

#[test]
fn markdown_renders_headings_lists_code_quotes_links_and_tables() {
    let html = format!(
        r#"<html><body><article>
<p>{LONG_1}</p>
<h2>Setting it up</h2>
<p>Install the tool with <code>cargo install</code> and read the <a href="/docs/guide">user guide</a> first.</p>
<ol><li>Download the archive from the release page.</li><li>Unpack it somewhere on your path.</li></ol>
<ul><li>Linux<ul><li>Debian and Ubuntu</li></ul></li><li>macOS</li></ul>
<pre><code>fn main() {{
    println!("hi");
}}</code></pre>
<blockquote><p>Simple things should be simple, complex things should be possible.</p></blockquote>
<table><tr><th>Name</th><th>Lanes</th></tr><tr><td>North</td><td>12 km</td></tr><tr><td>South</td><td>28 km</td></tr></table>
<p>{LONG_2}</p>
</article></body></html>"#
    );
    let out = run_at(&html, "https://example.com/post/1");
    let md = &out.markdown;
    assert!(md.contains("## Setting it up"), "{md}");
    assert!(md.contains("`cargo install`"), "{md}");
    assert!(
        md.contains("[user guide](https://example.com/docs/guide)"),
        "{md}"
    );
    assert!(
        md.contains(
            "1. Download the archive from the release page.\n2. Unpack it somewhere on your path."
        ),
        "{md}"
    );
    assert!(
        md.contains("- Linux\n  - Debian and Ubuntu\n- macOS"),
        "{md}"
    );
    assert!(
        md.contains("```\nfn main() {\n    println!(\"hi\");\n}\n```"),
        "{md}"
    );
    assert!(md.contains("> Simple things should be simple"), "{md}");
    assert!(
        md.contains("| Name | Lanes |\n| --- | --- |\n| North | 12 km |\n| South | 28 km |"),
        "{md}"
    );
    // plain text keeps the words without Markdown syntax
    assert!(
        out.text
            .contains("Install the tool with cargo install and read the user guide first.")
    );
    assert!(out.text.contains("Setting it up"));
    assert!(
        out.blocks
            .iter()
            .any(|b| b.kind == BlockKind::Heading { level: 2 })
    );
    assert!(out.blocks.iter().any(|b| b.kind == BlockKind::Code));
    assert!(out.blocks.iter().any(|b| b.kind == BlockKind::TableRow));
}

#[test]
fn links_are_absolute_deduplicated_and_carry_anchor_text() {
    let html = format!(
        r##"<html><head><base href="https://cdn.example.org/base/"></head><body><article>
<p>{LONG_1} See <a href="report.pdf">the full report</a> and <a href="https://other.example/x">another source</a>.</p>
<p>{LONG_2} Again <a href="report.pdf">the report</a>, <a href="javascript:void(0)">a script</a>, <a href="#top">top</a>.</p>
</article></body></html>"##
    );
    let out = run_at(&html, "https://example.com/a/b");
    let urls: Vec<&str> = out.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://cdn.example.org/base/report.pdf",
            "https://other.example/x"
        ]
    );
    assert_eq!(out.links[0].text, "the full report");
    assert!(out.link_density > 0.0 && out.link_density < 0.2);
}

#[test]
fn javascript_shell_pages_are_recognised() {
    let shell = r#"<!doctype html><html><head><title>App</title>
<script src="/static/js/vendor.js"></script><script src="/static/js/main.js"></script>
<script>window.__INITIAL_STATE__ = {"user": null};</script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>"#;
    let out = run(shell);
    assert!(out.shell.looks_like_js_shell);
    assert_eq!(out.shell.mount_point.as_deref(), Some("#root"));
    assert_eq!(out.shell.script_count, 3);
    assert!(out.shell.noscript_asks_for_javascript);
    assert!(out.text.is_empty());

    let article = run(&news_page());
    assert!(!article.shell.looks_like_js_shell);
    assert!(article.shell.body_text_chars > 500);
}

#[test]
fn next_js_mount_point_is_named() {
    let out = run(
        r#"<html><body><div id="__next"><div></div></div><script src="/_next/a.js"></script></body></html>"#,
    );
    assert_eq!(out.shell.mount_point.as_deref(), Some("#__next"));
    assert!(out.shell.looks_like_js_shell);
}

#[test]
fn declared_language_wins_and_text_is_the_fallback() {
    let out = run(&news_page());
    assert_eq!(out.language.as_deref(), Some("en-GB"));
    assert_eq!(out.language_source, Some(LanguageSource::HtmlLang));

    let html =
        format!("<html><body><article><p>{LONG_1}</p><p>{LONG_2}</p></article></body></html>");
    let out = run(&html);
    assert_eq!(out.language.as_deref(), Some("en"));
    assert_eq!(out.language_source, Some(LanguageSource::Detected));

    let ja = "<html><body><article><p>東京都は火曜日、新しい自転車専用レーンの計画を発表しました。この計画では、今後三年間で四十キロメートルの専用レーンが整備される予定です。</p></article></body></html>";
    assert_eq!(run(ja).language.as_deref(), Some("ja"));
}

#[test]
fn bytes_are_decoded_with_the_declared_charset() {
    // "日本語の記事です。" and more, in Shift_JIS, declared by a meta tag.
    let (body, _, _) = encoding_rs::SHIFT_JIS.encode(
        "<html><head><meta charset=\"shift_jis\"></head><body><p>日本語の記事です。東京都は火曜日、新しい自転車専用レーンの計画を発表しました。</p></body></html>",
    );
    let out = extract_bytes(&body, None, None, &ExtractOptions::default());
    assert!(out.text.contains("日本語の記事です。"), "{:?}", out.text);
    let decoded = out.decoded.expect("extract_bytes reports the decoding");
    assert_eq!(decoded.encoding, "Shift_JIS");
    assert_eq!(decoded.source, CharsetSource::Meta);
}

#[test]
fn header_charset_and_bom_are_honoured() {
    let latin1 = b"<html><body><p>Caf\xe9 cr\xe8me, na\xefve fa\xe7ade and other words that need accents to be spelled right.</p></body></html>";
    let out = extract_bytes(
        latin1,
        Some("text/html; charset=ISO-8859-1"),
        None,
        &ExtractOptions::default(),
    );
    assert!(
        out.text.contains("Café crème, naïve façade"),
        "{:?}",
        out.text
    );
    assert_eq!(out.decoded.map(|d| d.source), Some(CharsetSource::Header));

    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(
        "<p>Grüße aus München, wo es heute wieder den ganzen Tag geregnet hat.</p>".as_bytes(),
    );
    let out = extract_bytes(
        &bom,
        Some("text/html; charset=windows-1252"),
        None,
        &ExtractOptions::default(),
    );
    assert!(out.text.contains("Grüße aus München"), "{:?}", out.text);
    assert_eq!(out.decoded.map(|d| d.source), Some(CharsetSource::Bom));
}

#[test]
fn empty_and_textless_input_gives_an_empty_result() {
    for html in [
        "",
        "   ",
        "<html></html>",
        "<script>alert(1)</script>",
        "<!-- only a comment -->",
    ] {
        let out = run(html);
        assert!(out.text.is_empty(), "{html:?} gave {:?}", out.text);
        assert_eq!(out.strategy, Strategy::Empty);
        assert_eq!(out.text_chars, 0);
    }
}

#[test]
fn short_pages_without_prose_still_give_their_text() {
    let out = run("<html><body><h1>Opening hours</h1><p>Mon–Fri 9–17</p></body></html>");
    assert!(out.text.contains("Mon–Fri 9–17"), "{:?}", out.text);
}

#[test]
fn text_is_capped_at_a_block_boundary() {
    let opts = ExtractOptions::default().with_max_text_chars(300);
    let out = extract(&news_page(), None, &opts);
    assert!(out.truncated);
    assert!(out.text_chars <= 300, "{}", out.text_chars);
    assert!(out.text.contains(LONG_1));
    assert!(!out.text.contains(LONG_3));
}

#[test]
fn hidden_elements_are_not_text() {
    let html = format!(
        r#"<html><body><article><p>{LONG_1}</p><p style="display: none">Secret hidden words.</p><div hidden><p>{LONG_3}</p></div><p>{LONG_2}</p></article></body></html>"#
    );
    let out = run(&html);
    assert!(!out.text.contains("Secret hidden words"));
    assert!(!out.text.contains(LONG_3));
    assert!(out.text.contains(LONG_2));
}

#[test]
fn a_class_that_mentions_ads_on_the_page_wrapper_does_not_hide_the_article() {
    let html = format!(
        r#"<html><body><div class="page-ad-margins"><div class="story"><p>{LONG_1}</p><p>{LONG_2}</p><p>{LONG_3}</p></div><div class="ad">Advertisement</div></div></body></html>"#
    );
    let out = run(&html);
    assert!(out.text.contains(LONG_1) && out.text.contains(LONG_3));
    assert!(!out.text.contains("Advertisement"));
}

#[test]
fn the_titled_article_wins_over_suggested_posts() {
    let html = format!(
        r#"<html><head><title>Bike lanes</title></head><body><div id="primary">
<article><h1>Bike lanes</h1><p>{LONG_1}</p><p>{LONG_3}</p></article>
<article><h3>You might also like</h3>
  <article><p>{LONG_2}</p></article>
  <article><p>{LONG_2} {LONG_1}</p></article>
</article></div></body></html>"#
    );
    let out = run(&html);
    assert!(out.text.contains(LONG_1) && out.text.contains(LONG_3));
    assert!(!out.text.contains(LONG_2), "{:?}", out.text);
}

#[test]
fn a_page_that_is_only_a_discussion_gives_the_comments() {
    let html = format!(
        r#"<html><body><table class="fatitem"><tr><td><a href="https://example.org/pkl">Pkl, a language for configuration</a></td></tr></table>
<div class="comment-tree"><div class="comment"><p>{LONG_1}</p></div><div class="comment"><p>{LONG_2}</p></div></div></body></html>"#
    );
    let out = run(&html);
    assert_eq!(out.strategy, Strategy::ProseFallback);
    assert!(out.text.contains(LONG_1) && out.text.contains(LONG_2));
}

#[test]
fn a_lead_paragraph_dense_with_links_is_kept() {
    let html = format!(
        r#"<html><body><article><p><b>Rust</b> is a <a href="/wiki/GP">general-purpose</a> <a href="/wiki/PL">programming language</a>. It is noted for its emphasis on <a href="/wiki/P">performance</a>, <a href="/wiki/TS">type safety</a>, <a href="/wiki/C">concurrency</a>, and <a href="/wiki/MS">memory safety</a>.</p>
<p>{LONG_1}</p><p>{LONG_2}</p><p>Read more: <a href="/other">Another story entirely</a></p></article></body></html>"#
    );
    let out = run(&html);
    assert!(
        out.text
            .starts_with("Rust is a general-purpose programming language."),
        "{:?}",
        out.text
    );
    assert!(!out.text.contains("Another story"));
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let mut html = String::with_capacity(depth * 11 + 200);
    for _ in 0..depth {
        html.push_str("<div>");
    }
    html.push_str(LONG_1);
    for _ in 0..depth {
        html.push_str("</div>");
    }
    let out = run(&html);
    assert!(out.text.contains("bicycle network"));
}

#[test]
fn output_serialises_to_json() {
    let html = news_page().replace(
        &format!("<p>{LONG_2}"),
        &format!("<h2>Reactions</h2><p>{LONG_2}"),
    );
    let out = run_at(&html, "https://example.com/news/bike-lanes");
    assert!(
        out.blocks
            .iter()
            .any(|b| matches!(b.kind, BlockKind::Heading { level: 2 }))
    );
    let json = serde_json::to_value(&out).expect("Extracted serialises");
    assert_eq!(json["title"], "Council expands bike lanes");
    assert_eq!(json["strategy"], "container");
    let back: Extracted = serde_json::from_value(json).expect("and deserialises");
    assert_eq!(back.text, out.text);
}

#[test]
fn a_time_element_without_datetime_gives_its_text_when_that_is_a_date() {
    let html = format!(
        r#"<html><body><article><p class="meta"><time>3 hours ago</time> · Posted on <time>May 3, 2024</time></p><p>{LONG_1}</p><p>{LONG_2}</p></article></body></html>"#
    );
    assert_eq!(run(&html).published.as_deref(), Some("2024-05-03"));
}
