//! Tests of intent classification and the profile table.

use proptest::prelude::*;

use super::signals::{NEUTRAL_PHRASES, PRIORITY, SIGNALS, WINDOW_CUES};
use super::*;
use crate::query::{Freshness, Intent, Mode, Weights};

fn intent_of(query: &str) -> Intent {
    classify(query).intent
}

fn signal_texts(c: &Classification) -> Vec<&str> {
    c.signals.iter().map(|s| s.text.as_str()).collect()
}

// ---- each intent's signals, English and Chinese ----

#[test]
fn factual_signals_in_english_and_chinese() {
    for q in [
        "What is WebTransport",
        "define idempotency",
        "HTTP 418 meaning",
        "who is Linus Torvalds",
        "when did Rust 1.0 ship",
        "什么是 WebAssembly",
        "WebAssembly 是什么",
        "幂等 的定义",
        "CRDT 是什么意思",
    ] {
        assert_eq!(intent_of(q), Intent::Factual, "{q}");
    }
}

#[test]
fn status_signals_in_english_and_chinese() {
    for q in [
        "Deno latest",
        "Bun update",
        "what's new in Rust",
        "What’s new in Rust",
        "Zig roadmap",
        "Node 22 release",
        "Deno 最新进展",
        "RISC-V 现状",
        "WebGPU 进展",
        "Servo 最近",
        "鸿蒙 目前",
    ] {
        assert_eq!(intent_of(q), Intent::Status, "{q}");
    }
}

#[test]
fn comparison_signals_in_english_and_chinese() {
    for q in [
        "Bun vs Deno",
        "Bun VS Deno",
        "Bun vs. Deno",
        "Bun versus Deno",
        "Postgres compared to MySQL",
        "difference between TCP and UDP",
        "Webpack alternatives",
        "Bun 和 Deno 的区别",
        "Vue 还是 React",
        "Rust 对比 Go",
        "比较 Python 和 Ruby",
        "Python or Go",
    ] {
        assert_eq!(intent_of(q), Intent::Comparison, "{q}");
    }
}

#[test]
fn tutorial_signals_in_english_and_chinese() {
    for q in [
        "how to write a Rust CLI",
        "Rust CLI tutorial",
        "Axum guide",
        "getting started with Tauri",
        "step by step Kubernetes",
        "serde example",
        "怎么做 Rust CLI",
        "如何 部署 Axum",
        "Rust 教程",
        "Tauri 入门",
        "k8s 指南",
    ] {
        assert_eq!(intent_of(q), Intent::Tutorial, "{q}");
    }
}

#[test]
fn exploratory_signals_in_english_and_chinese() {
    for q in [
        "Rust deep dive",
        "WebAssembly ecosystem",
        "overview of vector databases",
        "everything about RISC-V",
        "AI agent landscape",
        "深入了解 Rust",
        "Rust 生态",
        "关于 RISC-V 的一切",
    ] {
        let c = classify(q);
        assert_eq!(c.intent, Intent::Exploratory, "{q}");
        assert!(!c.signals.is_empty(), "{q} should match a signal");
    }
}

#[test]
fn news_signals_in_english_and_chinese() {
    for q in [
        "AI news",
        "AI this week",
        "OpenAI today",
        "breaking: chip export rules",
        "Apple announcement",
        "AI 新闻",
        "本周 AI",
        "今日 科技",
        "科技 快讯",
    ] {
        assert_eq!(intent_of(q), Intent::News, "{q}");
    }
}

#[test]
fn resource_signals_in_english_and_chinese() {
    for q in [
        "Deno official site",
        "tokio GitHub",
        "serde docs",
        "Axum documentation",
        "Python download",
        "ripgrep repo",
        "SQLite source code",
        "Stripe API reference",
        "Deno 官网",
        "tokio GitHub 仓库",
        "Rust 文档",
        "VS Code 下载",
    ] {
        assert_eq!(intent_of(q), Intent::Resource, "{q}");
    }
}

