//! The Markdown sources block, in three shapes:
//!
//! ```text
//! 1. [Title](url) — snippet… `[brave, exa]` ⭐0.85
//! ```
//!
//! themes as `**Theme 1: a · b · c**` followed by `- ` lines, an overview
//! as the theme list with sizes, the top results, and a closing line that
//! names the engines and asks which aspect to pursue; conflicts last.

use std::fmt::Write;

use super::{Layout, Presentation, PresentedResult};

/// `[`, `]` and `\` escaped for link text.
fn link_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    if out.trim().is_empty() {
        "(untitled)".to_string()
    } else {
        out
    }
}

/// Spaces and parentheses percent-encoded so the URL ends the link.
fn link_url(s: &str) -> String {
    s.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

fn line(r: &PresentedResult) -> String {
    let mut s = format!("[{}]({})", link_text(&r.title), link_url(&r.url));
    if !r.snippet.is_empty() {
        let _ = write!(s, " — {}", r.snippet);
    }
    if !r.engines.is_empty() {
        let _ = write!(s, " `[{}]`", r.engines.join(", "));
    }
    let _ = write!(s, " ⭐{:.2}", r.score);
    for f in &r.flags {
        let _ = write!(s, " {f}");
    }
    s
}

fn numbered(p: &Presentation, ranks: impl IntoIterator<Item = usize>, out: &mut String) {
    for rank in ranks {
        if let Some(r) = p.result(rank) {
            let _ = writeln!(out, "{rank}. {}", line(r));
        }
    }
}

fn rank_list(ranks: &[usize]) -> String {
    ranks
        .iter()
        .map(|r| format!("#{r}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn render(p: &Presentation) -> String {
    let mut out = String::new();
    match p.layout {
        Layout::List => numbered(p, 1..=p.total, &mut out),
        Layout::Themes => {
            let mut n = 0;
            for theme in &p.themes {
                if theme.other {
                    let _ = writeln!(out, "**{}**", theme.label);
                } else {
                    n += 1;
                    let _ = writeln!(out, "**Theme {n}: {}**", theme.label);
                }
                for &rank in &theme.ranks {
                    if let Some(r) = p.result(rank) {
                        let _ = writeln!(out, "- {}", line(r));
                    }
                }
                out.push('\n');
            }
        }
        Layout::Overview => {
            let _ = writeln!(out, "{}.\n", p.summary);
            let _ = writeln!(out, "**Themes:**");
            for theme in &p.themes {
                let _ = writeln!(
                    out,
                    "- **{}** — {} result{} ({})",
                    theme.label,
                    theme.ranks.len(),
                    if theme.ranks.len() == 1 { "" } else { "s" },
                    rank_list(&theme.ranks)
                );
            }
            let _ = writeln!(out, "\n**Top {}:**", p.top.len());
            numbered(p, p.top.iter().copied(), &mut out);
            let _ = writeln!(
                out,
                "\nFound {} results covering {}. Which aspect should be explored further?",
                p.total,
                p.engines.join(", ")
            );
        }
    }
    if !p.conflicts.is_empty() {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        let _ = writeln!(out, "**Conflicts:**");
        for c in &p.conflicts {
            let sides: Vec<String> = c
                .ranks
                .iter()
                .filter_map(|&rank| {
                    p.result(rank).map(|r| {
                        let kept = if c.kept_rank == Some(rank) {
                            ", kept"
                        } else {
                            ""
                        };
                        format!(
                            "#{rank} [{}]({}) ({}{kept})",
                            link_text(&r.title),
                            link_url(&r.url),
                            r.source_tier.as_str()
                        )
                    })
                })
                .collect();
            let _ = writeln!(out, "- {} {}: {}", c.flag, sides.join(" vs "), c.reason);
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
