//! Result-set presentation: how a [`ferret_core::SearchResponse`] is
//! shown, chosen by its size, as the `ferret.presentation.v1` struct and as
//! Markdown.
//!
//! | results | layout | what is shown |
//! |---|---|---|
//! | ≤ 5 | [`Layout::List`] | every result with its engines and score |
//! | 6–15 | [`Layout::Themes`] | results grouped by theme, each group labelled |
//! | > 15 | [`Layout::Overview`] | the themes (with sizes), then the top 5 |
//!
//! Every result is always in [`Presentation::results`] (the layouts differ
//! in what the Markdown shows, not in what the struct holds), so nothing is
//! dropped.
//!
//! ## Themes, without a model
//!
//! Each result's title (counted twice) and snippet give its terms: words of
//! three or more letters that are not stopwords (plural-stemmed), and CJK
//! character bigrams; the query's own terms are removed (every result has
//! them). Terms are weighted TF-IDF over the result set; only terms that
//! two or more results share and that at most half the results have (with
//! four or more results) count, and each result keeps its eight heaviest.
//! Results are then merged average-link by cosine similarity while the best
//! pair of groups is at least [`PresentOptions::min_similarity`] (default
//! 0.15) alike. Groups of two or more are themes, labelled by their three
//! heaviest shared terms; results that joined no group form a final
//! "other" theme. At most [`PresentOptions::max_clustered`] results (the
//! best-ranked) are clustered and checked for conflicts; any beyond go to
//! "other".
//!
//! ## Conflicts
//!
//! Two results conflict when the evidence judgement ([`crate::ledger::judge`])
//! finds that a statement of one's title and snippet is refuted by the
//! other's: a different number, date or name where the statement puts its
//! own, the opposite polarity (`supports` / `does not support`), or the
//! opposite direction (`faster` / `slower`). Each conflict quotes the two
//! passages that disagree. Results that agree are never flagged, nor are
//! results about other things; a paraphrase the judgement cannot read is
//! missed. It flags for a reader, it decides nothing.
//!
//! Source tiers come from [`ferret_core::authority`] (via
//! [`SourceTier::from_url`]). A T1 result that disagrees with two or more
//! lower-tier results gives one `[T1 vs community]` conflict, with the T1
//! result kept; any other disagreeing pair is `[conflict]` (T1 over a
//! single lower tier: the T1 result is kept; equal tiers: neither).
//! Conflicting results carry the flag too.
//!
//! ## Answer first
//!
//! The answer comes first, then its sources, grouped by theme rather than
//! by engine, with conflicts stated. The answer is the agent's to write —
//! this module produces the sources block that goes *under* it
//! ([`Presentation::to_markdown`]), already grouped by theme and with
//! conflicts stated.

use crate::option_error::OptionError;
use ferret_core::{SearchResponse, SearchResult};
use serde::{Deserialize, Serialize};

use crate::evidence_item::SourceTier;

mod conflicts;
mod markdown;
mod themes;

/// The schema name of [`Presentation`].
pub const PRESENTATION_SCHEMA: &str = "ferret.presentation.v1";

/// The flag of a tier-1 source contradicted by two or more lower tiers
/// (the goggles' flag: one spelling for both).
pub const T1_VS_COMMUNITY_FLAG: &str = ferret_core::goggles::FLAG_T1_VS_COMMUNITY;

/// The flag of any other conflict (the goggles' flag).
pub const CONFLICT_FLAG: &str = ferret_core::goggles::FLAG_CONFLICT;

/// How a result set is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Every result, one per line.
    List,
    /// Results grouped by theme.
    Themes,
    /// Themes with their sizes, then the top results.
    Overview,
}

/// Options of [`present`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PresentOptions {
    /// Up to this many results: [`Layout::List`] (default 5).
    pub list_max: usize,
    /// Up to this many: [`Layout::Themes`]; more: [`Layout::Overview`]
    /// (default 15).
    pub themes_max: usize,
    /// Results shown in full in an overview (default 5).
    pub top: usize,
    /// Snippets are cut to this many characters (default 160).
    pub snippet_chars: usize,
    /// Least average cosine similarity for two groups to merge (default
    /// 0.15).
    pub min_similarity: f64,
    /// Most results clustered and checked for conflicts, best-ranked first
    /// (default 200).
    pub max_clustered: usize,
}

impl Default for PresentOptions {
    fn default() -> Self {
        PresentOptions {
            list_max: 5,
            themes_max: 15,
            top: 5,
            snippet_chars: 160,
            min_similarity: 0.15,
            max_clustered: 200,
        }
    }
}

