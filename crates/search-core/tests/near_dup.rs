//! Near-duplicate fingerprints and titles through the public API.

use ferret_core::near_dup::{Fingerprint, NearDupOptions, title_without_site_name, token_hash};

/// A small deterministic generator (xorshift64; `state` not zero).
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn each_separator_cuts_a_site_name() {
    for sep in [" | ", " - ", " – ", " — ", " · ", " :: ", " » "] {
        let title = format!("Announcing Rust 1.80.0{sep}Rust Blog");
        assert_eq!(
            title_without_site_name(&title),
            "Announcing Rust 1.80.0",
            "{title}"
        );
    }
    assert_eq!(title_without_site_name("异步编程_知乎"), "异步编程");
    assert_eq!(title_without_site_name("异步编程｜知乎"), "异步编程");
    // `_` separates only in CJK titles.
    assert_eq!(title_without_site_name("snake_case"), "snake_case");
    assert_eq!(title_without_site_name("  no separator  "), "no separator");
}

#[test]
fn repeated_features_count_once() {
    // One short-title feature, and the shingles abc, bca, cab said
    // again and again.
    let fp = Fingerprint::of("x", "a b c a b c a b c a b c");
    assert_eq!(fp.features, 4);
    assert_eq!(fp.chars, 24);
}

#[test]
fn unrelated_texts_are_far_apart() {
    // 200 texts of 8 + 30 words drawn from 500 words share words but
    // say nothing alike: their SimHashes differ in about half the bits
    // and no two come near the clustering threshold.
    let vocabulary: Vec<String> = (0..500).map(|i| format!("word{i}")).collect();
    let mut state = 11;
    let mut text = |n: usize| {
        (0..n)
            .map(|_| vocabulary[xorshift(&mut state) as usize % vocabulary.len()].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let fps: Vec<Fingerprint> = (0..200)
        .map(|_| {
            let (title, snippet) = (text(8), text(30));
            Fingerprint::of(&title, &snippet)
        })
        .collect();
    let (mut sum, mut pairs, mut closest) = (0u64, 0u64, 64);
    for (i, a) in fps.iter().enumerate() {
        for b in &fps[i + 1..] {
            let d = a.distance(b);
            sum += u64::from(d);
            pairs += 1;
            closest = closest.min(d);
        }
    }
    let mean = sum as f64 / pairs as f64;
    assert!((30.0..=34.0).contains(&mean), "mean distance {mean}");
    assert!(
        closest > 2 * NearDupOptions::default().threshold,
        "closest {closest}"
    );
}

#[test]
fn words_of_every_length_hash_apart() {
    let words: Vec<String> = (1..40).map(|n| "ab".repeat(n)[..n].to_string()).collect();
    let mut hashes: Vec<u64> = words.iter().map(|w| token_hash(w)).collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), words.len());
}
