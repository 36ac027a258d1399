//! Absorption signals (evidence density): does a passage
//! carry evidence an answer can absorb — figures, definitions, comparisons,
//! steps, disclosed sources — or is it a bare Q&A?
//!
//! ```text
//! absorption = 0.15 base
//!            + 0.22 numbers      (figures with a unit, %, 亿/万, Q1–Q4, "2024年", YoY wording)
//!            + 0.18 definition   ("is defined as", "refers to", 是指, 定义为 …)
//!            + 0.16 comparison   (vs, versus, compared with, 相比, 高于 …)
//!            + 0.12 how-to       (step 1, how to, tutorial, 步骤, 如何 …)
//!            + 0.08 disclosure   (according to, data show, 根据, 数据显示, 来源: …)
//!            + 0.05 length       (title + passage ≥ 80 characters)
//!            − 0.08 Q&A format   ("Q:" / "A:" / 问: / 答: lines, a title ending in "?")
//! ```
//!
//! clamped to 0–1. The patterns are Chinese and English; the English
//! equivalents of some Chinese patterns ("compared with", "according to",
//! "data show") are included.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The base absorption.
pub const BASE: f64 = 0.15;
/// Characters of title + passage that earn [`LENGTH_POINTS`].
pub const LENGTH_MIN_CHARS: usize = 80;
/// Points for a passage of at least [`LENGTH_MIN_CHARS`].
pub const LENGTH_POINTS: f64 = 0.05;
/// Points taken for a Q&A-format passage.
pub const QA_PENALTY: f64 = 0.08;

/// One absorption signal: its name, points and pattern.
#[derive(Debug, Clone, Copy)]
pub struct Signal {
    /// The name reported (`numbers`, `definition` …).
    pub name: &'static str,
    /// Points it adds.
    pub points: f64,
    /// The pattern (case-insensitive).
    pub pattern: &'static str,
}

/// The signals, in order.
pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "numbers",
        points: 0.22,
        pattern: r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:%|％|亿|万|万亿|pct|bp|元|美元|吨|倍|percent\b|million\b|billion\b|ms\b|gb\b|mb\b|x\b)|(?:环比|同比|较上[季年]度?)[^\n]{0,12}[+\-＋－]?\d|\bQ[1-4]\b|20\d{2}\s*年",
    },
    Signal {
        name: "definition",
        points: 0.18,
        pattern: r"是指|定义为|所谓|即指|指的是|是一种|可定义为|definition of|is defined as|refers to",
    },
    Signal {
        name: "comparison",
        points: 0.16,
        pattern: r"对比|比较|相较|相比|环比|同比|分别|\bvs\.?|versus|compared (?:with|to)|增持|减持|上升|下降|提升|回落|高于|低于|超过|不及",
    },
    Signal {
        name: "how_to",
        points: 0.12,
        pattern: r"步骤|如何|怎么做|操作建议|方法如下|第[一二三四五六七八九十1-9][步、.]|step\s*\d|how to|tutorial",
    },
    Signal {
        name: "disclosure",
        points: 0.08,
        pattern: r"截至|根据|数据显示|研究报告|披露|公告|季报|年报|来源[：:]|according to|data show|as of \w+ \d{4}|source:",
    },
];

/// The Q&A-format pattern (multi-line).
pub const QA_PATTERN: &str =
    r"(?m)(?:^|\n)\s*(?:Q\s*[:：]|A\s*[:：]|问\s*[:：]|答\s*[:：])|(?:怎么样|好不好|靠谱吗)\s*$";

static COMPILED: LazyLock<Vec<Option<Regex>>> = LazyLock::new(|| {
    SIGNALS
        .iter()
        .map(|s| Regex::new(&format!("(?i){}", s.pattern)).ok())
        .collect()
});

static QA: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!("(?i){QA_PATTERN}")).ok());

/// What [`absorption`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Absorption {
    /// The score, 0–1.
    pub score: f64,
    /// The signals that matched.
    pub signals: Vec<String>,
    /// Title + passage reached [`LENGTH_MIN_CHARS`].
    pub long_enough: bool,
    /// The passage reads as a Q&A.
    pub qa_format: bool,
}

/// The absorption score of `passage` under `title` (see the module
/// docs).
pub fn absorption(passage: &str, title: &str) -> Absorption {
    let body = format!("{title}\n{passage}");
    let mut score = BASE;
    let mut signals = Vec::new();
    for (signal, regex) in SIGNALS.iter().zip(COMPILED.iter()) {
        if regex.as_ref().is_some_and(|r| r.is_match(&body)) {
            score += signal.points;
            signals.push(signal.name.to_string());
        }
    }
    let long_enough = body.chars().count() >= LENGTH_MIN_CHARS;
    if long_enough {
        score += LENGTH_POINTS;
    }
    let qa_format = QA.as_ref().is_some_and(|r| r.is_match(&body))
        || title
            .trim()
            .chars()
            .next_back()
            .is_some_and(|c| c == '?' || c == '？');
    if qa_format {
        score -= QA_PENALTY;
    }
    Absorption {
        score: round3(score.clamp(0.0, 1.0)),
        signals,
        long_enough,
        qa_format,
    }
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(COMPILED.iter().all(Option::is_some));
        assert!(QA.is_some());
    }

    #[test]
    fn signals_add_up() {
        let a = absorption(
            "Compared with Deno, Bun starts 4x faster; according to the benchmark, startup is 12 ms.",
            "Bun vs Deno",
        );
        assert_eq!(a.signals, vec!["numbers", "comparison", "disclosure"]);
        assert!((a.score - (0.15 + 0.22 + 0.16 + 0.08 + 0.05)).abs() < 1e-9);
        let qa = absorption("Q: is it fast?\nA: yes", "");
        assert!(qa.qa_format);
        assert!((qa.score - (0.15 - 0.08)).abs() < 1e-9);
    }
}
