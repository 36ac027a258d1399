//! Tests of planning: sub-queries, synonyms, glossary, comparison split,
//! constraints, focused queries, the envelope and errors.

use std::sync::Arc;

use chrono::TimeZone;
use proptest::prelude::*;

use super::constraints::{clauses, extract, terms};
use super::*;
use crate::intent::classify;

fn at_year(year: i32) -> PlanOptions {
    PlanOptions::default().with_now(Utc.with_ymd_and_hms(year, 3, 1, 12, 0, 0).unwrap())
}

fn plan(query: &str) -> Plan {
    HeuristicPlanner.plan_sync(query, &at_year(2026)).unwrap()
}

fn texts(plan: &Plan) -> Vec<&str> {
    plan.sub_queries.iter().map(|s| s.text.as_str()).collect()
}

fn purposes(plan: &Plan) -> Vec<SubQueryPurpose> {
    plan.sub_queries.iter().map(|s| s.purpose).collect()
}

// ---- sub-queries per intent ----

#[test]
fn factual_adds_definition_and_explained_overview() {
    let p = plan("what is WebTransport");
    assert_eq!(p.intent, Intent::Factual);
    assert_eq!(
        texts(&p),
        vec![
            "what is WebTransport",
            "WebTransport definition",
            "WebTransport explained overview"
        ]
    );
    assert_eq!(
        purposes(&p),
        vec![
            SubQueryPurpose::Original,
            SubQueryPurpose::Definition,
            SubQueryPurpose::Explained
        ]
    );
}

#[test]
fn status_adds_the_current_year_from_the_injected_clock() {
    let p = HeuristicPlanner
        .plan_sync("Deno 进展", &at_year(2026))
        .unwrap();
    assert_eq!(p.intent, Intent::Status);
    assert!(texts(&p).contains(&"Deno latest 2026"), "{:?}", texts(&p));
    assert!(
        texts(&p).contains(&"Deno update release"),
        "{:?}",
        texts(&p)
    );
    let later = HeuristicPlanner
        .plan_sync("Deno 进展", &at_year(2031))
        .unwrap();
    assert!(
        texts(&later).contains(&"Deno latest 2031"),
        "{:?}",
        texts(&later)
    );
}

#[test]
fn status_does_not_repeat_a_year_the_topic_already_has() {
    let p = plan("Deno 2026 roadmap");
    assert!(texts(&p).contains(&"Deno 2026 latest"), "{:?}", texts(&p));
}

#[test]
fn comparison_splits_into_head_to_head_and_one_query_per_side() {
    let p = plan("Bun vs Deno");
    assert_eq!(p.intent, Intent::Comparison);
    assert_eq!(
        texts(&p),
        vec![
            "Bun vs Deno",
            "Bun advantages features",
            "Deno advantages features"
        ]
    );
    assert_eq!(p.rivals, vec!["Bun", "Deno"]);
}

#[test]
fn comparison_sides_are_parsed_from_every_phrasing() {
    let cases: &[(&str, &[&str])] = &[
        ("Bun versus Deno", &["Bun", "Deno"]),
        ("Postgres compared to MySQL", &["Postgres", "MySQL"]),
        ("difference between TCP and UDP", &["TCP", "UDP"]),
        ("compare Axum with Actix", &["Axum", "Actix"]),
        ("Should I learn Python or Ruby?", &["Python", "Ruby"]),
        ("Bun 和 Deno 的区别", &["Bun", "Deno"]),
        ("Bun 与 Deno 有什么不同", &["Bun", "Deno"]),
        ("Vue 还是 React", &["Vue", "React"]),
        ("对比 Rust 和 Go", &["Rust", "Go"]),
        ("Rust 对比 Zig", &["Rust", "Zig"]),
        ("Bun vs Deno 最新对比", &["Bun", "Deno"]),
        ("React vs Vue vs Svelte", &["React", "Vue", "Svelte"]),
        ("파이썬과 자바 비교", &["파이썬", "자바"]),
    ];
    for (q, sides) in cases {
        let c = classify(q);
        assert_eq!(c.intent, Intent::Comparison, "{q}");
        assert_eq!(comparison::sides(q, &c), sides.to_vec(), "{q}");
    }
}

#[test]
fn comparison_of_chinese_sides_uses_their_english_names() {
    let p = plan("微软 和 谷歌 的区别");
    assert_eq!(
        texts(&p),
        vec![
            "微软 和 谷歌 的区别",
            "Microsoft vs Google",
            "Microsoft advantages features",
            "Google advantages features"
        ]
    );
    assert_eq!(p.rivals, vec!["微软", "谷歌"]);
}

