//! Sub-query expansion: the per-intent templates (a
//! data table) and the rules that apply them.
//!
//! Order of the sub-queries, before deduplication and the cap:
//!
//! 1. the original query;
//! 2. for a Chinese query, its English variant from the glossary (skipped
//!    for a comparison whose sides were found: the English "A vs B" stands
//!    in for it);
//! 3. the intent's templates, filled with the *topic* (the query without
//!    its signal words; a long question reduced to its anchor terms), in
//!    English when the topic has an English form (synonyms expanded),
//!    otherwise with the Chinese or Korean templates;
//! 4. the original query with technical synonyms expanded.
//!
//! Duplicates (case-insensitive) are removed; sub-queries over the cap are
//! reported as [`PlanDrop`]s.

use std::sync::OnceLock;

use crate::intent::Classification;
use crate::query::Intent;
use crate::tokenize::is_cjk;

use super::stopwords::{self, CJK_PARTICLES, CJK_STOPWORDS, PARTICLE_WORDS};
use super::{
    DroppedKind, PlanDrop, PlanOptions, SubQuery, SubQueryPurpose, comparison, focused, glossary,
    language_of, synonyms,
};

/// One template: `{topic}` is the topic, `{year}` the current year.
pub type Template = (&'static str, SubQueryPurpose);

/// The templates of one intent, in English and in Chinese.
#[derive(Debug, Clone, Copy)]
pub struct IntentTemplates {
    /// The intent.
    pub intent: Intent,
    /// Templates used when the topic has an English form.
    pub en: &'static [Template],
    /// Templates used for a Chinese topic the glossary cannot translate.
    pub zh: &'static [Template],
    /// Templates used for a Korean topic.
    pub ko: &'static [Template],
}

/// The per-intent expansion table. Comparison's entries are its fallback
/// when the two sides cannot be found; see [`COMPARISON_SPLIT_EN`].
pub const TEMPLATES: &[IntentTemplates] = &[
    IntentTemplates {
        intent: Intent::Factual,
        en: &[
            ("{topic} definition", SubQueryPurpose::Definition),
            ("{topic} explained overview", SubQueryPurpose::Explained),
        ],
        zh: &[
            ("{topic} 是什么 定义", SubQueryPurpose::Definition),
            ("{topic} 详解", SubQueryPurpose::Explained),
        ],
        ko: &[
            ("{topic} 뜻 정의", SubQueryPurpose::Definition),
            ("{topic} 설명", SubQueryPurpose::Explained),
        ],
    },
    IntentTemplates {
        intent: Intent::Status,
        en: &[
            ("{topic} latest {year}", SubQueryPurpose::Latest),
            ("{topic} update release", SubQueryPurpose::Update),
        ],
        zh: &[
            ("{topic} 最新进展 {year}", SubQueryPurpose::Latest),
            ("{topic} 更新 发布", SubQueryPurpose::Update),
        ],
        ko: &[
            ("{topic} 최신 {year}", SubQueryPurpose::Latest),
            ("{topic} 업데이트 출시", SubQueryPurpose::Update),
        ],
    },
    IntentTemplates {
        intent: Intent::Comparison,
        en: &[
            ("{topic} comparison", SubQueryPurpose::HeadToHead),
            ("{topic} pros and cons", SubQueryPurpose::Advantages),
        ],
        zh: &[
            ("{topic} 对比", SubQueryPurpose::HeadToHead),
            ("{topic} 优缺点", SubQueryPurpose::Advantages),
        ],
        ko: &[
            ("{topic} 비교", SubQueryPurpose::HeadToHead),
            ("{topic} 장단점", SubQueryPurpose::Advantages),
        ],
    },
    IntentTemplates {
        intent: Intent::Tutorial,
        en: &[
            ("{topic} tutorial", SubQueryPurpose::Tutorial),
            ("{topic} guide step by step", SubQueryPurpose::Guide),
        ],
        zh: &[
            ("{topic} 教程", SubQueryPurpose::Tutorial),
            ("{topic} 入门 指南 步骤", SubQueryPurpose::Guide),
        ],
        ko: &[
            ("{topic} 튜토리얼", SubQueryPurpose::Tutorial),
            ("{topic} 사용법 가이드", SubQueryPurpose::Guide),
        ],
    },
    IntentTemplates {
        intent: Intent::Exploratory,
        en: &[
            ("{topic} overview", SubQueryPurpose::Overview),
            ("{topic} ecosystem", SubQueryPurpose::Ecosystem),
            ("{topic} use cases", SubQueryPurpose::UseCases),
        ],
        zh: &[
            ("{topic} 概述", SubQueryPurpose::Overview),
            ("{topic} 生态", SubQueryPurpose::Ecosystem),
            ("{topic} 应用场景", SubQueryPurpose::UseCases),
        ],
        ko: &[
            ("{topic} 개요", SubQueryPurpose::Overview),
            ("{topic} 생태계", SubQueryPurpose::Ecosystem),
            ("{topic} 활용 사례", SubQueryPurpose::UseCases),
        ],
    },
    IntentTemplates {
        intent: Intent::News,
        en: &[
            ("{topic} news this week {year}", SubQueryPurpose::News),
            ("{topic} announcement latest", SubQueryPurpose::Announcement),
        ],
        zh: &[
            ("{topic} 新闻 本周 {year}", SubQueryPurpose::News),
            ("{topic} 最新消息", SubQueryPurpose::Announcement),
        ],
        ko: &[
            ("{topic} 뉴스 이번 주 {year}", SubQueryPurpose::News),
            ("{topic} 발표 최신", SubQueryPurpose::Announcement),
        ],
    },
    IntentTemplates {
        intent: Intent::Resource,
        en: &[
            (
                "{topic} official documentation",
                SubQueryPurpose::Documentation,
            ),
            ("{topic} github", SubQueryPurpose::Repository),
        ],
        zh: &[
            ("{topic} 官方文档", SubQueryPurpose::Documentation),
            ("{topic} github", SubQueryPurpose::Repository),
        ],
        ko: &[
            ("{topic} 공식 문서", SubQueryPurpose::Documentation),
            ("{topic} github", SubQueryPurpose::Repository),
        ],
    },
];

/// A comparison split three ways: the head-to-head query, then
/// one `{side}` query per side. English.
pub const COMPARISON_SPLIT_EN: [Template; 2] = [
    ("{sides}", SubQueryPurpose::HeadToHead),
    ("{side} advantages features", SubQueryPurpose::Advantages),
];

/// The Chinese comparison split, for sides the glossary cannot translate.
pub const COMPARISON_SPLIT_ZH: [Template; 2] = [
    ("{sides}", SubQueryPurpose::HeadToHead),
    ("{side} 优势 特点", SubQueryPurpose::Advantages),
];

/// The Korean comparison split.
pub const COMPARISON_SPLIT_KO: [Template; 2] = [
    ("{sides}", SubQueryPurpose::HeadToHead),
    ("{side} 장점 특징", SubQueryPurpose::Advantages),
];

/// The templates row of `intent`.
pub fn templates(intent: Intent) -> &'static IntentTemplates {
    TEMPLATES
        .iter()
        .find(|t| t.intent == intent)
        .unwrap_or(&TEMPLATES[4])
}

