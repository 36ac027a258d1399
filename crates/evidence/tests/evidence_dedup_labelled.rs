//! Evidence dedup on a labelled set built from the 181 real pages of the
//! article-extraction benchmark (read at test time from
//! `$FERRET_SHARED/bench/article-extraction`, or
//! `<workspace>/../shared/...`; skipped with a note when absent).
//!
//! ## How the labelled set is built (deterministic: SplitMix64, seed
//! `0x5EED_D0D0`, pages in id order)
//!
//! Every page is extracted with `ferret_evidence::extract::extract` and
//! becomes an *original* item (its real URL, title and text). Then reprints
//! are made by realistic transformations — each reprint is labelled with its
//! page, and every pair of items from different pages is a negative:
//!
//! - **Syndicated copy** (every page): the page's extracted blocks are
//!   re-rendered in a syndicator's own template (one of four hosts, so about
//!   45 copies share each template's header, navigation, "originally
//!   appeared on" line, copyright footer and related-links box), the tail is
//!   cut to 75–95 % of the blocks, paragraphs get varied markup and
//!   whitespace, and the title gets the syndicator's suffix
//!   (`… | Yahoo News`). Its URL is on the syndicator's host.
//! - **Mirror** (about half the pages): the original HTML with whitespace
//!   and markup changes (line breaks after paragraphs, attributes on `<p>`,
//!   a banner paragraph) served from a mirror host.
//! - **URL variant** (about a quarter): the same page under its URL with
//!   tracking parameters, a fragment and `http:`/`www.` changes.
//!
//! Negatives include genuinely different pages of one domain (the set holds
//! 55 domains with two pages each) and the syndicated copies of different
//! pages, which share their syndicator's boilerplate.
//!
//! Measured: pair precision, pair recall, false merges (pairs of different
//! pages in one cluster) and information loss (input items whose id, URL,
//! title, text or date cannot be found intact in the report). The test
//! asserts precision ≥ 0.9, zero false merges and zero information loss,
//! and prints the numbers.

use ferret_core::Provenance;
use ferret_core::Runtime;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::PathBuf;

use ferret_evidence::evidence_dedup::{DedupOptions, MergeReason, dedup_evidence};
use ferret_evidence::evidence_item::EvidenceItem;
use ferret_evidence::extract::{BlockKind, ExtractOptions, Extracted, extract};
use url::Url;

const SEED: u64 = 0x5EED_D0D0;

fn bench_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("bench/article-extraction");
    dir.join("ground-truth.json").is_file().then_some(dir)
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Syndicator {
    host: &'static str,
    suffix: &'static str,
    name: &'static str,
}

const SYNDICATORS: &[Syndicator] = &[
    Syndicator {
        host: "news.yahoo.com",
        suffix: " | Yahoo News",
        name: "Yahoo News",
    },
    Syndicator {
        host: "www.msn.com",
        suffix: " - MSN",
        name: "MSN",
    },
    Syndicator {
        host: "flipboard.com",
        suffix: " – Flipboard",
        name: "Flipboard",
    },
    Syndicator {
        host: "www.newsbreak.com",
        suffix: " | NewsBreak",
        name: "NewsBreak",
    },
];

const MIRRORS: &[&str] = &["archive.ph", "web-mirror.net", "cachedview.org"];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn page_html(path: &std::path::Path) -> String {
    let file = std::fs::File::open(path).expect("open page");
    let mut gz = flate2::read::GzDecoder::new(file);
    let mut bytes = Vec::new();
    gz.read_to_end(&mut bytes).expect("gunzip page");
    String::from_utf8_lossy(&bytes).into_owned()
}

fn extracted(html: &str, url: &str) -> Extracted {
    let url = Url::parse(url).ok();
    extract(html, url.as_ref(), &ExtractOptions::default())
}

