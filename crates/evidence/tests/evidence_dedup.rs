//! Evidence dedup through the public API: each merge rule, the guards
//! against false merges, which copy is kept, and that nothing is lost.

use ferret_core::Provenance;
use ferret_core::Runtime;
use ferret_evidence::evidence_dedup::{
    DedupError, DedupOptions, MergeReason, SAME_SOURCE_FLAG, dedup_evidence, text_simhash,
    title_jaccard,
};
use ferret_evidence::evidence_item::{EvidenceItem, EvidenceItemError, SourceTier};

const VOCABULARY: &[&str] = &[
    "harbour",
    "council",
    "measured",
    "river",
    "bridge",
    "season",
    "engineers",
    "reported",
    "samples",
    "north",
    "budget",
    "voters",
    "tunnel",
    "winter",
    "survey",
    "growth",
    "farmers",
    "coast",
    "museum",
    "library",
    "station",
    "signal",
    "market",
    "prices",
    "school",
    "teachers",
    "forest",
    "rainfall",
    "records",
    "hospital",
    "patients",
    "vaccine",
    "orbit",
    "telescope",
    "galaxy",
    "island",
    "ferry",
    "cargo",
    "festival",
    "orchestra",
    "painting",
    "archive",
    "court",
    "ruling",
    "appeal",
    "mayor",
    "district",
    "housing",
    "rents",
    "workers",
    "union",
    "strike",
    "factory",
    "battery",
    "charging",
    "network",
    "outage",
    "storm",
    "flood",
    "drought",
    "wildfire",
    "smoke",
    "glacier",
    "melting",
    "species",
    "birds",
    "migration",
];

/// About 220 words of text, different for every topic (a SplitMix64
/// stream seeded by the topic picks the words).
fn article(topic: &str) -> String {
    let mut state = topic.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as usize
    };
    let mut s = String::new();
    for _ in 0..12 {
        let words: Vec<&str> = (0..18)
            .map(|_| VOCABULARY[next() % VOCABULARY.len()])
            .collect();
        s.push_str(&format!("About {topic}: {}.\n\n", words.join(" ")));
    }
    s
}

fn fetched(id: &str, url: &str, title: &str, text: &str) -> EvidenceItem {
    EvidenceItem::new(id, url, Provenance::public(Runtime::Http))
        .expect("valid URL")
        .with_title(title)
        .with_fetched_text(text)
}

fn dedup(items: Vec<EvidenceItem>) -> ferret_evidence::evidence_dedup::DedupReport {
    dedup_evidence(items, &DedupOptions::default()).expect("dedup")
}

#[test]
fn the_same_canonical_url_is_one_source() {
    let text = article("tides");
    let report = dedup(vec![
        fetched("e1", "https://example.com/tides", "Tides", &text),
        fetched(
            "e2",
            "http://www.example.com/tides/?utm_source=x#top",
            "Tides",
            "different text entirely",
        ),
    ]);
    assert_eq!(report.items.len(), 1);
    assert_eq!(report.items[0].merged[0].reason, MergeReason::CanonicalUrl);
}

#[test]
fn a_copy_with_changed_whitespace_merges_by_text_simhash() {
    let text = article("glaciers");
    let reflowed = text.replace("\n\n", "\n").replace(". ", ".  ");
    let report = dedup(vec![
        fetched("e1", "https://glacier.example/report", "Report", &text),
        fetched(
            "e2",
            "https://mirror.example/glacier",
            "Mirror copy",
            &reflowed,
        ),
    ]);
    assert_eq!(report.items.len(), 1, "{report:#?}");
    assert!(matches!(
        report.items[0].merged[0].reason,
        MergeReason::TextSimhash { distance } if distance <= 3
    ));
}