#[test]
fn korean_and_japanese_signals() {
    assert_eq!(intent_of("파이썬 자바 비교"), Intent::Comparison);
    assert_eq!(intent_of("러스트 사용법"), Intent::Tutorial);
    assert_eq!(intent_of("AI 뉴스"), Intent::News);
    assert_eq!(intent_of("Rust 公式サイト"), Intent::Resource);
    assert_eq!(intent_of("Rust 使い方"), Intent::Tutorial);
}

#[test]
fn no_signal_defaults_to_exploratory() {
    let c = classify("RISC-V");
    assert_eq!(c.intent, Intent::Exploratory);
    assert!(c.signals.is_empty());
    assert!(c.reason.contains("default"), "{}", c.reason);
}

// ---- word boundaries and case ----

#[test]
fn english_signals_match_whole_words_only() {
    assert_eq!(intent_of("vsync settings"), Intent::Exploratory);
    assert_eq!(intent_of("dockside cafe"), Intent::Exploratory);
    assert_eq!(intent_of("docstrings in Python"), Intent::Exploratory);
    assert_eq!(intent_of("newsletter design"), Intent::Exploratory);
    assert_eq!(intent_of("guidelines for reviewers"), Intent::Exploratory);
    assert!(classify("reposition elements").signals.is_empty());
    // Punctuation and CJK are boundaries.
    assert_eq!(intent_of("Bun/vs/Deno"), Intent::Comparison);
    assert_eq!(intent_of("React教程"), Intent::Tutorial);
    assert_eq!(intent_of("tokio的GitHub"), Intent::Resource);
}

#[test]
fn english_signals_are_case_insensitive() {
    assert_eq!(intent_of("RUST TUTORIAL"), Intent::Tutorial);
    assert_eq!(intent_of("Serde Official Docs"), Intent::Resource);
    assert_eq!(intent_of("WHAT IS A MONAD"), Intent::Factual);
}

// ---- priority and specificity ----

#[test]
fn resource_outranks_status_deno_latest_download() {
    let c = classify("Deno 最新版本下载");
    assert_eq!(c.intent, Intent::Resource);
    let intents: Vec<Intent> = c.signals.iter().map(|s| s.intent).collect();
    assert!(intents.contains(&Intent::Status), "{intents:?}");
    assert!(c.reason.contains("status"), "{}", c.reason);
}

#[test]
fn comparison_with_a_recency_modifier_stays_a_comparison_with_freshness() {
    let c = classify("Bun vs Deno 最新对比");
    assert_eq!(c.intent, Intent::Comparison);
    assert!(c.has_recency_modifier());
    let f = c.freshness();
    assert_eq!(f.window, Some(Freshness::Pm));
    assert!(f.reason.contains("最新"), "{}", f.reason);
}

#[test]
fn strong_signals_follow_the_priority_order() {
    // Every pair of intents with strong signals: the higher priority wins.
    let strong = |i: Intent| {
        SIGNALS
            .iter()
            .find(|s| s.intent == i)
            .and_then(|s| s.strong.iter().find(|w| w.is_ascii() && !w.contains(' ')))
            .copied()
            .unwrap()
    };
    for (hi_rank, hi) in PRIORITY.iter().enumerate() {
        for lo in &PRIORITY[hi_rank + 1..] {
            let q = format!("alpha {} beta {} gamma", strong(*lo), strong(*hi));
            assert_eq!(intent_of(&q), *hi, "{q}");
        }
    }
}

#[test]
fn news_outranks_status_and_tutorial() {
    assert_eq!(intent_of("Rust latest news"), Intent::News);
    assert_eq!(intent_of("Rust 教程 新闻"), Intent::News);
    assert_eq!(intent_of("GitHub news this week"), Intent::Resource);
}

