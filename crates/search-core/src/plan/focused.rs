//! Focused queries for the research step: short keyword queries
//! built from the question's anchor terms, at most
//! [`MAX_FOCUSED_QUERIES`] of at most [`MAX_FOCUSED_TERMS`] terms.
//!
//! In planning order:
//!
//! - `discovery`: the anchor terms (+ academic / encyclopedia source terms
//!   and years); the words that revealed a source hint ("official",
//!   "原文") are kept out of the anchor and go into the hint's own query;
//! - `verification` (two or more constraints): a few anchor terms plus the
//!   other constraints' terms;
//! - `source-restricted-discovery` when the question asks for official
//!   sources, else `original-source-verification` when it asks for the
//!   original;
//! - `era-sweep` when it asks for an origin ("first", "最早", "원조") or
//!   names a decade or century, to beat recency bias;
//! - `disconfirm`: look for a different answer (or, for an explicit claim,
//!   a refutation), against confirmation bias.
//!
//! When the question has a claim to check (a claim word, a yes/no question,
//! or two or more constraints), the disconfirm query always keeps a slot.

use std::sync::OnceLock;

use crate::tokenize::is_cjk;

use super::constraints::years;
use super::cues::CueSet;
use super::stopwords::{clean_cjk, is_stopword};
use super::{
    Constraint, DroppedKind, FocusedPurpose, FocusedQuery, MAX_FOCUSED_QUERIES, MAX_FOCUSED_TERMS,
    PlanDrop, language_of,
};

/// Terms in the question's language: English, Chinese, Korean.
#[derive(Debug, Clone, Copy)]
pub struct LangTerms {
    /// English.
    pub en: &'static [&'static str],
    /// Chinese.
    pub zh: &'static [&'static str],
    /// Korean.
    pub ko: &'static [&'static str],
}

impl LangTerms {
    /// The terms for `lang` (`zh`, `ko`; anything else: English).
    pub fn pick(&self, lang: &str) -> &'static [&'static str] {
        match lang {
            "zh" => self.zh,
            "ko" => self.ko,
            _ => self.en,
        }
    }
}

/// Kinds of source a question can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceHint {
    /// Official sites and announcements.
    Official,
    /// Papers and journals.
    Academic,
    /// The original (primary) source.
    Original,
    /// An encyclopedia.
    Encyclopedia,
}

/// The words that reveal each source hint, and the terms it adds.
pub(crate) const SOURCE_HINTS: &[(SourceHint, &[&str], LangTerms)] = &[
    (
        SourceHint::Official,
        &[
            "official",
            "government",
            "press release",
            "官方",
            "官网",
            "政府",
            "公告",
            "공식",
            "공지사항",
            "公式",
        ],
        LangTerms {
            en: &["official"],
            zh: &["官方"],
            ko: &["공식", "공지사항"],
        },
    ),
    (
        SourceHint::Academic,
        &[
            "paper", "papers", "journal", "study", "arxiv", "scholar", "论文", "学术", "期刊",
            "논문", "학술",
        ],
        LangTerms {
            en: &["paper"],
            zh: &["论文"],
            ko: &["논문", "학술"],
        },
    ),
    (
        SourceHint::Original,
        &[
            "original",
            "primary source",
            "first published",
            "originally",
            "原文",
            "出处",
            "原始",
            "원문",
            "출처",
        ],
        LangTerms {
            en: &["original", "source"],
            zh: &["原文", "出处"],
            ko: &["원문"],
        },
    ),
    (
        SourceHint::Encyclopedia,
        &[
            "wikipedia",
            "encyclopedia",
            "维基百科",
            "百科",
            "나무위키",
            "위키백과",
        ],
        LangTerms {
            en: &["wikipedia"],
            zh: &["百科"],
            ko: &["나무위키"],
        },
    ),
];