#[test]
fn comparison_without_two_sides_falls_back_to_the_topic() {
    let p = plan("Webpack alternatives");
    assert_eq!(p.intent, Intent::Comparison);
    assert!(p.rivals.is_empty());
    assert_eq!(
        texts(&p),
        vec![
            "Webpack alternatives",
            "Webpack comparison",
            "Webpack pros and cons"
        ]
    );
}

#[test]
fn tutorial_adds_tutorial_and_step_by_step_guide() {
    let p = plan("Rust CLI 教程");
    assert_eq!(p.intent, Intent::Tutorial);
    assert_eq!(
        texts(&p),
        vec![
            "Rust CLI 教程",
            "Rust CLI tutorial",
            "Rust CLI guide step by step"
        ]
    );
    assert_eq!(p.sub_queries[0].lang.as_deref(), Some("zh"));
    assert_eq!(p.sub_queries[1].lang.as_deref(), Some("en"));
}

#[test]
fn exploratory_adds_three_angles() {
    let p = plan("RISC-V");
    assert_eq!(p.intent, Intent::Exploratory);
    assert_eq!(
        texts(&p),
        vec![
            "RISC-V",
            "RISC-V overview",
            "RISC-V ecosystem",
            "RISC-V use cases"
        ]
    );
}

#[test]
fn news_adds_this_week_year_and_announcement() {
    let p = plan("AI 新闻");
    assert_eq!(p.intent, Intent::News);
    let t = texts(&p);
    assert!(t.contains(&"AI news this week 2026"), "{t:?}");
    assert!(t.contains(&"AI announcement latest"), "{t:?}");
}

#[test]
fn resource_adds_official_documentation_and_github() {
    let p = plan("Anthropic MCP docs");
    assert_eq!(p.intent, Intent::Resource);
    assert_eq!(
        texts(&p),
        vec![
            "Anthropic MCP docs",
            "Anthropic MCP official documentation",
            "Anthropic MCP github"
        ]
    );
}

#[test]
fn untranslatable_chinese_topics_use_chinese_templates() {
    let p = plan("华强北 教程");
    assert_eq!(p.intent, Intent::Tutorial);
    assert_eq!(texts(&p), vec!["华强北 教程", "华强北 入门 指南 步骤"]);
}

#[test]
fn korean_topics_use_korean_templates() {
    let p = plan("러스트 사용법");
    assert_eq!(p.intent, Intent::Tutorial);
    assert_eq!(texts(&p)[1], "러스트 튜토리얼");
    assert_eq!(p.sub_queries[1].lang.as_deref(), Some("ko"));
}

#[test]
fn long_questions_fill_templates_with_anchor_terms() {
    let p = plan("Find the novel that was published in 1987 and won the Booker Prize");
    let expansion = &p.sub_queries[1].text;
    assert!(expansion.split_whitespace().count() <= 10, "{expansion}");
    assert!(!expansion.contains("Find the"), "{expansion}");
    assert!(expansion.contains("Booker"), "{expansion}");
}

#[test]
fn topic_drops_signal_words_and_chinese_fillers() {
    let p = plan("最近 大模型 有什么 进展");
    assert_eq!(p.intent, Intent::Status);
    assert_eq!(p.topic, "大模型");
    assert_eq!(
        texts(&p),
        vec![
            "最近 大模型 有什么 进展",
            "recent large language model progress",
            "large language model latest 2026",
            "large language model update release"
        ]
    );
    assert_eq!(plan("how to build a Rust CLI").topic, "build a Rust CLI");
    assert_eq!(plan("What is WebTransport?").topic, "WebTransport");
}

// ---- English variant of Chinese queries ----

#[test]
fn chinese_query_gets_an_english_variant() {
    let p = plan("Rust 异步编程");
    assert_eq!(p.sub_queries[1].text, "Rust async programming");
    assert_eq!(p.sub_queries[1].purpose, SubQueryPurpose::Translation);
    assert_eq!(p.sub_queries[1].lang.as_deref(), Some("en"));
    assert_eq!(p.language.as_deref(), Some("zh"));
}