#[test]
fn modifiers_decide_only_without_strong_signals() {
    assert_eq!(intent_of("latest Rust"), Intent::Status);
    assert_eq!(intent_of("Rust 最新"), Intent::Status);
    assert_eq!(intent_of("Rust today"), Intent::News);
    // A strong tutorial signal beats the status modifier.
    let c = classify("最新 Rust 教程");
    assert_eq!(c.intent, Intent::Tutorial);
    assert_eq!(c.freshness().window, Some(Freshness::Pm));
    // A factual question about something current gets a year window.
    let c = classify("what is the current population of Tokyo");
    assert_eq!(c.intent, Intent::Factual);
    assert_eq!(c.freshness().window, Some(Freshness::Py));
}

#[test]
fn the_most_specific_signal_wins() {
    let c = classify("what is the latest Rust version");
    assert_eq!(c.intent, Intent::Status);
    assert!(
        c.signals.iter().all(|s| s.intent != Intent::Factual),
        "{:?}",
        signal_texts(&c)
    );
    assert_eq!(intent_of("how to update Rust"), Intent::Tutorial);
    assert_eq!(intent_of("Rust 如何更新"), Intent::Tutorial);
    assert_eq!(intent_of("Rust 现在怎么样了"), Intent::Status);
}

#[test]
fn neutral_phrases_hide_their_signal_words() {
    assert_eq!(intent_of("HTTP 418 status code"), Intent::Exploratory);
    assert_eq!(intent_of("MongoDB 文档数据库"), Intent::Exploratory);
    assert_eq!(intent_of("机器学习"), Intent::Exploratory);
    assert_eq!(intent_of("机器学习 是什么"), Intent::Factual);
    assert_eq!(intent_of("Rust 2024 breaking changes"), Intent::Exploratory);
    assert!(classify("Rust 2024 breaking changes").windows.is_empty());
    assert_eq!(intent_of("of course Rust"), Intent::Exploratory);
    assert_eq!(intent_of("GitHub Copilot vs Cursor"), Intent::Comparison);
    assert_eq!(intent_of("GitHub Actions docs"), Intent::Resource);
}

#[test]
fn or_is_a_comparison_only_as_a_choice() {
    assert_eq!(intent_of("Python or Go"), Intent::Comparison);
    assert_eq!(
        intent_of("Should I learn Python or Go for backend?"),
        Intent::Comparison
    );
    assert_eq!(intent_of("to be or not to be"), Intent::Exploratory);
    assert_eq!(
        intent_of("novel published in 1950 or 1951 set in a small Welsh town"),
        Intent::Exploratory
    );
    assert_eq!(intent_of("or"), Intent::Exploratory);
    assert_eq!(intent_of("cats or dogs or birds"), Intent::Exploratory);
}

// ---- explainability ----

#[test]
fn signals_name_their_text_and_offsets() {
    let q = "Bun vs Deno 最新对比";
    let c = classify(q);
    assert_eq!(signal_texts(&c), vec!["vs", "最新", "对比"]);
    for s in &c.signals {
        assert_eq!(&q[s.start..s.end], s.text);
    }
    let vs = &c.signals[0];
    assert_eq!(
        (vs.intent, vs.strength),
        (Intent::Comparison, Strength::Strong)
    );
    let newest = &c.signals[1];
    assert_eq!(
        (newest.intent, newest.strength),
        (Intent::Status, Strength::Modifier)
    );
    assert_eq!(c.decisive_signals().count(), 2);
}

#[test]
fn signal_text_keeps_the_query_spelling() {
    let c = classify("Serde OFFICIAL Docs");
    assert_eq!(signal_texts(&c), vec!["OFFICIAL Docs"]);
}

#[test]
fn classification_round_trips_through_json() {
    let c = classify("Deno 最新版本下载 today");
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"intent\":\"resource\""), "{json}");
    assert!(json.contains("\"strength\":\"modifier\""), "{json}");
    let back: Classification = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
}

// ---- tables ----

#[test]
fn every_table_signal_classifies_as_its_intent_on_its_own() {
    for set in SIGNALS {
        for (words, strength) in [
            (set.strong, Strength::Strong),
            (set.modifiers, Strength::Modifier),
        ] {
            for w in words {
                let c = classify(w);
                assert_eq!(c.intent, set.intent, "signal {w:?}");
                assert!(
                    c.signals
                        .iter()
                        .any(|s| s.intent == set.intent && s.strength == strength && s.text == *w),
                    "signal {w:?} not reported: {:?}",
                    c.signals
                );
            }
        }
    }
}