/// Words that mark a claim to check.
pub(crate) const CLAIM_CUES: &[&str] = &[
    "is it true",
    "true that",
    "claim",
    "claims",
    "claimed",
    "verify",
    "fact check",
    "fact-check",
    "really",
    "actually",
    "confirm",
    "whether",
    "rumor",
    "rumour",
    "allegedly",
    "supposedly",
    "hoax",
    "myth",
    "是否",
    "是不是",
    "真的",
    "真假",
    "属实",
    "确认",
    "核实",
    "据说",
    "传闻",
    "谣言",
    "声称",
    "확인",
    "사실",
    "맞는지",
    "진짜",
    "루머",
];

/// Words that mark an explicit claim (then the disconfirm query looks for a
/// refutation rather than a different answer).
pub(crate) const EXPLICIT_CLAIM_CUES: &[&str] = &[
    "is it true",
    "true that",
    "claim",
    "claims",
    "claimed",
    "fact check",
    "fact-check",
    "rumor",
    "rumour",
    "allegedly",
    "supposedly",
    "hoax",
    "myth",
    "真的",
    "真假",
    "属实",
    "据说",
    "传闻",
    "谣言",
    "声称",
    "사실",
    "진짜",
    "루머",
];

/// First words of a yes/no question.
pub(crate) const YES_NO_STARTS: &[&str] = &[
    "is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will",
    "would", "should",
];

/// Words that ask for an origin (they trigger the era sweep).
pub(crate) const ERA_MARKERS: &[&str] = &[
    "origin",
    "origins",
    "first",
    "earliest",
    "invented",
    "inventor",
    "coined",
    "meme",
    "trend",
    "history of",
    "最早",
    "起源",
    "首次",
    "最初",
    "由来",
    "鼻祖",
    "首个",
    "第一个",
    "流行语",
    "梗",
    "年代",
    "世纪",
    "원조",
    "최초",
    "시초",
    "유래",
    "기원",
    "밈",
    "유행",
    "짤",
    "세기",
    "년대",
];

/// Terms an era sweep adds.
pub const ERA_TERMS: LangTerms = LangTerms {
    en: &["origin", "first"],
    zh: &["起源", "最早"],
    ko: &["원조", "최초"],
};

/// Terms a disconfirm query adds to look for a different answer.
pub const DISCONFIRM_ENTITY: LangTerms = LangTerms {
    en: &["not", "other", "different"],
    zh: &["不是", "其他", "对比"],
    ko: &["아닌", "다른", "비교"],
};

/// Terms a disconfirm query adds to look for a refutation of a claim.
pub const DISCONFIRM_CLAIM: LangTerms = LangTerms {
    en: &["false", "debunked", "myth"],
    zh: &["辟谣", "不实", "假的"],
    ko: &["사실무근", "반박", "아닌"],
};

/// Words that say how to check rather than what to find; left out of
/// focused-query terms.
pub(crate) const FOCUS_NOISE: &[&str] = &[
    "true",
    "really",
    "actually",
    "verify",
    "claim",
    "claims",
    "claimed",
    "rumor",
    "allegedly",
    "supposedly",
    "difference",
    "differences",
    "compare",
    "compared",
    "comparison",
    "vs",
    "versus",
];

/// What [`plan`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Research {
    /// At most [`MAX_FOCUSED_QUERIES`] focused queries.
    pub queries: Vec<FocusedQuery>,
    /// Every disconfirm query planned.
    pub disconfirm: Vec<String>,
    /// Whether the question has a claim to check.
    pub has_claim: bool,
    /// Focused queries over the cap.
    pub dropped: Vec<PlanDrop>,
}

const CLAIM_BIT: u32 = 8;
const EXPLICIT_CLAIM_BIT: u32 = 9;
const ERA_BIT: u32 = 10;