#[test]
fn english_variant_moves_question_heads_to_the_front() {
    assert_eq!(
        glossary::english_variant("WebAssembly 是什么").as_deref(),
        Some("what is WebAssembly")
    );
    assert_eq!(
        glossary::english_variant("Bun 和 Deno 的区别").as_deref(),
        Some("difference between Bun and Deno")
    );
    assert_eq!(
        glossary::english_variant("如何 部署 微服务").as_deref(),
        Some("how to deployment microservices")
    );
}

#[test]
fn english_variant_needs_full_glossary_coverage() {
    assert_eq!(glossary::english_variant("华强北 手机"), None);
    assert_eq!(glossary::english_variant("plain English"), None);
    let t = glossary::translate("华强北 手机");
    assert!(!t.complete);
    assert!(t.text.contains("smartphone"), "{}", t.text);
}

#[test]
fn english_variant_can_be_turned_off() {
    let opts = at_year(2026).with_english_variant(false);
    let p = HeuristicPlanner.plan_sync("Rust 异步编程", &opts).unwrap();
    assert!(
        p.sub_queries
            .iter()
            .all(|s| s.purpose != SubQueryPurpose::Translation)
    );
}

#[test]
fn glossary_data_is_well_formed_and_large() {
    let entries = glossary::entries();
    let translated = entries.iter().filter(|e| !e.en.is_empty()).count();
    assert!(translated >= 300, "only {translated} translated entries");
    let mut seen = std::collections::HashSet::new();
    for line in glossary::GLOSSARY_TSV.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (zh, en) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("no tab in {line:?}"));
        assert!(seen.insert(zh), "duplicate glossary key {zh:?}");
        assert!(
            zh.chars().all(crate::tokenize::is_cjk),
            "key {zh:?} is not all Han"
        );
        assert!(en.is_ascii(), "English side of {zh:?} is not ASCII: {en:?}");
        assert!(!en.starts_with(' ') && !en.ends_with(' '), "{zh:?}");
    }
    assert_eq!(
        glossary::lookup("异步编程").map(|e| e.en),
        Some("async programming")
    );
    assert!(glossary::lookup("是什么").unwrap().front);
}

#[test]
fn common_technical_phrases_translate() {
    let cases = [
        ("机器学习 入门教程", "machine learning beginner tutorial"),
        ("分布式系统 设计模式", "distributed systems design patterns"),
        ("Docker 容器化 部署", "Docker containerization deployment"),
        ("大语言模型 微调", "large language model fine-tuning"),
        ("Rust 所有权 和 生命周期", "Rust ownership and lifetime"),
        ("向量数据库 对比", "vector database comparison"),
        (
            "前端 性能优化 最佳实践",
            "frontend performance optimization best practices",
        ),
    ];
    for (zh, en) in cases {
        assert_eq!(glossary::english_variant(zh).as_deref(), Some(en), "{zh}");
    }
}

// ---- technical synonyms ----

#[test]
fn every_synonym_expands_whole_words() {
    let cases = [
        ("k8s operator", "Kubernetes operator"),
        ("K8S operator", "Kubernetes operator"),
        ("JS closures", "JavaScript closures"),
        ("TS generics", "TypeScript generics"),
        ("Go generics", "Golang generics"),
        ("Postgres indexes", "PostgreSQL indexes"),
        ("mongo aggregation", "MongoDB aggregation"),
        ("tf keras", "TensorFlow keras"),
        ("torch tensors", "PyTorch tensors"),
        ("React hooks", "React.js hooks"),
        ("Vue router", "Vue.js router"),
        ("k8s集群", "Kubernetes集群"),
    ];
    for (input, expanded) in cases {
        assert_eq!(synonyms::expand(input), expanded, "{input}");
    }
}

#[test]
fn synonyms_are_case_aware_and_leave_longer_names_alone() {
    for unchanged in [
        "let's go home",
        "go to definition",
        "Go to definition",
        "react to events",
        "React Native navigation",
        "React.js hooks",
        "Node.js streams",
        "tsconfig paths",
        "jsx syntax",
        "vue-router setup",
        "PostgreSQL",
        "MongoDB",
        "vsync",
    ] {
        assert_eq!(synonyms::expand(unchanged), unchanged, "{unchanged}");
    }
}

#[test]
fn synonyms_feed_the_templates_and_add_a_variant() {
    let p = plan("k8s 教程");
    assert_eq!(
        texts(&p),
        vec![
            "k8s 教程",
            "Kubernetes tutorial",
            "Kubernetes guide step by step",
            "Kubernetes 教程"
        ]
    );
    assert_eq!(p.sub_queries[3].purpose, SubQueryPurpose::Synonyms);
}