/// A syndicator's page for an extracted article (see the module docs).
fn syndicated_html(page: &Extracted, orig_host: &str, s: &Syndicator, rng: &mut Rng) -> String {
    let title = page.title.clone().unwrap_or_default();
    let blocks = &page.blocks;
    let keep = ((blocks.len() as f64) * (0.75 + 0.20 * rng.unit())).ceil() as usize;
    let keep = keep.clamp(1.min(blocks.len()), blocks.len());
    let mut body = String::new();
    for b in &blocks[..keep] {
        let text = escape(&b.text);
        let html = match b.kind {
            BlockKind::Heading { .. } => format!("<h2>{text}</h2>"),
            BlockKind::ListItem { .. } => format!("<ul><li>{text}</li></ul>"),
            BlockKind::Code => format!("<pre>{text}</pre>"),
            _ => match rng.below(3) {
                0 => format!("<p>{text}</p>"),
                1 => format!(
                    "<p class=\"body-text\">\n      {}\n    </p>",
                    text.replace(". ", ".\n      ")
                ),
                _ => format!("<div class=\"para\"><p>{text}</p></div>"),
            },
        };
        body.push_str(&html);
        body.push('\n');
    }
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{title_e}{suffix}</title>
<meta property="og:site_name" content="{name}">
</head><body>
<header class="site-header"><a href="/">{name}</a>
<nav><a href="/news">News</a> <a href="/sports">Sports</a> <a href="/finance">Finance</a> <a href="/entertainment">Entertainment</a> <a href="/weather">Weather</a></nav></header>
<main><article>
<h1>{title_e}</h1>
<p class="byline">By {name} partner content · Updated 3 hours ago</p>
<p><em>This story originally appeared on {orig_host} and is republished here with permission.</em></p>
{body}
<p>© 2019 {orig_host}. Distributed by {name} Content Services. All rights reserved. This material may not be published, broadcast, rewritten or redistributed.</p>
</article></main>
<aside class="related"><h3>More from {name}</h3><ul><li><a href="/a">Stocks slide as investors weigh the latest jobs report</a></li><li><a href="/b">Ten gadgets worth buying this holiday season</a></li><li><a href="/c">Weather service warns of heavy snow in the northeast</a></li></ul></aside>
<footer><p>© 2019 {name}. Terms · Privacy · Advertise · Help</p></footer>
</body></html>"#,
        title_e = escape(&title),
        suffix = s.suffix,
        name = s.name,
    )
}

/// The original HTML with whitespace and markup changes and a banner.
fn mirrored_html(html: &str, mirror: &str) -> String {
    let mut out = html
        .replace("</p>", "</p>\n\n")
        .replace("<p>", "<p data-mirror=\"1\">");
    if let Some(at) = out.find("<body")
        && let Some(close) = out[at..].find('>')
    {
        let pos = at + close + 1;
        out.insert_str(
            pos,
            &format!("\n<div class=\"mirror-banner\">Archived copy saved by {mirror}.</div>\n"),
        );
    }
    out
}

fn url_variant(url: &str, rng: &mut Rng) -> String {
    let mut u = Url::parse(url).expect("page url");
    if rng.below(2) == 0 {
        let _ = u.set_scheme("http");
    }
    if let Some(host) = u.host_str().map(str::to_owned) {
        let toggled = match host.strip_prefix("www.") {
            Some(rest) => rest.to_string(),
            None => format!("www.{host}"),
        };
        let _ = u.set_host(Some(&toggled));
    }
    u.query_pairs_mut()
        .append_pair("utm_source", "twitter")
        .append_pair("utm_medium", "social");
    u.set_fragment(Some("comments"));
    u.to_string()
}

fn slug(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| {
            u.path_segments()
                .and_then(|mut s| s.next_back().map(str::to_owned))
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "story".into())
}

struct Labelled {
    items: Vec<EvidenceItem>,
    /// Item id → page index.
    page_of: HashMap<String, usize>,
    /// Item id → is the original.
    original: HashMap<String, bool>,
    kinds: BTreeMap<&'static str, usize>,
}