/// One result as shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PresentedResult {
    /// 1-based position in the response.
    pub rank: usize,
    /// The title.
    pub title: String,
    /// The URL to show (as the engine returned it).
    pub url: String,
    /// The registrable domain.
    pub domain: String,
    /// The snippet, cut at a word boundary (`…` when cut).
    pub snippet: String,
    /// The engines that returned it, first-seen order.
    pub engines: Vec<String>,
    /// Its final score.
    pub score: f64,
    /// Its source tier.
    pub source_tier: SourceTier,
    /// The result's own flags plus conflict flags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// A group of results about one theme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Theme {
    /// The label: its top terms joined by ` · ` (`Other results` for the
    /// catch-all group).
    pub label: String,
    /// Its top terms.
    pub terms: Vec<String>,
    /// Its results, by rank.
    pub ranks: Vec<usize>,
    /// Whether it is the catch-all group of results that joined no theme.
    #[serde(default)]
    pub other: bool,
}

/// Which conflict rule applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictKind {
    /// A T1 source against two or more lower tiers (`[T1 vs community]`).
    TierOneVsCommunity,
    /// Any other pair that disagrees (`[conflict]`).
    Disagreement,
}

/// Results that assert opposite things.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// The rule.
    pub kind: ConflictKind,
    /// `[T1 vs community]` or `[conflict]`.
    pub flag: String,
    /// The results, by rank (the T1 one first for
    /// [`ConflictKind::TierOneVsCommunity`]).
    pub ranks: Vec<usize>,
    /// The result to prefer, when tiers decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_rank: Option<usize>,
    /// The claim's facts and words the refuting passage holds.
    pub terms: Vec<String>,
    /// Why, in a few words (the judgement's reason).
    pub reason: String,
    /// The passages that disagree, verbatim from each result's title and
    /// snippet: a statement and the passage that refutes it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<ConflictQuote>,
}

/// A passage of one result in a conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictQuote {
    /// The result's rank.
    pub rank: usize,
    /// The passage (a sentence of its title and snippet).
    pub text: String,
}

impl conflicts::Disagreement {
    /// The two quotes, each with its result's rank (`i`, `j` 0-based).
    fn quotes_of(&self, i: usize, j: usize) -> [ConflictQuote; 2] {
        let (mine, theirs) = if self.flipped {
            (&self.quotes.1, &self.quotes.0)
        } else {
            (&self.quotes.0, &self.quotes.1)
        };
        [
            ConflictQuote {
                rank: i + 1,
                text: mine.clone(),
            },
            ConflictQuote {
                rank: j + 1,
                text: theirs.clone(),
            },
        ]
    }
}

/// The `ferret.presentation.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Presentation {
    /// Always [`PRESENTATION_SCHEMA`].
    pub schema: String,
    /// The query.
    pub query: String,
    /// The layout chosen by size.
    pub layout: Layout,
    /// Number of results.
    pub total: usize,
    /// The engines that contributed results, first-seen order.
    pub engines: Vec<String>,
    /// Every result, in rank order.
    pub results: Vec<PresentedResult>,
    /// Themes (empty for [`Layout::List`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub themes: Vec<Theme>,
    /// Ranks shown in full by an overview (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<usize>,
    /// Conflicting results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
    /// One line: how many results, from which engines, in how many themes.
    pub summary: String,
}

impl Presentation {
    /// The result at `rank` (1-based).
    pub fn result(&self, rank: usize) -> Option<&PresentedResult> {
        rank.checked_sub(1).and_then(|i| self.results.get(i))
    }

    /// The Markdown sources block: lines like
    /// ``1. [Title](url) — snippet… `[brave, exa]` ⭐0.85`` for a list,
    /// `**Theme n: label**` groups of `- ` lines, or an overview (summary,
    /// themes with sizes, the top results, a closing question), then any
    /// conflicts.
    pub fn to_markdown(&self) -> String {
        markdown::render(self)
    }
}

fn validate(o: &PresentOptions) -> Result<(), OptionError> {
    let err =
        |name, value: String, expected| OptionError::new("presentation", name, value, expected);
    if o.themes_max < o.list_max {
        return Err(err(
            "themes_max",
            o.themes_max.to_string(),
            "at least list_max",
        ));
    }
    if o.top == 0 {
        return Err(err("top", "0".into(), "at least 1"));
    }
    if o.snippet_chars < 10 {
        return Err(err(
            "snippet_chars",
            o.snippet_chars.to_string(),
            "at least 10",
        ));
    }
    if !(0.0..=1.0).contains(&o.min_similarity) {
        return Err(err(
            "min_similarity",
            o.min_similarity.to_string(),
            "0 to 1",
        ));
    }
    Ok(())
}