// ---- dedup and cap ----

#[test]
fn sub_queries_are_deduplicated_case_insensitively() {
    let p = plan("bun VS deno");
    let lower: Vec<String> = texts(&p).iter().map(|t| t.to_lowercase()).collect();
    let mut unique = lower.clone();
    unique.dedup();
    assert_eq!(lower.len(), unique.len(), "{lower:?}");
    assert_eq!(lower[0], "bun vs deno");
    assert!(!lower[1..].contains(&"bun vs deno".to_string()));
}

#[test]
fn the_sub_query_cap_is_configurable_and_cut_items_are_reported() {
    let p = plan("React vs Vue vs Svelte");
    assert_eq!(p.sub_queries.len(), DEFAULT_MAX_SUB_QUERIES);
    assert!(
        p.dropped
            .iter()
            .any(|d| d.kind == DroppedKind::SubQuery && d.text == "Svelte advantages features"),
        "{:?}",
        p.dropped
    );
    let one = HeuristicPlanner
        .plan_sync("Bun vs Deno", &at_year(2026).with_max_sub_queries(1))
        .unwrap();
    assert_eq!(texts(&one), vec!["Bun vs Deno"]);
    assert_eq!(one.dropped.len(), 2);
    assert!(
        one.dropped[0].reason.contains("cap of 1"),
        "{}",
        one.dropped[0].reason
    );
    let six = HeuristicPlanner
        .plan_sync(
            "React vs Vue vs Svelte",
            &at_year(2026).with_max_sub_queries(6),
        )
        .unwrap();
    assert_eq!(six.sub_queries.len(), 5);
    assert!(six.dropped.is_empty());
}

#[test]
fn out_of_range_caps_are_typed_errors() {
    for n in [0, MAX_SUB_QUERIES_LIMIT + 1] {
        let err = HeuristicPlanner
            .plan_sync("Rust", &PlanOptions::default().with_max_sub_queries(n))
            .unwrap_err();
        assert!(
            matches!(
                err,
                PlanError::InvalidOption {
                    option: "max_sub_queries",
                    ..
                }
            ),
            "{err}"
        );
    }
}

// ---- intent override, profile fields ----

#[test]
fn plan_carries_the_profile_of_its_intent() {
    let p = plan("Bun vs Deno 最新对比");
    assert_eq!(p.intent, Intent::Comparison);
    assert_eq!(p.intent_source, IntentSource::Classified);
    assert_eq!(p.mode, Mode::Deep);
    assert_eq!(p.freshness, Some(Freshness::Pm));
    assert_eq!(p.weights, Weights::new(0.4, 0.2, 0.4));
    let p = plan("Rust 教程");
    assert_eq!(
        p.domain_boost,
        vec![
            "dev.to",
            "freecodecamp.org",
            "realpython.com",
            "baeldung.com"
        ]
    );
    let p = plan("Deno 最新版本下载");
    assert_eq!(p.intent, Intent::Resource);
    assert_eq!((p.mode, p.freshness), (Mode::Fast, None));
    assert_eq!(p.domain_boost, vec!["github.com"]);
}

#[test]
fn intent_override_replaces_the_classification() {
    let opts = at_year(2026).with_intent(Intent::News);
    let p = HeuristicPlanner.plan_sync("Rust 教程", &opts).unwrap();
    assert_eq!(p.intent, Intent::News);
    assert_eq!(p.intent_source, IntentSource::Override);
    assert_eq!(p.mode, Mode::Deep);
    assert_eq!(p.freshness, Some(Freshness::Pw));
    assert_eq!(p.weights, Weights::new(0.3, 0.6, 0.1));
    // The classifier's signals are still reported.
    assert!(p.signals.iter().any(|s| s.text == "教程"));
    assert!(
        texts(&p).contains(&"Rust news this week 2026"),
        "{:?}",
        texts(&p)
    );
}

#[test]
fn request_for_carries_intent_mode_freshness_and_language() {
    let p = plan("Rust 异步编程 教程");
    let requests = p.requests();
    assert_eq!(requests.len(), p.sub_queries.len());
    let en = &requests[1];
    assert_eq!(en.intent, Some(Intent::Tutorial));
    assert_eq!(en.mode, Mode::Answer);
    assert_eq!(en.freshness, Some(Freshness::Py));
    assert_eq!(en.language.as_deref(), Some("en"));
    assert!(en.validate().is_ok());
}

// ---- constraints ----