/// Every cue list of this module in one automaton: source hints take bits
/// 0‥3 (their index in [`SOURCE_HINTS`]).
fn cues() -> &'static CueSet {
    static CUES: OnceLock<CueSet> = OnceLock::new();
    CUES.get_or_init(|| {
        let mut lists: Vec<(u32, &[&str])> = SOURCE_HINTS
            .iter()
            .enumerate()
            .map(|(i, (_, words, _))| (i as u32, *words))
            .collect();
        lists.push((CLAIM_BIT, CLAIM_CUES));
        lists.push((EXPLICIT_CLAIM_BIT, EXPLICIT_CLAIM_CUES));
        lists.push((ERA_BIT, ERA_MARKERS));
        CueSet::new(&lists)
    })
}

/// Surface terms of `text` for a keyword query: words (case kept) and CJK
/// runs with function words cut out, ≥ 2 characters, minus stopwords.
pub fn surface_terms(text: &str) -> Vec<String> {
    let cleaned = clean_cjk(text);
    let mut out: Vec<String> = Vec::new();
    let keep = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '+' | '#');
    let mut push = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, '.' | '-' | ':' | '_'));
        if w.chars().count() >= 2
            && !is_stopword(w)
            && !FOCUS_NOISE.iter().any(|n| n.eq_ignore_ascii_case(w))
            && !out.iter().any(|o| o.eq_ignore_ascii_case(w))
        {
            out.push(w.to_string());
        }
    };
    let mut start: Option<usize> = None;
    let mut prev_cjk = false;
    for (i, c) in cleaned.char_indices() {
        let cjk = is_cjk(c);
        if keep(c) {
            match start {
                Some(s) if cjk != prev_cjk => {
                    push(&cleaned[s..i]);
                    start = Some(i);
                }
                Some(_) => {}
                None => start = Some(i),
            }
            prev_cjk = cjk;
        } else if let Some(s) = start.take() {
            push(&cleaned[s..i]);
        }
    }
    if let Some(s) = start {
        push(&cleaned[s..]);
    }
    out
}

/// The question's anchor terms: its rarer surface terms (≥ 3
/// characters, or with a capital or digit, or a CJK word), first 8.
pub fn anchor_terms(question: &str) -> Vec<String> {
    let all = surface_terms(question);
    let rare: Vec<String> = all
        .iter()
        .filter(|t| {
            t.chars().count() >= 3
                || t.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
                || t.chars().any(is_cjk)
        })
        .cloned()
        .collect();
    let mut chosen = if rare.is_empty() { all } else { rare };
    chosen.truncate(8);
    chosen
}

/// Up to [`MAX_FOCUSED_TERMS`] distinct terms.
fn compact<'a>(parts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() || out.iter().any(|o| o.eq_ignore_ascii_case(p)) {
            continue;
        }
        out.push(p.to_string());
        if out.len() == MAX_FOCUSED_TERMS {
            break;
        }
    }
    out
}

fn query(terms: Vec<String>, purpose: FocusedPurpose, ids: &[Constraint]) -> FocusedQuery {
    FocusedQuery {
        text: terms.join(" "),
        terms,
        purpose,
        constraint_ids: ids.iter().map(|c| c.id.clone()).collect(),
    }
}

/// Plan the focused queries of `question` with its constraints.
pub fn plan(question: &str, constraints: &[Constraint]) -> Research {
    let reading = Reading::of(question, constraints);
    let mut planned: Vec<FocusedQuery> = Vec::new();
    planned.push(reading.discovery(constraints));
    planned.extend(reading.verification(constraints));
    planned.extend(reading.source_query(constraints));
    planned.extend(reading.era_sweep(constraints));
    planned.push(reading.disconfirm_query());

    dedupe(&mut planned);
    let disconfirm: Vec<String> = if reading.anchor.is_empty() {
        Vec::new()
    } else {
        planned
            .iter()
            .filter(|q| q.purpose == FocusedPurpose::Disconfirm)
            .map(|q| q.text.clone())
            .collect()
    };
    if reading.anchor.is_empty() {
        planned.retain(|q| q.purpose != FocusedPurpose::Disconfirm);
    }
    // The disconfirm query keeps a slot when there is a claim to check.
    let reserve = usize::from(reading.has_claim && !disconfirm.is_empty());
    let (queries, dropped) = cap(planned, reserve);
    Research {
        queries,
        disconfirm,
        has_claim: reading.has_claim,
        dropped,
    }
}