#[test]
fn no_signal_word_belongs_to_two_intents() {
    let mut seen: Vec<(String, Intent)> = Vec::new();
    for set in SIGNALS {
        for w in set.strong.iter().chain(set.modifiers) {
            let key = w.to_lowercase();
            if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
                panic!("{w:?} is a signal of both {other} and {}", set.intent);
            }
            seen.push((key, set.intent));
        }
    }
}

#[test]
fn the_signal_table_is_in_priority_order_and_covers_every_intent() {
    let order: Vec<Intent> = SIGNALS.iter().map(|s| s.intent).collect();
    assert_eq!(order, PRIORITY.to_vec());
    assert_eq!(
        PRIORITY,
        [
            Intent::Resource,
            Intent::News,
            Intent::Status,
            Intent::Comparison,
            Intent::Tutorial,
            Intent::Factual,
            Intent::Exploratory
        ]
    );
    for set in SIGNALS {
        assert!(
            set.strong.iter().any(|w| w.is_ascii()),
            "{} has no English signal",
            set.intent
        );
        assert!(
            set.strong
                .iter()
                .any(|w| w.chars().any(crate::tokenize::is_cjk)),
            "{} has no Chinese signal",
            set.intent
        );
    }
}

#[test]
fn neutral_phrases_each_contain_a_signal_or_window_word() {
    let words: Vec<String> = SIGNALS
        .iter()
        .flat_map(|s| s.strong.iter().chain(s.modifiers))
        .chain(WINDOW_CUES.iter().flat_map(|(_, w)| w.iter()))
        .map(|w| w.to_lowercase())
        .collect();
    for phrase in NEUTRAL_PHRASES {
        let lower = phrase.to_lowercase();
        assert!(
            words.iter().any(|w| lower.contains(w.as_str())),
            "{phrase:?} hides no signal word"
        );
        assert!(classify(phrase).signals.is_empty(), "{phrase:?}");
    }
}

#[test]
fn window_cues_set_the_window() {
    for (window, words) in WINDOW_CUES {
        for w in *words {
            let c = classify(&format!("Rust {w}"));
            assert!(
                c.windows.iter().any(|x| x.window == *window),
                "{w:?}: {:?}",
                c.windows
            );
            assert_eq!(
                c.freshness_for(Intent::Status).window,
                Some(*window),
                "{w:?}"
            );
        }
    }
}

// ---- profiles ----

#[test]
fn profile_rows_match_the_documented_table() {
    type Row = (
        Intent,
        Mode,
        Option<Freshness>,
        Weights,
        &'static [&'static str],
    );
    let rows: Vec<Row> = vec![
        (
            Intent::Factual,
            Mode::Answer,
            None,
            Weights::new(0.4, 0.1, 0.5),
            &[],
        ),
        (
            Intent::Status,
            Mode::Deep,
            Some(Freshness::Pw),
            Weights::new(0.3, 0.5, 0.2),
            &[],
        ),
        (
            Intent::Comparison,
            Mode::Deep,
            Some(Freshness::Py),
            Weights::new(0.4, 0.2, 0.4),
            &[],
        ),
        (
            Intent::Tutorial,
            Mode::Answer,
            Some(Freshness::Py),
            Weights::new(0.4, 0.1, 0.5),
            &[
                "dev.to",
                "freecodecamp.org",
                "realpython.com",
                "baeldung.com",
            ],
        ),
        (
            Intent::Exploratory,
            Mode::Deep,
            None,
            Weights::new(0.3, 0.2, 0.5),
            &[],
        ),
        (
            Intent::News,
            Mode::Deep,
            Some(Freshness::Pw),
            Weights::new(0.3, 0.6, 0.1),
            &["techcrunch.com", "arstechnica.com", "theverge.com"],
        ),
        (
            Intent::Resource,
            Mode::Fast,
            None,
            Weights::new(0.5, 0.1, 0.4),
            &["github.com"],
        ),
    ];
    for (intent, mode, freshness, weights, boost) in rows {
        let p = profile(intent);
        assert_eq!(p.intent, intent);
        assert_eq!(p.mode, mode, "{intent}");
        assert_eq!(p.freshness, freshness, "{intent}");
        assert_eq!(p.weights, weights, "{intent}");
        assert_eq!(p.domain_boost, boost, "{intent}");
    }
    let order: Vec<Intent> = PROFILES.iter().map(|p| p.intent).collect();
    assert_eq!(order, Intent::ALL.to_vec());
}