#[test]
fn numbered_lists_split_into_constraints() {
    let cases: &[(&str, &[&str])] = &[
        (
            "1. published in 1987 2. won the Booker Prize 3. set in Japan",
            &["published in 1987", "won the Booker Prize", "set in Japan"],
        ),
        (
            "Find a book: 1) published in 1987 2) set in Japan",
            &["Find a book", "published in 1987", "set in Japan"],
        ),
        (
            "(1) published in 1987 (2) set in Japan",
            &["published in 1987", "set in Japan"],
        ),
        (
            "①1987年出版 ②获得布克奖 ③故事发生在日本",
            &["1987年出版", "获得布克奖", "故事发生在日本"],
        ),
        (
            "一、1987年出版 二、获得布克奖",
            &["1987年出版", "获得布克奖"],
        ),
    ];
    for (q, want) in cases {
        assert_eq!(clauses(q), want.to_vec(), "{q}");
    }
}

#[test]
fn version_numbers_are_not_numbering() {
    assert_eq!(
        clauses("Rust 1.80 release notes"),
        vec!["Rust 1.80 release notes"]
    );
}

#[test]
fn separators_and_english_conjunctions_split() {
    assert_eq!(
        clauses("born in Ohio, studied physics; won a Nobel prize"),
        vec!["born in Ohio", "studied physics", "won a Nobel prize"]
    );
    assert_eq!(
        clauses("wrote a novel and directed a film or produced a play"),
        vec!["wrote a novel", "directed a film", "produced a play"]
    );
    assert_eq!(
        clauses("taught chemistry while writing poetry"),
        vec!["taught chemistry", "writing poetry"]
    );
    assert_eq!(
        clauses("speaks French but also speaks Korean as well as Thai"),
        vec!["speaks French", "speaks Korean", "Thai"]
    );
}

#[test]
fn conjunctions_inside_words_do_not_split() {
    assert_eq!(
        clauses("Android sandbox order"),
        vec!["Android sandbox order"]
    );
    assert_eq!(clauses("世界和平与经济发展"), vec!["世界和平", "经济发展"]);
    assert_eq!(clauses("参与开源项目"), vec!["参与开源项目"]);
}

#[test]
fn chinese_separators_and_conjunctions_split() {
    assert_eq!(
        clauses("出生于上海，毕业于清华；获得过图灵奖、发表过论文"),
        vec!["出生于上海", "毕业于清华", "获得过图灵奖", "发表过论文"]
    );
    assert_eq!(
        clauses("担任过教授并且创办了公司以及出版过教材"),
        vec!["担任过教授", "创办了公司", "出版过教材"]
    );
    assert_eq!(
        clauses("获得诺贝尔奖同时担任大学校长"),
        vec!["获得诺贝尔奖", "担任大学校长"]
    );
}

#[test]
fn korean_conjunctions_and_particles_split_clauses() {
    assert_eq!(
        clauses("서울에서 태어났다 그리고 물리학을 전공했다"),
        vec!["서울에서 태어났다", "물리학을 전공했다"]
    );
    assert_eq!(
        clauses("유명한 소설가이며 영화감독이고 교수였다"),
        vec!["유명한 소설가", "영화감독", "교수였다"]
    );
    assert_eq!(
        clauses("서울대학교와 카이스트 졸업생"),
        vec!["서울대학교", "카이스트 졸업생"]
    );
    // Short nouns ending in 과/와 are not particles.
    assert_eq!(clauses("사과 농장 운영자"), vec!["사과 농장 운영자"]);
}

#[test]
fn short_pieces_join_their_neighbour_instead_of_vanishing() {
    assert_eq!(clauses("Bun 和 Deno 的区别"), vec!["Bun 和 Deno 的区别"]);
    assert_eq!(
        clauses("Tom and Jerry cartoon"),
        vec!["Tom and Jerry cartoon"]
    );
    assert_eq!(clauses("AI"), vec!["AI"]);
}

#[test]
fn at_most_eight_constraints_and_the_rest_become_facets() {
    let q = "alpha one, bravo two, charlie three, delta four, echo five, foxtrot six, golf seven, hotel eight, india nine, juliet ten";
    let e = extract(q);
    assert_eq!(e.constraints.len(), MAX_CONSTRAINTS);
    assert_eq!(e.constraints[7].id, "c8");
    assert_eq!(e.facets, vec!["india nine", "juliet ten"]);
    let ids: Vec<&str> = e.constraints.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
}