/// `text` with whitespace collapsed, cut to `max` characters at a word
/// boundary, with `…` when cut.
fn cut_snippet(text: &str, max: usize) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let end = collapsed
        .char_indices()
        .nth(max)
        .map_or(collapsed.len(), |(i, _)| i);
    let head = &collapsed[..end];
    let cut = match head.rfind(' ') {
        Some(space) if space > end / 2 => &head[..space],
        _ => head,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// Presents a search response (see the module docs).
pub fn present(
    response: &SearchResponse,
    options: &PresentOptions,
) -> Result<Presentation, OptionError> {
    present_results(&response.query, &response.results, options)
}

/// Presents results for `query`, given best first.
pub fn present_results(
    query: &str,
    results: &[SearchResult],
    options: &PresentOptions,
) -> Result<Presentation, OptionError> {
    validate(options)?;
    let total = results.len();
    let layout = if total <= options.list_max {
        Layout::List
    } else if total <= options.themes_max {
        Layout::Themes
    } else {
        Layout::Overview
    };
    let (mut presented, engines) = present_each(results, options.snippet_chars);
    let themes = if layout == Layout::List {
        Vec::new()
    } else {
        build_themes(query, results, options)
    };
    let conflicts = find_conflicts(results, &presented, options.max_clustered);
    for c in &conflicts {
        for &rank in &c.ranks {
            let flags = &mut presented[rank - 1].flags;
            if !flags.contains(&c.flag) {
                flags.push(c.flag.clone());
            }
        }
    }
    let top: Vec<usize> = if layout == Layout::Overview {
        (1..=total.min(options.top)).collect()
    } else {
        Vec::new()
    };
    let theme_count = themes.iter().filter(|t| !t.other).count();
    let summary = summary_line(total, &engines, layout, theme_count, conflicts.len());
    Ok(Presentation {
        schema: PRESENTATION_SCHEMA.to_string(),
        query: query.to_string(),
        layout,
        total,
        engines,
        results: presented,
        themes,
        top,
        conflicts,
        summary,
    })
}

/// Each result as shown, with the engines of the whole set in first-seen
/// order.
fn present_each(
    results: &[SearchResult],
    snippet_chars: usize,
) -> (Vec<PresentedResult>, Vec<String>) {
    let mut engines: Vec<String> = Vec::new();
    let presented = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mine: Vec<String> = r
                .consensus_engines()
                .into_iter()
                .map(str::to_owned)
                .collect();
            for e in &mine {
                if !engines.contains(e) {
                    engines.push(e.clone());
                }
            }
            PresentedResult {
                rank: i + 1,
                title: r.title.to_string(),
                url: r.original_url.to_string(),
                domain: r.domain.clone(),
                snippet: cut_snippet(&r.snippet, snippet_chars),
                engines: mine,
                score: r.scores.final_score,
                source_tier: SourceTier::from_url(&r.original_url),
                flags: r.flags.clone(),
            }
        })
        .collect();
    (presented, engines)
}

/// `12 results from brave, exa in 3 themes; 1 conflict`.
fn summary_line(
    total: usize,
    engines: &[String],
    layout: Layout,
    theme_count: usize,
    conflicts: usize,
) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let from = if engines.is_empty() {
        "no engine".to_string()
    } else {
        engines.join(", ")
    };
    let themes = if layout == Layout::List {
        String::new()
    } else {
        format!(" in {theme_count} theme{}", plural(theme_count))
    };
    let conflicts = if conflicts == 0 {
        String::new()
    } else {
        format!("; {conflicts} conflict{}", plural(conflicts))
    };
    format!(
        "{total} result{} from {from}{themes}{conflicts}",
        plural(total)
    )
}

fn build_themes(query: &str, results: &[SearchResult], options: &PresentOptions) -> Vec<Theme> {
    let clustered = results.len().min(options.max_clustered);
    let docs: Vec<(&str, &str)> = results[..clustered]
        .iter()
        .map(|r| (r.title.as_str(), r.snippet.as_str()))
        .collect();
    let groups = themes::cluster(query, &docs, options.min_similarity);
    let mut out: Vec<Theme> = Vec::new();
    let mut other: Vec<usize> = Vec::new();
    for g in groups {
        if g.members.len() >= 2 {
            out.push(Theme {
                label: g.terms.join(" · "),
                terms: g.terms,
                ranks: g.members.iter().map(|i| i + 1).collect(),
                other: false,
            });
        } else {
            other.extend(g.members.iter().map(|i| i + 1));
        }
    }
    other.extend(clustered + 1..=results.len());
    if !other.is_empty() {
        other.sort_unstable();
        out.push(Theme {
            label: "Other results".to_string(),
            terms: Vec::new(),
            ranks: other,
            other: true,
        });
    }
    out
}