#[test]
fn profile_weights_sum_to_one() {
    for p in &PROFILES {
        let w = p.weights;
        assert!(
            (w.keyword + w.freshness + w.authority - 1.0).abs() < 1e-9,
            "{}",
            p.intent
        );
    }
}

#[test]
fn alternate_windows_are_chosen_by_cues() {
    assert_eq!(
        profile(Intent::Status).alternate_freshness,
        Some(Freshness::Pm)
    );
    assert_eq!(
        profile(Intent::News).alternate_freshness,
        Some(Freshness::Pd)
    );
    // Status: pw by default, pm when the query says "this month".
    assert_eq!(
        classify("Deno 进展").freshness().window,
        Some(Freshness::Pw)
    );
    assert_eq!(
        classify("Deno 本月 进展").freshness().window,
        Some(Freshness::Pm)
    );
    assert_eq!(
        classify("Deno status this month").freshness().window,
        Some(Freshness::Pm)
    );
    // News: pw by default, pd on today / 今日 / 24h.
    assert_eq!(classify("AI 新闻").freshness().window, Some(Freshness::Pw));
    assert_eq!(
        classify("今日 AI 新闻").freshness().window,
        Some(Freshness::Pd)
    );
    assert_eq!(
        classify("AI news today").freshness().window,
        Some(Freshness::Pd)
    );
    assert_eq!(
        classify("AI news past 24 hours").freshness().window,
        Some(Freshness::Pd)
    );
}

#[test]
fn resource_never_gets_a_window() {
    let c = classify("Deno 下载 今天");
    assert_eq!(c.intent, Intent::Resource);
    assert_eq!(c.freshness().window, None);
}

#[test]
fn freshness_for_an_overridden_intent_uses_the_same_cues() {
    let c = classify("Rust this week");
    assert_eq!(
        c.freshness_for(Intent::Tutorial).window,
        Some(Freshness::Pw)
    );
    let c = classify("Rust");
    assert_eq!(c.freshness_for(Intent::News).window, Some(Freshness::Pw));
    assert_eq!(c.freshness_for(Intent::Factual).window, None);
}

proptest! {
    #[test]
    fn classify_never_panics_and_offsets_are_valid(q in "\\PC{0,80}") {
        let c = classify(&q);
        for s in &c.signals {
            prop_assert!(q.is_char_boundary(s.start) && q.is_char_boundary(s.end));
            prop_assert_eq!(&q[s.start..s.end], s.text.as_str());
        }
        if c.signals.is_empty() {
            prop_assert_eq!(c.intent, Intent::Exploratory);
        } else {
            prop_assert!(c.signals.iter().any(|s| s.intent == c.intent));
        }
    }

    #[test]
    fn classify_mixed_signal_text_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("vs".to_string()), Just("最新".to_string()), Just("下载".to_string()),
                Just("how to".to_string()), Just("or".to_string()), Just("今日".to_string()),
                Just("什么是".to_string()), "\\PC{0,6}",
            ],
            0..8,
        )
    ) {
        let q = parts.join(" ");
        let c = classify(&q);
        let best = c
            .signals
            .iter()
            .filter(|s| s.strength == Strength::Strong)
            .map(|s| signals::priority_rank(s.intent))
            .min();
        if let Some(rank) = best {
            prop_assert_eq!(signals::priority_rank(c.intent), rank);
        }
    }
}