#[test]
fn one_clause_questions_list_years_and_quoted_titles_as_facets() {
    let e = extract("who translated “The Little Prince” into Korean in 1973年");
    assert_eq!(e.constraints.len(), 1);
    assert_eq!(e.facets, vec!["1973年", "The Little Prince"]);
}

#[test]
fn constraint_terms_drop_stopwords_and_tokenise_cjk() {
    assert_eq!(
        terms("was published in 1987 by a Japanese author"),
        vec!["published", "1987", "japanese", "author"]
    );
    assert_eq!(
        terms("获得了诺贝尔文学奖的作家"),
        vec!["获得", "诺贝", "贝尔", "尔文", "文学", "学奖", "作家"]
    );
    // The Korean connective stopwords.
    assert_eq!(
        terms("그리고 또는 모두 동시에 확인 필요 서울"),
        vec!["서울"]
    );
    // Real words that contain a particle survive.
    assert!(terms("研究目的").contains(&"目的".to_string()));
    assert!(terms("x y z").is_empty());
}

#[test]
fn optional_clauses_are_not_mandatory() {
    let e = extract("runs on Linux, ideally open source, 最好有中文文档");
    let mandatory: Vec<bool> = e.constraints.iter().map(|c| c.mandatory).collect();
    assert_eq!(mandatory, vec![true, false, false]);
}

#[test]
fn anchor_is_the_longest_mandatory_constraint() {
    let p = plan(
        "born in Ohio, ideally a very long optional clause about many things, won a Nobel prize in physics",
    );
    assert_eq!(p.constraints.len(), 3);
    assert!(!p.constraints[1].mandatory);
    assert_eq!(p.anchor.as_deref(), Some("c3"));
    let p = plan("alpha beta, gamma zeta");
    assert_eq!(p.anchor.as_deref(), Some("c1"), "ties go to the earliest");
}

// ---- focused queries ----

#[test]
fn focused_queries_respect_the_caps() {
    let p = plan(
        "Find the first official original record that 1. was published in 1987 2. won the Booker Prize 3. is set in Japan 4. has a sequel; is it true?",
    );
    assert!(p.focused_queries.len() <= MAX_FOCUSED_QUERIES);
    for f in &p.focused_queries {
        assert!(f.terms.len() <= MAX_FOCUSED_TERMS, "{f:?}");
        assert_eq!(f.text, f.terms.join(" "));
    }
    assert!(
        p.dropped
            .iter()
            .any(|d| d.kind == DroppedKind::FocusedQuery),
        "{:?}",
        p.dropped
    );
}

#[test]
fn discovery_and_verification_for_multi_constraint_questions() {
    let p = plan("novelist born in Nagasaki, won the Booker Prize, later received the Nobel");
    let purposes: Vec<FocusedPurpose> = p.focused_queries.iter().map(|f| f.purpose).collect();
    assert_eq!(
        purposes,
        vec![
            FocusedPurpose::Discovery,
            FocusedPurpose::Verification,
            FocusedPurpose::Disconfirm
        ]
    );
    assert!(p.has_claim, "two or more constraints make a claim to check");
    assert_eq!(p.focused_queries[0].constraint_ids, vec!["c1", "c2"]);
    assert!(p.focused_queries[0].terms.contains(&"Nagasaki".to_string()));
}

#[test]
fn a_claim_always_keeps_its_disconfirm_query() {
    let p = plan(
        "Is it true that the official Rust logo was first designed in 2010, and that the original designer was Mozilla staff, and that it changed in 2015?",
    );
    assert!(p.has_claim);
    assert_eq!(p.focused_queries.len(), MAX_FOCUSED_QUERIES);
    let last = p.focused_queries.last().unwrap();
    assert_eq!(last.purpose, FocusedPurpose::Disconfirm);
    assert!(last.terms.contains(&"debunked".to_string()), "{last:?}");
    assert_eq!(p.disconfirm_queries, vec![last.text.clone()]);
}

#[test]
fn official_and_original_source_queries() {
    let p = plan("official announcement of the Rust 2024 edition");
    assert!(
        p.focused_queries
            .iter()
            .any(|f| f.purpose == FocusedPurpose::SourceRestrictedDiscovery
                && f.terms[0] == "official"),
        "{:?}",
        p.focused_queries
    );
    let p = plan("original source of the quote premature optimization is the root of all evil");
    assert!(
        p.focused_queries
            .iter()
            .any(|f| f.purpose == FocusedPurpose::OriginalSourceVerification),
        "{:?}",
        p.focused_queries
    );
}