fn build_set(dir: &std::path::Path) -> Labelled {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ground-truth.json")).expect("ground truth"),
    )
    .expect("ground truth JSON");
    let mut ids: Vec<&String> = truth.as_object().expect("object").keys().collect();
    ids.sort();
    let mut rng = Rng(SEED);
    let mut items = Vec::new();
    let mut page_of = HashMap::new();
    let mut original = HashMap::new();
    let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut push = |item: EvidenceItem,
                    page: usize,
                    is_original: bool,
                    kind: &'static str,
                    items: &mut Vec<EvidenceItem>| {
        page_of.insert(item.id.clone(), page);
        original.insert(item.id.clone(), is_original);
        *kinds.entry(kind).or_default() += 1;
        items.push(item);
    };
    for (n, id) in ids.iter().enumerate() {
        let url = truth[id.as_str()]["url"].as_str().expect("url").to_string();
        let html = page_html(&dir.join("html").join(format!("{id}.html.gz")));
        let page = extracted(&html, &url);
        let host = Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let rank = (n * 4 + 1) as u32;
        let orig = EvidenceItem::new(
            format!("p{n}"),
            url.clone(),
            Provenance::public(Runtime::Http),
        )
        .expect("page URL")
        .with_title(page.title.clone().unwrap_or_default())
        .with_fetched_text(page.text.clone())
        .with_rank(rank);
        let orig = match &page.published {
            Some(d) => orig.with_published_at(d.clone()),
            None => orig,
        };
        push(orig, n, true, "original", &mut items);

        let s = &SYNDICATORS[rng.below(SYNDICATORS.len())];
        let synd_url = format!("https://{}/{}-{n}?utm_source=rss", s.host, slug(&url));
        let synd = extracted(&syndicated_html(&page, &host, s, &mut rng), &synd_url);
        let item = EvidenceItem::new(
            format!("p{n}-synd"),
            synd_url,
            Provenance::public(Runtime::Http),
        )
        .expect("syndicator URL")
        .with_title(synd.title.unwrap_or_default())
        .with_fetched_text(synd.text)
        .with_rank(rank + 1);
        push(item, n, false, "syndicated", &mut items);

        if rng.below(2) == 0 {
            let mirror = MIRRORS[rng.below(MIRRORS.len())];
            let mirror_url = format!("https://{mirror}/{host}/{}", slug(&url));
            let m = extracted(&mirrored_html(&html, mirror), &mirror_url);
            let item = EvidenceItem::new(
                format!("p{n}-mirror"),
                mirror_url,
                Provenance::public(Runtime::Http),
            )
            .expect("mirror URL")
            .with_title(m.title.unwrap_or_default())
            .with_fetched_text(m.text)
            .with_rank(rank + 2);
            push(item, n, false, "mirror", &mut items);
        }
        if rng.below(4) == 0 {
            let item = EvidenceItem::new(
                format!("p{n}-url"),
                url_variant(&url, &mut rng),
                Provenance::public(Runtime::Http),
            )
            .expect("variant URL")
            .with_title(page.title.clone().unwrap_or_default())
            .with_fetched_text(page.text.clone())
            .with_rank(rank + 3);
            push(item, n, false, "url_variant", &mut items);
        }
    }
    // Shuffle (Fisher–Yates) so that input order says nothing.
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
    Labelled {
        items,
        page_of,
        original,
        kinds,
    }
}

/// Pair counts of a report: (true merges, false merges, missed).
fn pair_counts(
    input: &[EvidenceItem],
    page_of: &HashMap<String, usize>,
    report: &ferret_evidence::evidence_dedup::DedupReport,
) -> (u64, u64, u64) {
    let mut cluster: HashMap<&str, usize> = HashMap::new();
    for (c, d) in report.items.iter().enumerate() {
        for id in d.ids() {
            cluster.insert(id, c);
        }
    }
    let (mut tp, mut fp, mut fneg) = (0, 0, 0);
    for i in 0..input.len() {
        for j in i + 1..input.len() {
            let (a, b) = (&input[i].id, &input[j].id);
            match (
                page_of[a] == page_of[b],
                cluster.get(a.as_str()) == cluster.get(b.as_str()),
            ) {
                (true, true) => tp += 1,
                (false, true) => fp += 1,
                (true, false) => fneg += 1,
                (false, false) => {}
            }
        }
    }
    (tp, fp, fneg)
}