/// What the question reveals for planning: its language, anchor terms,
/// source hints, years and whether it has a claim to check.
struct Reading {
    lang: &'static str,
    anchor: Vec<String>,
    hints: Vec<(SourceHint, &'static LangTerms)>,
    /// Terms of the academic and encyclopedia hints, in the question's language.
    source_terms: Vec<&'static str>,
    date_terms: Vec<String>,
    /// The cue bits found in the question (see [`cues`]).
    found: u32,
    explicit_claim: bool,
    has_claim: bool,
}

impl Reading {
    fn of(question: &str, constraints: &[Constraint]) -> Self {
        let lang = match language_of(question) {
            Some("zh") => "zh",
            Some("ko") => "ko",
            _ => "en",
        };
        let found = cues().find(question);
        let detected: Vec<&'static (SourceHint, &[&str], LangTerms)> = SOURCE_HINTS
            .iter()
            .enumerate()
            .filter(|(i, _)| found & (1 << i) != 0)
            .map(|(_, h)| h)
            .collect();
        // The hint words themselves go into the hint's own query, not the anchor.
        let anchor: Vec<String> = anchor_terms(question)
            .into_iter()
            .filter(|t| {
                !detected
                    .iter()
                    .any(|(_, cues, _)| cues.iter().any(|c| c.eq_ignore_ascii_case(t)))
            })
            .collect();
        let hints: Vec<(SourceHint, &'static LangTerms)> =
            detected.iter().map(|(h, _, terms)| (*h, terms)).collect();
        let source_terms: Vec<&'static str> = hints
            .iter()
            .filter(|(h, _)| matches!(h, SourceHint::Academic | SourceHint::Encyclopedia))
            .flat_map(|(_, t)| t.pick(lang).iter().copied())
            .collect();
        let date_terms: Vec<String> = years(question)
            .into_iter()
            .map(|(y, _)| y.to_string())
            .collect();
        let explicit_claim = found & (1 << EXPLICIT_CLAIM_BIT) != 0;
        let has_claim = explicit_claim
            || found & (1 << CLAIM_BIT) != 0
            || is_yes_no(question)
            || constraints.len() >= 2;
        Self {
            lang,
            anchor,
            hints,
            source_terms,
            date_terms,
            found,
            explicit_claim,
            has_claim,
        }
    }

    /// The first `n` anchor terms.
    fn head(&self, n: usize) -> impl Iterator<Item = &str> {
        self.anchor.iter().take(n).map(String::as_str)
    }

    fn dates(&self) -> impl Iterator<Item = &str> {
        self.date_terms.iter().map(String::as_str)
    }

    /// The terms of source hint `h`, when the question has it.
    fn hint(&self, h: SourceHint) -> Option<&'static LangTerms> {
        self.hints.iter().find(|(k, _)| *k == h).map(|(_, t)| *t)
    }

    /// The anchor terms with source terms and years.
    fn discovery(&self, constraints: &[Constraint]) -> FocusedQuery {
        query(
            compact(
                self.head(8)
                    .chain(self.source_terms.iter().copied())
                    .chain(self.dates()),
            ),
            FocusedPurpose::Discovery,
            &constraints[..constraints.len().min(2)],
        )
    }

