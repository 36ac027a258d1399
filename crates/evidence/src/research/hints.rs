//! Source hints of a question that decide browser work (in English,
//! Chinese and Korean): does it point at Naver (iframe shells), official pages,
//! tables / lists / ordinals (which need the DOM), or dynamic page state
//! (tabs, filters, pagination, infinite scroll)?
//!
//! Cue words are matched case-insensitively; English cues as whole words,
//! CJK cues as substrings. A plan whose focused queries include a
//! `source-restricted-discovery` query also counts as asking for official
//! sources.

use ferret_core::plan::{FocusedPurpose, Plan};
use serde::{Deserialize, Serialize};

/// A hint about where the answer lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceHint {
    /// Naver blogs, cafés, 지식인: pages behind iframe shells.
    Naver,
    /// Official sites, government, announcements.
    Official,
    /// A table, list, ranking or ordinal position.
    Structured,
    /// Dynamic page state: JavaScript, tabs, filters, pagination.
    Dynamic,
}

/// Cue words per hint.
pub const HINT_CUES: &[(SourceHint, &[&str])] = &[
    (
        SourceHint::Naver,
        &["네이버", "naver", "블로그", "카페", "지식인"],
    ),
    (
        SourceHint::Official,
        &[
            "공식",
            "기관",
            "정부",
            "공지사항",
            "보도자료",
            "official",
            "government",
            "press release",
            "announcement",
            "官方",
            "官网",
            "政府",
            "公告",
            "go.kr",
            "or.kr",
            ".gov",
        ],
    ),
    (
        SourceHint::Structured,
        &[
            "표",
            "목록",
            "순위",
            "랭킹",
            "번째",
            "상위",
            "하위",
            "항목",
            "리스트",
            "table",
            "list",
            "ranking",
            "ranked",
            "leaderboard",
            "top 10",
            "top ten",
            "表格",
            "列表",
            "排名",
            "排行",
            "名单",
        ],
    ),
    (
        SourceHint::Dynamic,
        &[
            "iframe",
            "postview",
            "javascript",
            "자바스크립트",
            "동적",
            "탭",
            "필터",
            "페이지네이션",
            "무한스크롤",
            "dynamic",
            "infinite scroll",
            "pagination",
            "动态",
            "分页",
            "筛选",
        ],
    ),
];

fn has_cue(lowered: &str, cue: &str) -> bool {
    if !cue.is_ascii() || cue.starts_with('.') || cue.contains('.') {
        return lowered.contains(cue);
    }
    lowered.match_indices(cue).any(|(i, m)| {
        let before = lowered[..i].chars().next_back();
        let after = lowered[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The hints in `text`, in [`HINT_CUES`] order.
pub fn hints_in(text: &str) -> Vec<SourceHint> {
    let lowered = text.to_lowercase();
    HINT_CUES
        .iter()
        .filter(|(_, cues)| cues.iter().any(|c| has_cue(&lowered, c)))
        .map(|(hint, _)| *hint)
        .collect()
}

/// The hints of a plan: its question's, plus `official` when it planned a
/// source-restricted query.
pub fn plan_hints(plan: &Plan) -> Vec<SourceHint> {
    let mut hints = hints_in(&plan.query);
    if !hints.contains(&SourceHint::Official)
        && plan
            .focused_queries
            .iter()
            .any(|q| q.purpose == FocusedPurpose::SourceRestrictedDiscovery)
    {
        hints.push(SourceHint::Official);
    }
    hints
}

/// Whether the plan itself requires browser verification (Naver,
/// structured, or dynamic).
pub fn browse_required(hints: &[SourceHint]) -> bool {
    hints.iter().any(|h| {
        matches!(
            h,
            SourceHint::Naver | SourceHint::Structured | SourceHint::Dynamic
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_by_language() {
        assert_eq!(hints_in("네이버 블로그 후기"), vec![SourceHint::Naver]);
        assert_eq!(
            hints_in("the official list of members"),
            vec![SourceHint::Official, SourceHint::Structured]
        );
        assert_eq!(hints_in("Playlists for runners"), Vec::<SourceHint>::new());
        assert_eq!(
            hints_in("政府公告 排名"),
            vec![SourceHint::Official, SourceHint::Structured]
        );
    }
}