/// What [`sub_queries`] planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The query without its signal words.
    pub topic: String,
    /// The sub-queries, capped.
    pub sub_queries: Vec<SubQuery>,
    /// The sides of a comparison.
    pub rivals: Vec<String>,
    /// Sub-queries over the cap.
    pub dropped: Vec<PlanDrop>,
}

/// `text[range]` with every span in `spans` (byte ranges into `text`)
/// replaced by a space.
pub(crate) fn mask_spans(text: &str, range: (usize, usize), spans: &[(usize, usize)]) -> String {
    let (start, end) = range;
    let mut out = String::with_capacity(end.saturating_sub(start));
    let mut at = start;
    let mut sorted: Vec<(usize, usize)> = spans
        .iter()
        .copied()
        .filter(|&(s, e)| s < end && e > start)
        .collect();
    sorted.sort_unstable();
    for (s, e) in sorted {
        let s = s.max(start);
        let e = e.min(end);
        if s > at {
            out.push_str(&text[at..s]);
        }
        if e > at {
            out.push(' ');
            at = e;
        }
    }
    if at < end {
        out.push_str(&text[at..end]);
    }
    out
}

/// Latin words that are fillers at the edge of a topic or a comparison side.
const EDGE_FILLERS: &[&str] = &[
    "use", "using", "choose", "pick", "prefer", "better", "best", "learn", "vs",
];

/// Chinese fillers at the edge of a topic or a comparison side.
const CJK_EDGE_FILLERS: &[&str] = &[
    "有什么",
    "有哪些",
    "有何",
    "哪个",
    "应该",
    "该",
    "选",
    "用",
    "学",
];