#[test]
fn a_syndicated_copy_with_a_site_suffix_merges_by_title_shingles() {
    let text = article("volcanoes");
    let mut copy = String::from("This story originally appeared on volcano.example.\n\n");
    copy.push_str(&text[..text.len() * 2 / 3]);
    copy.push_str("\n\nDistributed by Example Wire. All rights reserved.");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://volcano.example/a",
            "Scientists map the magma chamber under Etna",
            &text,
        ),
        fetched(
            "e2",
            "https://news.yahoo.com/etna",
            "Scientists map the magma chamber under Etna | Yahoo News",
            &copy,
        ),
    ]);
    assert_eq!(report.items.len(), 1);
    let MergeReason::TitleShingles {
        jaccard,
        text_containment,
    } = report.items[0].merged[0].reason
    else {
        panic!("{:?}", report.items[0].merged[0].reason);
    };
    assert_eq!(jaccard, 1.0);
    assert!(text_containment.expect("both have text") >= 0.5);
}

#[test]
fn a_trimmed_copy_under_a_new_headline_merges_by_text_containment() {
    let text = article("rivers");
    let mut copy = String::from("Republished with permission. Subscribe for more.\n\n");
    copy.push_str(&text[..text.len() / 2]);
    let report = dedup(vec![
        fetched("e1", "https://rivers.example/a", "River levels fall", &text),
        fetched(
            "e2",
            "https://wire.example/b",
            "Drought: what the data says",
            &copy,
        ),
    ]);
    assert_eq!(report.items.len(), 1);
    assert!(matches!(
        report.items[0].merged[0].reason,
        MergeReason::TextContainment { containment } if containment >= 0.8
    ));
}

#[test]
fn different_pages_sharing_a_headline_stay_apart() {
    let report = dedup(vec![
        fetched(
            "e1",
            "https://a.example/1",
            "What we learned this week in science",
            &article("comets"),
        ),
        fetched(
            "e2",
            "https://b.example/2",
            "What we learned this week in science",
            &article("bees"),
        ),
    ]);
    assert_eq!(report.items.len(), 2);
    assert_eq!(report.merged, 0);
}

#[test]
fn pages_of_one_site_sharing_boilerplate_stay_apart() {
    let boilerplate = article("site policies");
    let a = format!("Storm closes the harbour.\n\n{boilerplate}");
    let b = format!("Council approves the new budget.\n\n{boilerplate}");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://town.example/storm",
            "Storm closes harbour",
            &a,
        ),
        fetched(
            "e2",
            "https://town.example/budget",
            "Council passes budget",
            &b,
        ),
    ]);
    assert_eq!(report.items.len(), 2, "{report:#?}");
}

#[test]
fn the_highest_tier_copy_is_kept_and_flagged() {
    let text = article("compilers");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://someblog.example/rustc",
            "rustc internals explained",
            &text,
        )
        .with_rank(1),
        fetched(
            "e2",
            "https://doc.rust-lang.org/rustc/",
            "rustc internals explained",
            &text,
        )
        .with_rank(9),
    ]);
    let kept = &report.items[0];
    assert_eq!(kept.item.id, "e2");
    assert_eq!(kept.item.source_tier, SourceTier::T1);
    assert_eq!(kept.flags, vec![SAME_SOURCE_FLAG]);
    assert_eq!(kept.merged[0].item.id, "e1");
}

#[test]
fn between_equal_tiers_the_best_rank_is_kept() {
    let text = article("lichens");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://a.example/x",
            "Lichens survive in orbit",
            &text,
        )
        .with_rank(7),
        fetched(
            "e2",
            "https://b.example/y",
            "Lichens survive in orbit",
            &text,
        )
        .with_rank(2),
    ]);
    assert_eq!(report.items[0].item.id, "e2");
}