#[test]
fn origin_questions_get_an_era_sweep() {
    let p = plan("밈 유래 무야호");
    let era = p
        .focused_queries
        .iter()
        .find(|f| f.purpose == FocusedPurpose::EraSweep)
        .expect("era sweep");
    assert_eq!(&era.terms[..2], &["원조", "최초"]);
    let p = plan("earliest use of the word robot");
    assert!(
        p.focused_queries
            .iter()
            .any(|f| f.purpose == FocusedPurpose::EraSweep)
    );
}

#[test]
fn disconfirm_terms_follow_the_question_language() {
    let zh = plan("获得诺贝尔文学奖的日本作家");
    let d = zh.focused_queries.last().unwrap();
    assert_eq!(d.purpose, FocusedPurpose::Disconfirm);
    assert!(d.terms.contains(&"其他".to_string()), "{d:?}");
    let ko = plan("노벨 문학상 수상 일본 작가");
    assert!(
        ko.disconfirm_queries[0].contains("다른"),
        "{:?}",
        ko.disconfirm_queries
    );
}

// ---- envelope ----

#[test]
fn plan_round_trips_through_json_with_the_schema_name() {
    let p = plan("Bun vs Deno 最新对比, ideally benchmarks from 2025");
    let json = serde_json::to_value(&p).unwrap();
    assert_eq!(json["schema"], "ferret.plan.v1");
    assert_eq!(json["intent"], "comparison");
    assert_eq!(json["intent_source"], "classified");
    assert_eq!(json["mode"], "deep");
    assert_eq!(json["freshness"], "pm");
    assert_eq!(json["weights"]["keyword"], 0.4);
    assert_eq!(json["sub_queries"][1]["purpose"], "head_to_head");
    assert_eq!(json["constraints"][0]["id"], "c1");
    assert_eq!(json["focused_queries"][0]["purpose"], "discovery");
    let back: Plan = serde_json::from_value(json).unwrap();
    assert_eq!(back, p);
}

#[test]
fn focused_purposes_serialise_as_their_documented_names() {
    for (p, name) in [
        (FocusedPurpose::Discovery, "discovery"),
        (FocusedPurpose::Verification, "verification"),
        (
            FocusedPurpose::SourceRestrictedDiscovery,
            "source-restricted-discovery",
        ),
        (
            FocusedPurpose::OriginalSourceVerification,
            "original-source-verification",
        ),
        (FocusedPurpose::EraSweep, "era-sweep"),
        (FocusedPurpose::Disconfirm, "disconfirm"),
    ] {
        assert_eq!(serde_json::to_value(p).unwrap(), name);
        assert_eq!(p.as_str(), name);
    }
}

#[test]
fn query_whitespace_is_normalised() {
    let p = plan("  Bun\tvs\n\nDeno  ");
    assert_eq!(p.query, "Bun vs Deno");
    assert_eq!(p.sub_queries[0].text, "Bun vs Deno");
}

// ---- errors ----

#[test]
fn bad_queries_are_typed_errors() {
    let planner = HeuristicPlanner::new();
    let opts = PlanOptions::default();
    assert_eq!(
        planner.plan_sync("", &opts).unwrap_err(),
        PlanError::EmptyQuery
    );
    assert_eq!(
        planner.plan_sync(" \t\n ", &opts).unwrap_err(),
        PlanError::EmptyQuery
    );
    let long = "字".repeat(MAX_QUERY_CHARS + 1);
    assert_eq!(
        planner.plan_sync(&long, &opts).unwrap_err(),
        PlanError::QueryTooLong {
            chars: MAX_QUERY_CHARS + 1,
            max: MAX_QUERY_CHARS
        }
    );
    assert!(
        planner
            .plan_sync(&"字".repeat(MAX_QUERY_CHARS), &opts)
            .is_ok()
    );
    let err = planner.plan_sync("?!… ——", &opts).unwrap_err();
    assert!(matches!(err, PlanError::NoSearchableText { .. }), "{err}");
    assert!(err.to_string().contains("no letters or digits"), "{err}");
    let msg = planner.plan_sync(&long, &opts).unwrap_err().to_string();
    assert!(msg.contains("2001") && msg.contains("2000"), "{msg}");
}

// ---- the Planner trait ----

#[derive(Debug)]
struct RefusingPlanner;