    /// With two or more constraints: a few anchor terms plus the other
    /// constraints' terms.
    fn verification(&self, constraints: &[Constraint]) -> Option<FocusedQuery> {
        if constraints.len() <= 1 {
            return None;
        }
        let rest_text: Vec<&str> = constraints[1..].iter().map(|c| c.text.as_str()).collect();
        let rest_terms = surface_terms(&rest_text.join(" "));
        Some(query(
            compact(
                self.head(4)
                    .chain(rest_terms.iter().take(6).map(String::as_str))
                    .chain(self.source_terms.iter().copied()),
            ),
            FocusedPurpose::Verification,
            &constraints[1..constraints.len().min(4)],
        ))
    }

    /// A query for official sources, else for the original source.
    fn source_query(&self, constraints: &[Constraint]) -> Option<FocusedQuery> {
        if let Some(terms) = self.hint(SourceHint::Official) {
            Some(query(
                compact(
                    terms
                        .pick(self.lang)
                        .iter()
                        .copied()
                        .chain(self.head(5))
                        .chain(self.dates()),
                ),
                FocusedPurpose::SourceRestrictedDiscovery,
                constraints,
            ))
        } else {
            self.hint(SourceHint::Original).map(|terms| {
                query(
                    compact(self.head(5).chain(terms.pick(self.lang).iter().copied())),
                    FocusedPurpose::OriginalSourceVerification,
                    constraints,
                )
            })
        }
    }

    /// When the question asks for an origin or an era: origin terms, to
    /// beat recency bias.
    fn era_sweep(&self, constraints: &[Constraint]) -> Option<FocusedQuery> {
        (self.found & (1 << ERA_BIT) != 0).then(|| {
            query(
                compact(
                    ERA_TERMS
                        .pick(self.lang)
                        .iter()
                        .copied()
                        .chain(self.head(5))
                        .chain(self.dates()),
                ),
                FocusedPurpose::EraSweep,
                &constraints[..constraints.len().min(1)],
            )
        })
    }

    /// Look for a different answer, or for an explicit claim a refutation.
    fn disconfirm_query(&self) -> FocusedQuery {
        let disconfirm_terms = if self.explicit_claim {
            DISCONFIRM_CLAIM
        } else {
            DISCONFIRM_ENTITY
        };
        query(
            compact(
                self.head(5)
                    .chain(disconfirm_terms.pick(self.lang).iter().copied()),
            ),
            FocusedPurpose::Disconfirm,
            &[],
        )
    }
}

/// Whether `question` reads as a yes/no question of three or more words.
fn is_yes_no(question: &str) -> bool {
    let lower = question.to_lowercase();
    let first_word = lower
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    YES_NO_STARTS.contains(&first_word) && lower.split_whitespace().count() >= 3
}

/// Deduplicate; drop queries with no anchor term at all.
fn dedupe(planned: &mut Vec<FocusedQuery>) {
    let mut seen: Vec<String> = Vec::new();
    planned.retain(|q| {
        let key = q.text.to_lowercase();
        let fresh = !q.terms.is_empty() && !seen.contains(&key);
        seen.push(key);
        fresh
    });
}

/// Keep at most [`MAX_FOCUSED_QUERIES`], `reserve` slots of them for the
/// disconfirm query; the rest are dropped with a reason.
fn cap(planned: Vec<FocusedQuery>, reserve: usize) -> (Vec<FocusedQuery>, Vec<PlanDrop>) {
    let mut queries = Vec::new();
    let mut dropped = Vec::new();
    for q in planned {
        let is_disconfirm = q.purpose == FocusedPurpose::Disconfirm;
        let room = if is_disconfirm {
            MAX_FOCUSED_QUERIES
        } else {
            MAX_FOCUSED_QUERIES - reserve
        };
        if queries.len() < room {
            queries.push(q);
        } else {
            dropped.push(PlanDrop {
                kind: DroppedKind::FocusedQuery,
                reason: format!(
                    "over the focused-query cap of {MAX_FOCUSED_QUERIES} ({})",
                    q.purpose.as_str()
                ),
                text: q.text,
            });
        }
    }
    (queries, dropped)
}