/// The conflicts among the first `max_checked` results: a T1 result that
/// two or more lower tiers contradict gives one conflict for all of them;
/// every other disagreeing pair is a conflict of its own.
fn find_conflicts(
    results: &[SearchResult],
    presented: &[PresentedResult],
    max_checked: usize,
) -> Vec<Conflict> {
    let results = &results[..results.len().min(max_checked)];
    let pairs = disagreeing_pairs(results);
    let tier = |i: usize| presented[i].source_tier;
    let mut out: Vec<Conflict> = Vec::new();
    let mut covered = vec![false; pairs.len()];
    for t1 in (0..results.len()).filter(|&i| tier(i) == SourceTier::T1) {
        let against: Vec<usize> = pairs
            .iter()
            .enumerate()
            .filter_map(|(p, (i, j, _))| {
                let other = if *i == t1 {
                    *j
                } else if *j == t1 {
                    *i
                } else {
                    return None;
                };
                (tier(other) > SourceTier::T1).then_some(p)
            })
            .collect();
        if against.len() < 2 {
            continue;
        }
        for &p in &against {
            covered[p] = true;
        }
        out.push(tier_one_conflict(t1, &against, &pairs));
    }
    for (p, (i, j, d)) in pairs.into_iter().enumerate() {
        if covered[p] {
            continue;
        }
        let kept_rank = match tier(i).cmp(&tier(j)) {
            std::cmp::Ordering::Less if tier(i) == SourceTier::T1 => Some(i + 1),
            std::cmp::Ordering::Greater if tier(j) == SourceTier::T1 => Some(j + 1),
            _ => None,
        };
        out.push(Conflict {
            kind: ConflictKind::Disagreement,
            flag: CONFLICT_FLAG.to_string(),
            ranks: vec![i + 1, j + 1],
            kept_rank,
            quotes: d.quotes_of(i, j).to_vec(),
            terms: d.terms,
            reason: d.reason,
        });
    }
    out
}

/// Every pair of results (0-based, `i < j`) whose texts disagree.
fn disagreeing_pairs(results: &[SearchResult]) -> Vec<(usize, usize, conflicts::Disagreement)> {
    let texts: Vec<String> = results
        .iter()
        .map(|r| conflicts::text_of(&r.title, &r.snippet))
        .collect();
    let read: Vec<conflicts::Read<'_>> = texts.iter().map(|t| conflicts::Read::new(t)).collect();
    let mut pairs = Vec::new();
    for i in 0..results.len() {
        for j in i + 1..results.len() {
            if let Some(d) = conflicts::disagreement(&read[i], &read[j]) {
                pairs.push((i, j, d));
            }
        }
    }
    pairs
}

/// The one conflict of the T1 result `t1` with the lower-tier results of
/// the pairs `against`: their ranks after its own, their quotes, terms and
/// reasons gathered once each; the T1 result is kept.
fn tier_one_conflict(
    t1: usize,
    against: &[usize],
    pairs: &[(usize, usize, conflicts::Disagreement)],
) -> Conflict {
    let mut ranks = vec![t1 + 1];
    let mut terms: Vec<String> = Vec::new();
    let mut quotes: Vec<ConflictQuote> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for &p in against {
        let (i, j, d) = &pairs[p];
        ranks.push(if *i == t1 { j + 1 } else { i + 1 });
        for q in d.quotes_of(*i, *j) {
            if !quotes.contains(&q) {
                quotes.push(q);
            }
        }
        reasons.push(d.reason.clone());
        for t in &d.terms {
            if !terms.contains(t) {
                terms.push(t.clone());
            }
        }
    }
    Conflict {
        kind: ConflictKind::TierOneVsCommunity,
        flag: T1_VS_COMMUNITY_FLAG.to_string(),
        reason: format!(
            "tier-1 source #{} is contradicted by {} lower-tier sources ({}); the tier-1 source is kept",
            t1 + 1,
            against.len(),
            reasons.join("; ")
        ),
        quotes,
        ranks,
        kept_rank: Some(t1 + 1),
        terms,
    }
}