#[test]
fn dedup_on_the_labelled_benchmark_set_merges_reprints_without_false_merges_or_loss() {
    let Some(dir) = bench_dir() else {
        eprintln!("skipped: ../shared not present");
        return;
    };
    let set = build_set(&dir);
    let input = set.items.clone();
    let started = std::time::Instant::now();
    let report = dedup_evidence(set.items, &DedupOptions::default()).expect("dedup");
    let dedup_ms = started.elapsed().as_millis();

    // Cluster of every id.
    let mut cluster: HashMap<&str, usize> = HashMap::new();
    for (c, d) in report.items.iter().enumerate() {
        for id in d.ids() {
            cluster.insert(id, c);
        }
    }

    // Pairs.
    let (mut tp, mut fp, mut fneg) = (0u64, 0u64, 0u64);
    let mut false_pairs = Vec::new();
    for i in 0..input.len() {
        for j in i + 1..input.len() {
            let (a, b) = (&input[i].id, &input[j].id);
            let same_page = set.page_of[a] == set.page_of[b];
            let same_cluster = cluster.get(a.as_str()) == cluster.get(b.as_str());
            match (same_page, same_cluster) {
                (true, true) => tp += 1,
                (false, true) => {
                    fp += 1;
                    false_pairs.push((a.clone(), b.clone()));
                }
                (true, false) => fneg += 1,
                (false, false) => {}
            }
        }
    }
    let precision = if tp + fp == 0 {
        1.0
    } else {
        tp as f64 / (tp + fp) as f64
    };
    let recall = if tp + fneg == 0 {
        1.0
    } else {
        tp as f64 / (tp + fneg) as f64
    };

    // Information loss: every input item intact, exactly once.
    let mut found: HashMap<&str, &EvidenceItem> = HashMap::new();
    let mut duplicates = 0;
    for d in &report.items {
        for item in std::iter::once(&d.item).chain(d.merged.iter().map(|m| &m.item)) {
            if found.insert(&item.id, item).is_some() {
                duplicates += 1;
            }
        }
    }
    let lost: Vec<&str> = input
        .iter()
        .filter(|i| found.get(i.id.as_str()).is_none_or(|f| *f != *i))
        .map(|i| i.id.as_str())
        .collect();

    // Kept item: the original (better rank, same tier) whenever its cluster
    // has one.
    let mut kept_wrong = Vec::new();
    for d in &report.items {
        let has_original = d.ids().any(|id| set.original[id]);
        if has_original
            && !set.original[&d.item.id]
            && d.item.source_tier
                >= d.merged
                    .iter()
                    .map(|m| m.item.source_tier)
                    .min()
                    .unwrap_or(d.item.source_tier)
        {
            let orig = d.ids().find(|id| set.original[*id]).unwrap_or_default();
            let orig_tier = input.iter().find(|i| i.id == orig).map(|i| i.source_tier);
            if orig_tier <= Some(d.item.source_tier) {
                kept_wrong.push(d.item.id.clone());
            }
        }
    }
    let mut reasons: BTreeMap<&'static str, usize> = BTreeMap::new();
    for d in &report.items {
        for m in &d.merged {
            let name = match m.reason {
                MergeReason::CanonicalUrl => "canonical_url",
                MergeReason::TextSimhash { .. } => "text_simhash",
                MergeReason::TitleShingles { .. } => "title_shingles",
                MergeReason::TextContainment { .. } => "text_containment",
            };
            *reasons.entry(name).or_default() += 1;
        }
    }
    let missed: Vec<(String, String)> = {
        let mut v = Vec::new();
        for i in 0..input.len() {
            for j in i + 1..input.len() {
                let (a, b) = (&input[i].id, &input[j].id);
                if set.page_of[a] == set.page_of[b]
                    && cluster.get(a.as_str()) != cluster.get(b.as_str())
                {
                    v.push((a.clone(), b.clone()));
                }
            }
        }
        v
    };
    eprintln!(
        "evidence dedup labelled set (seed {SEED:#x}): {} items ({:?}), {} pages; {} clusters",
        input.len(),
        set.kinds,
        set.page_of.values().max().map_or(0, |m| m + 1),
        report.items.len()
    );
    eprintln!(
        "  pairs: true merges {tp}, false merges {fp}, missed {fneg}; precision {precision:.4}, recall {recall:.4}"
    );
    eprintln!(
        "  info loss: {} items ({} duplicated); kept a worse copy over the original: {}",
        lost.len(),
        duplicates,
        kept_wrong.len()
    );
    eprintln!("  merges by rule: {reasons:?}; dedup took {dedup_ms} ms");
    for (a, b) in missed.iter().take(20) {
        eprintln!("  missed: {a} ~ {b}");
    }
    for (a, b) in false_pairs.iter().take(20) {
        eprintln!("  FALSE MERGE: {a} ~ {b}");
    }

    // For comparison (not asserted): rules 1-3 alone, without the text
    // check on title matches, the same-site guard or rule 4.
    let basic_rules = DedupOptions {
        title_text_containment: 0.0,
        same_site_title_similarity: 0.0,
        text_containment: 2.0,
        ..DedupOptions::default()
    };
    let baseline = dedup_evidence(input.clone(), &basic_rules).expect("baseline dedup");
    let (btp, bfp, bfn) = pair_counts(&input, &set.page_of, &baseline);
    eprintln!(
        "  rules 1-3 only: true merges {btp}, false merges {bfp}, missed {bfn}; precision {:.4}, recall {:.4}",
        btp as f64 / (btp + bfp).max(1) as f64,
        btp as f64 / (btp + bfn).max(1) as f64
    );
    assert_eq!(pair_counts(&input, &set.page_of, &report), (tp, fp, fneg));

    assert!(fp == 0, "false merges: {false_pairs:?}");
    assert!(precision >= 0.9, "precision {precision}");
    assert!(recall >= 0.9, "recall {recall} (missed: {missed:?})");
    assert!(
        lost.is_empty() && duplicates == 0,
        "information lost: {lost:?}"
    );
    assert!(
        kept_wrong.is_empty(),
        "kept a copy over the original: {kept_wrong:?}"
    );
    assert_eq!(report.input, input.len());
    assert_eq!(report.input, report.items.len() + report.merged);
}