/// CJK stopwords, particles and fillers, longest first (so "有什么" goes
/// before "什么").
fn cjk_edge_words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<&'static str> = CJK_STOPWORDS
            .iter()
            .chain(CJK_PARTICLES)
            .chain(CJK_EDGE_FILLERS)
            .copied()
            .collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        words
    })
}

fn is_edge_punct(c: char) -> bool {
    c.is_whitespace()
        || (c.is_ascii_punctuation() && !matches!(c, '#' | '+' | '"' | '\''))
        || matches!(
            c,
            '，' | '。' | '？' | '！' | '：' | '；' | '、' | '（' | '）' | '…' | '·'
        )
}

/// Trim punctuation, stopwords and fillers from both ends of `text`, and
/// collapse whitespace.
pub(crate) fn trim_edges(text: &str) -> String {
    let mut s = text.trim_matches(is_edge_punct);
    loop {
        let before = s.len();
        // Leading Latin word.
        let first_end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
            .unwrap_or(s.len());
        if first_end > 0 {
            let w = &s[..first_end];
            if stopwords::is_stopword(w) || EDGE_FILLERS.iter().any(|f| f.eq_ignore_ascii_case(w)) {
                s = s[first_end..].trim_start_matches(is_edge_punct);
            }
        }
        // Trailing Latin word.
        let last_start = s
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
            .map_or(0, |i| i + s[i..].chars().next().map_or(1, char::len_utf8));
        if last_start < s.len() {
            let w = &s[last_start..];
            if stopwords::is_stopword(w) || EDGE_FILLERS.iter().any(|f| f.eq_ignore_ascii_case(w)) {
                s = s[..last_start].trim_end_matches(is_edge_punct);
            }
        }
        // CJK function words at either end, unless part of a real word.
        let cjk_edge = !s.as_bytes().first().is_none_or(u8::is_ascii)
            || !s.as_bytes().last().is_none_or(u8::is_ascii);
        if cjk_edge {
            for w in cjk_edge_words() {
                if s.starts_with(w) && !PARTICLE_WORDS.iter().any(|k| s.starts_with(k)) {
                    s = s[w.len()..].trim_start_matches(is_edge_punct);
                }
                if s.ends_with(w) && !PARTICLE_WORDS.iter().any(|k| s.ends_with(k)) {
                    s = s[..s.len() - w.len()].trim_end_matches(is_edge_punct);
                }
            }
        }
        if s.len() == before {
            break;
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The query without its signal words and window cues: what it is about.
/// Falls back to the whole query when nothing is left.
pub fn topic(query: &str, classification: &Classification) -> String {
    let spans: Vec<(usize, usize)> = classification
        .signals
        .iter()
        .map(|s| (s.start, s.end))
        .chain(classification.windows.iter().map(|w| (w.start, w.end)))
        .collect();
    let t = trim_edges(&mask_spans(query, (0, query.len()), &spans));
    if t.chars().any(char::is_alphanumeric) {
        t
    } else {
        trim_edges(query)
    }
}

/// The English form of `text`: itself with synonyms expanded when it has no
/// CJK, its glossary translation (synonyms expanded) when that is complete.
pub(crate) fn english_form(text: &str) -> Option<String> {
    if !text.chars().any(is_cjk) {
        return Some(synonyms::expand(text).into_owned());
    }
    glossary::english_variant(text).map(|t| synonyms::expand(&t).into_owned())
}

/// Which template language fits a text without an English form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TemplateLang {
    En,
    Zh,
    Ko,
}

fn template_lang(text: &str) -> TemplateLang {
    match language_of(text) {
        Some("zh") => TemplateLang::Zh,
        Some("ko") => TemplateLang::Ko,
        _ => TemplateLang::En,
    }
}

/// A topic longer than this many words (or [`LONG_TOPIC_CHARS`]
/// characters) is replaced by its anchor terms in the templates.
pub(crate) const LONG_TOPIC_WORDS: usize = 6;
/// See [`LONG_TOPIC_WORDS`].
pub(crate) const LONG_TOPIC_CHARS: usize = 40;

/// A topic short enough to put in a template: long questions are reduced to
/// their anchor terms ("novel published 1987 Booker Prize Japan").
fn template_topic(topic: &str) -> String {
    let long = topic.split_whitespace().count() > LONG_TOPIC_WORDS
        || topic.chars().count() > LONG_TOPIC_CHARS;
    if !long {
        return topic.to_string();
    }
    let terms = focused::anchor_terms(topic);
    if terms.is_empty() {
        topic.to_string()
    } else {
        terms.join(" ")
    }
}

struct SubQueryList {
    cap: usize,
    query_has_cjk: bool,
    items: Vec<SubQuery>,
    keys: Vec<String>,
    dropped: Vec<PlanDrop>,
}

impl SubQueryList {
    fn push(&mut self, text: &str, purpose: SubQueryPurpose) {
        let tidy = !text.starts_with(' ') && !text.ends_with(' ') && !text.contains("  ");
        let text = if tidy {
            text.to_string()
        } else {
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        if text.is_empty() {
            return;
        }
        let key = text.to_lowercase();
        if self.keys.contains(&key) {
            return;
        }
        self.keys.push(key);
        if self.items.len() >= self.cap {
            self.dropped.push(PlanDrop {
                kind: DroppedKind::SubQuery,
                text,
                reason: format!("over the sub-query cap of {}", self.cap),
            });
            return;
        }
        let lang = if text.chars().any(is_cjk) {
            language_of(&text)
        } else if self.query_has_cjk {
            Some("en")
        } else {
            None
        };
        self.items.push(SubQuery {
            text,
            purpose,
            lang: lang.map(str::to_string),
        });
    }
}

fn fill(template: &str, topic: &str, year: i32) -> String {
    let year_text = year.to_string();
    let year_fill = if topic.contains(&year_text) {
        ""
    } else {
        year_text.as_str()
    };
    template
        .replace("{topic}", topic)
        .replace("{year}", year_fill)
}

/// Plan the sub-queries of `query` for `intent`.
pub fn sub_queries(
    query: &str,
    intent: Intent,
    classification: &Classification,
    options: &PlanOptions,
) -> Expansion {
    let query_has_cjk = query.chars().any(is_cjk);
    let mut list = SubQueryList {
        cap: options.max_sub_queries.max(1),
        query_has_cjk,
        items: Vec::new(),
        keys: Vec::new(),
        dropped: Vec::new(),
    };
    let topic = template_topic(&topic(query, classification));

    list.push(query, SubQueryPurpose::Original);

    let sides = if intent == Intent::Comparison {
        comparison::sides(query, classification)
    } else {
        Vec::new()
    };

    if options.english_variant
        && query_has_cjk
        && sides.len() < 2
        && let Some(en) = glossary::english_variant(query)
    {
        list.push(&synonyms::expand(&en), SubQueryPurpose::Translation);
    }

    if sides.len() >= 2 {
        list.push_comparison(query, &sides);
    } else {
        list.push_templates(intent, &topic, options.year());
    }

    let expanded = synonyms::expand(query);
    if expanded != query {
        list.push(&expanded, SubQueryPurpose::Synonyms);
    }

    Expansion {
        topic,
        sub_queries: list.items,
        rivals: sides,
        dropped: list.dropped,
    }
}

impl SubQueryList {
    /// A comparison with two or more sides: one query for all sides, then
    /// one per side — in English when every side has an English form, else
    /// in the query's language.
    fn push_comparison(&mut self, query: &str, sides: &[String]) {
        let english: Option<Vec<String>> = sides.iter().map(|s| english_form(s)).collect();
        let (forms, split) = match english {
            Some(forms) => (forms, &COMPARISON_SPLIT_EN),
            None => {
                let raw: Vec<String> = sides
                    .iter()
                    .map(|s| synonyms::expand(s).into_owned())
                    .collect();
                let split = match template_lang(query) {
                    TemplateLang::Zh => &COMPARISON_SPLIT_ZH,
                    TemplateLang::Ko => &COMPARISON_SPLIT_KO,
                    TemplateLang::En => &COMPARISON_SPLIT_EN,
                };
                (raw, split)
            }
        };
        self.push(
            &split[0].0.replace("{sides}", &forms.join(" vs ")),
            split[0].1,
        );
        for side in &forms {
            self.push(&split[1].0.replace("{side}", side), split[1].1);
        }
    }

    /// The intent's templates filled with the topic (in English when it has
    /// an English form, else in its own language) and the year.
    fn push_templates(&mut self, intent: Intent, topic: &str, year: i32) {
        let row = templates(intent);
        let (base, table) = match english_form(topic) {
            Some(en) => (en, row.en),
            None => {
                let table = match template_lang(topic) {
                    TemplateLang::Zh => row.zh,
                    TemplateLang::Ko => row.ko,
                    TemplateLang::En => row.en,
                };
                (synonyms::expand(topic).into_owned(), table)
            }
        };
        for (template, purpose) in table {
            self.push(&fill(template, &base, year), *purpose);
        }
    }
}