#[async_trait::async_trait]
impl Planner for RefusingPlanner {
    async fn plan(&self, _query: &str, _options: &PlanOptions) -> Result<Plan, PlanError> {
        Err(PlanError::Planner {
            planner: "refusing".into(),
            message: "model unavailable".into(),
        })
    }
}

#[tokio::test]
async fn planners_are_interchangeable_behind_the_trait() {
    let planners: Vec<Arc<dyn Planner>> =
        vec![Arc::new(HeuristicPlanner), Arc::new(RefusingPlanner)];
    let opts = at_year(2026);
    let ok = planners[0].plan("Bun vs Deno", &opts).await.unwrap();
    assert_eq!(
        ok,
        HeuristicPlanner.plan_sync("Bun vs Deno", &opts).unwrap()
    );
    let err = planners[1].plan("Bun vs Deno", &opts).await.unwrap_err();
    assert!(err.to_string().contains("model unavailable"), "{err}");
    let boxed: Box<dyn Planner> = Box::new(HeuristicPlanner);
    assert_eq!(
        boxed.plan("Bun vs Deno", &opts).await.unwrap().intent,
        Intent::Comparison
    );
}

#[test]
fn default_options_use_the_system_clock() {
    let opts = PlanOptions::default();
    assert_eq!(opts.max_sub_queries, DEFAULT_MAX_SUB_QUERIES);
    assert!(opts.english_variant);
    assert_eq!(opts.year(), Utc::now().year());
}

// ---- properties ----

fn check_invariants(query: &str, max: usize) -> Result<(), TestCaseError> {
    let opts = at_year(2026).with_max_sub_queries(max);
    let Ok(p) = HeuristicPlanner.plan_sync(query, &opts) else {
        return Ok(());
    };
    prop_assert_eq!(p.schema.as_str(), PLAN_SCHEMA);
    prop_assert!(!p.sub_queries.is_empty() && p.sub_queries.len() <= max);
    prop_assert_eq!(p.sub_queries[0].purpose, SubQueryPurpose::Original);
    let mut keys: Vec<String> = p
        .sub_queries
        .iter()
        .map(|s| s.text.to_lowercase())
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    prop_assert_eq!(keys.len(), n, "duplicate sub-queries");
    prop_assert!(p.sub_queries.iter().all(|s| !s.text.trim().is_empty()));
    prop_assert!(p.constraints.len() <= MAX_CONSTRAINTS);
    for (i, c) in p.constraints.iter().enumerate() {
        prop_assert_eq!(&c.id, &format!("c{}", i + 1));
    }
    prop_assert!(p.focused_queries.len() <= MAX_FOCUSED_QUERIES);
    for f in &p.focused_queries {
        prop_assert!(!f.terms.is_empty() && f.terms.len() <= MAX_FOCUSED_TERMS);
    }
    if let Some(a) = &p.anchor {
        prop_assert!(p.constraints.iter().any(|c| &c.id == a));
    }
    for s in &p.signals {
        prop_assert_eq!(&p.query[s.start..s.end], s.text.as_str());
    }
    let json = serde_json::to_string(&p).unwrap();
    let back: Plan = serde_json::from_str(&json).unwrap();
    prop_assert_eq!(back, p);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn planning_arbitrary_unicode_never_panics_and_respects_caps(
        q in "\\PC{0,120}",
        max in 1usize..=8,
    ) {
        check_invariants(&q, max)?;
    }

    #[test]
    fn planning_any_string_never_panics(q in any::<String>()) {
        let _ = HeuristicPlanner.plan_sync(&q, &PlanOptions::default());
    }

    #[test]
    fn planning_signal_heavy_text_respects_caps(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("vs"), Just("和"), Just("的区别"), Just("1."), Just("2)"), Just("①"),
                Just("，"), Just("and"), Just("或"), Just("그리고"), Just("k8s"), Just("Go"),
                Just("最新"), Just("下载"), Just("is it true"), Just("first"), Just("official"),
                Just("异步编程"), Just("2024年"), Just("“"), Just("”"), Just("와"),
                Just("Rust"), Just("Deno"), Just("x"),
            ],
            0..40,
        ),
        max in 1usize..=6,
    ) {
        check_invariants(&parts.join(" "), max)?;
        check_invariants(&parts.concat(), max)?;
    }

    #[test]
    fn synonyms_and_glossary_never_panic(q in "\\PC{0,60}") {
        let _ = synonyms::expand(&q);
        let _ = glossary::translate(&q);
        let _ = clauses(&q);
        let _ = terms(&q);
    }
}