#[test]
fn nothing_is_lost_when_copies_are_merged() {
    let text = article("owls");
    let extra = format!("{text}\n\nA correction was appended to this copy only.");
    let input = vec![
        fetched(
            "e1",
            "https://owls.example/a",
            "Owls hunt by sound at night",
            &text,
        )
        .with_published_at("2024-01-02"),
        fetched(
            "e2",
            "https://wire.example/owls",
            "Owls hunt by sound at night - Wire",
            &extra,
        ),
        EvidenceItem::new(
            "e3",
            "https://owls.example/a?utm_medium=email",
            Provenance::public(Runtime::Http),
        )
        .expect("url")
        .with_title("Owls"),
        fetched(
            "e4",
            "https://other.example/",
            "Unrelated page",
            &article("tax law"),
        ),
    ];
    let report = dedup(input.clone());
    let mut ids: Vec<&str> = report.all_ids().collect();
    ids.sort_unstable();
    assert_eq!(ids, vec!["e1", "e2", "e3", "e4"]);
    for original in &input {
        let holder = report.holder_of(&original.id).expect("held");
        let found = std::iter::once(&holder.item)
            .chain(holder.merged.iter().map(|m| &m.item))
            .find(|i| i.id == original.id)
            .expect("present");
        assert_eq!(found, original);
    }
    let owls = report.holder_of("e1").expect("owls");
    let e2 = owls
        .merged
        .iter()
        .find(|m| m.item.id == "e2")
        .expect("e2 merged");
    assert_eq!(
        e2.unique_chars,
        "A correction was appended to this copy only".len()
    );
    assert_eq!(report.input, 4);
    assert_eq!(report.merged, 2);
}

#[test]
fn kept_items_follow_the_input_order_of_their_earliest_member() {
    let text = article("moss");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://blog.example/moss",
            "Moss grows on the north side",
            &text,
        ),
        fetched(
            "e2",
            "https://other.example/",
            "Unrelated",
            &article("ferries"),
        ),
        fetched(
            "e3",
            "https://docs.example.org/moss",
            "Moss grows on the north side",
            &text,
        )
        .with_tier(SourceTier::T1),
    ]);
    let kept: Vec<&str> = report.items.iter().map(|d| d.item.id.as_str()).collect();
    assert_eq!(kept, vec!["e3", "e2"]);
}

#[test]
fn unfetched_results_merge_by_title_alone() {
    let report = dedup(vec![
        EvidenceItem::new(
            "e1",
            "https://a.example/x",
            Provenance::public(Runtime::Http),
        )
        .expect("url")
        .with_title("Rust 1.80 released with LazyCell and LazyLock"),
        EvidenceItem::new(
            "e2",
            "https://b.example/y",
            Provenance::public(Runtime::Http),
        )
        .expect("url")
        .with_title("Rust 1.80 released with LazyCell and LazyLock | B News"),
    ]);
    assert_eq!(report.items.len(), 1);
}

#[test]
fn repeated_ids_are_refused() {
    let item = fetched("e1", "https://a.example/", "A", "text");
    let err = dedup_evidence(vec![item.clone(), item], &DedupOptions::default()).unwrap_err();
    assert_eq!(
        err,
        DedupError::Items(EvidenceItemError::DuplicateId { id: "e1".into() })
    );
}

#[test]
fn out_of_range_options_are_refused() {
    let options = DedupOptions {
        title_jaccard: 1.2,
        ..DedupOptions::default()
    };
    let err = dedup_evidence(Vec::new(), &options).unwrap_err();
    assert!(
        matches!(
            err,
            DedupError::Option(ferret_evidence::option_error::OptionError {
                name: "title_jaccard",
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn short_titles_never_match_by_shingles() {
    assert_eq!(title_jaccard("Home", "Home", 4), None);
    assert_eq!(
        title_jaccard("Rust 1.80 is out | Blog", "Rust 1.80 is out - News", 4),
        Some(1.0)
    );
}

#[test]
fn the_text_simhash_ignores_whitespace() {
    let text = article("kelp");
    assert_eq!(
        text_simhash(&text).simhash,
        text_simhash(&text.replace(' ', "  ")).simhash
    );
}

#[test]
fn the_report_round_trips_through_json() {
    let text = article("tea");
    let report = dedup(vec![
        fetched(
            "e1",
            "https://a.example/tea",
            "Tea prices climb after poor harvest",
            &text,
        ),
        fetched(
            "e2",
            "https://b.example/tea",
            "Tea prices climb after poor harvest",
            &text,
        ),
    ]);
    let json = serde_json::to_value(&report).expect("serialise");
    assert_eq!(json["schema"], "ferret.evidence-dedup.v1");
    assert_eq!(
        json["items"][0]["merged"][0]["reason"]["rule"],
        "text_simhash"
    );
    let back: ferret_evidence::evidence_dedup::DedupReport =
        serde_json::from_value(json).expect("deserialise");
    assert_eq!(back, report);
}
