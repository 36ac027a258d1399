//! Finding the main content: per-node text statistics and the container
//! choice.
//!
//! Every block element (paragraph, list item, div with its own text, …) owns
//! the inline text directly inside it. A block is *good* when it reads like
//! prose: enough characters that are not link text and a low link density,
//! outside any boilerplate subtree. Everything else is *junk*: link lists,
//! short labels, navigation, comments, sharing widgets.
//!
//! Good and junk text are summed bottom-up, and the main content is the
//! element that maximises `good − α·junk` (with a small bonus for elements
//! that name themselves the article body). Articles split over several
//! sibling containers are caught by the parent once the junk between them is
//! small; a lone big comment thread or a sidebar full of teasers loses to the
//! tighter container.

use super::dom::{Dom, NodeIx, Tag, text_weight};
use super::vocabulary::Hint;

/// The largest headline area read from a page without readable content.
pub(crate) const HEADLINE_AREA_MAX_CHARS: u32 = 1500;

/// Penalty per junk character when choosing the container.
const JUNK_WEIGHT: f32 = 1.0;
/// Fewest non-link characters a block needs to count as prose.
const MIN_PROSE_CHARS: u32 = 30;
/// Highest link density a prose block may have…
const MAX_PROSE_LINK_DENSITY: f32 = 0.33;
/// …or, when its own words make a long sentence or more (a paragraph that
/// links the names it mentions), this density.
const MAX_LINKED_PROSE_LINK_DENSITY: f32 = 0.5;
/// Fewest non-link characters of such a paragraph.
const LINKED_PROSE_MIN_CHARS: u32 = 100;
/// A container with more of its text in links than this…
const LINK_LIST_DENSITY: f32 = 0.5;
/// …and less than this share of it prose is a link list.
const LINK_LIST_MAX_PROSE_SHARE: f32 = 0.3;
/// Weight of short non-link text (labels, datelines) as junk.
const SHORT_TEXT_JUNK: f32 = 0.3;
/// A boilerplate-flagged element holding at least this many prose
/// characters…
const WRAPPER_MIN_GOOD: f32 = 400.0;
/// …and at least this share of the page's prose is a wrapper, not chrome…
const WRAPPER_SHARE: f32 = 0.5;
/// …when it holds this many prose blocks (or the headline's area).
const WRAPPER_MIN_BLOCKS: u32 = 3;
/// How many levels above the best container a named article body is looked
/// for.
const NAMED_BODY_MAX_CLIMB: usize = 4;
/// Highest link density of a named article body that is climbed to.
const NAMED_BODY_MAX_LINK_DENSITY: f32 = 0.6;
/// A container in the headline's section wins over a better one elsewhere
/// (a sidebar blurb, an author bio) when it scores at least this share.
const NEAR_HEADLINE_SHARE: f32 = 0.3;
/// Most levels a chosen block is widened by (see `Analysis::widen`).
const WIDEN_MAX_CLIMB: usize = 3;
/// An ancestor must hold at least this many times the block's text.
const WIDEN_MIN_GROWTH: f32 = 2.0;
/// Most shown junk an ancestor may add per character of text it adds.
const WIDEN_MAX_JUNK_SHARE: f32 = 0.5;
/// Weight of a short line's characters in the text a widening adds.
const SHORT_LINE_WEIGHT: f32 = 0.5;
/// Bonus factor on the good text of an element named as the article body.
const ARTICLE_BODY_BONUS: f32 = 0.15;

/// Text statistics of one node and its subtree.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Stats {
    /// Visible text in the subtree, in characters weighed by
    /// [`text_weight`](super::dom::text_weight): whitespace runs count once, a CJK
    /// character counts as a few letters. Every length below is in this unit.
    pub len: u32,
    /// Characters inside links in the subtree.
    pub link_len: u32,
    /// Inline characters owned directly by this block.
    pub own_len: u32,
    /// Inline link characters owned directly by this block.
    pub own_link: u32,
    /// Prose characters in the subtree.
    pub good: f32,
    /// Junk characters (weighted) in the subtree.
    pub junk: f32,
    /// The part of `junk` inside boilerplate and teaser lists, which a
    /// render of the subtree leaves out (see [`Stats::shown_junk`]).
    pub hidden_junk: f32,
    /// Non-link characters of short lines (list items, labels, datelines)
    /// outside boilerplate, in the subtree.
    pub short: f32,
}

impl Stats {
    /// Share of the subtree's text that sits inside links.
    pub(crate) fn link_density(&self) -> f32 {
        if self.len == 0 {
            0.0
        } else {
            self.link_len as f32 / self.len as f32
        }
    }

    /// Share of the block's own text that sits inside links.
    pub(crate) fn own_link_density(&self) -> f32 {
        if self.own_len == 0 {
            0.0
        } else {
            self.own_link as f32 / self.own_len as f32
        }
    }

    /// Junk a render of the subtree would show besides its prose.
    pub(crate) fn shown_junk(&self) -> f32 {
        self.junk - self.hidden_junk
    }

    /// Text a render would show as the article: prose, and short lines at
    /// half weight (an article's lists and labels, between its paragraphs).
    fn text(&self) -> f32 {
        self.good + SHORT_LINE_WEIGHT * self.short
    }

    /// Shown junk besides the short lines: links and link-heavy blocks.
    fn chrome_junk(&self) -> f32 {
        self.shown_junk() - SHORT_TEXT_JUNK * self.short
    }

    /// The subtree is a list of links (a container that is mostly links and
    /// has little prose), which a render leaves out.
    pub(crate) fn is_link_list(&self) -> bool {
        self.len > 0
            && self.link_density() > LINK_LIST_DENSITY
            && self.good < LINK_LIST_MAX_PROSE_SHARE * self.len as f32
    }

    /// The block's own text reads like prose.
    pub(crate) fn own_is_prose(&self) -> bool {
        let words = self.own_len.saturating_sub(self.own_link);
        let density = self.own_link_density();
        words >= MIN_PROSE_CHARS
            && (density <= MAX_PROSE_LINK_DENSITY
                || (words >= LINKED_PROSE_MIN_CHARS && density <= MAX_LINKED_PROSE_LINK_DENSITY))
    }
}

/// Per-node analysis of a document.
pub(crate) struct Analysis {
    /// Statistics per node (same indices as the DOM).
    pub stats: Vec<Stats>,
    /// The node is inside a boilerplate subtree.
    pub boiler: Vec<bool>,
    /// The node is the top of a teaser list (cards of headline links).
    pub teaser_root: Vec<bool>,
    /// The node is inside a comment section (an element named as one).
    pub comments: Vec<bool>,
    /// The node is inside a list the article announces (see
    /// [`announced_list`]): its links are the article's text.
    pub announced: Vec<bool>,
    /// The heading that shows the page's headline, if one does.
    pub headline: Option<NodeIx>,
    /// The headline's section (see [`headline_section`]).
    pub section: Option<NodeIx>,
}

impl Analysis {
    /// Computes statistics for every node in a few linear passes.
    /// `title` is the page's headline, if known: the elements around its
    /// heading hold the article, never a teaser list.
    pub(crate) fn new(dom: &Dom<'_>, title: Option<&str>) -> Analysis {
        let (mut stats, in_link) = own_text(dom);
        sum_text(dom, &mut stats);
        let headline = title.and_then(|t| title_heading(dom, t));
        let anchor = headline.map(|h| Anchor {
            headline: h,
            section: headline_section(dom, h),
        });
        let announced = announced_lists(dom, &stats);
        let in_teaser = teaser_lists(dom, &stats, &in_link, &announced, anchor);
        let raw = raw_prose(dom, &stats, &in_teaser);
        let boiler = boilerplate(dom, &raw, anchor);
        score_prose(dom, &mut stats, &boiler, &in_teaser, &announced);
        let teaser_root = (0..dom.len())
            .map(|i| {
                let p = dom.nodes[i].parent as usize;
                in_teaser[i] && (p == i || !in_teaser[p])
            })
            .collect();
        Analysis {
            stats,
            boiler,
            teaser_root,
            comments: dom.marked(|ix| dom.node(ix).hint.has(Hint::COMMENTS)),
            announced,
            headline,
            section: anchor.map(|a| a.section),
        }
    }

    /// The container is where the page puts its article: inside (or around)
    /// the content landmark, or right under the headline's parent. A short
    /// article there is the article, not a reason to look elsewhere.
    pub(crate) fn anchored(&self, dom: &Dom<'_>, ix: NodeIx, landmark: Option<NodeIx>) -> bool {
        let within = |outer: NodeIx, inner: NodeIx| dom.holds(outer, inner);
        let at_landmark = landmark.is_some_and(|l| within(l, ix) || within(ix, l));
        let under_headline = self.headline.is_some_and(|h| {
            let parent = dom.node(h).parent;
            !matches!(dom.node(parent).tag, Tag::Body | Tag::Html) && within(parent, ix)
        });
        at_landmark || under_headline
    }

    /// Where the page itself says its content is, for pages without prose
    /// (a link roundup, a list of items): the element that names itself the
    /// article body with the most text, else the innermost `<article>` or
    /// `<main>` around the headline.
    pub(crate) fn landmark(&self, dom: &Dom<'_>) -> Option<NodeIx> {
        let named = (0..dom.len())
            .filter(|&i| {
                dom.nodes[i].hint.has(Hint::ARTICLE_BODY)
                    && !self.boiler[i]
                    && self.stats[i].len > 0
            })
            .max_by_key(|&i| self.stats[i].len);
        if let Some(i) = named {
            return Some(i as NodeIx);
        }
        let h = self.headline?;
        dom.ancestors(dom.node(h).parent).find(|&a| {
            matches!(dom.node(a).tag, Tag::Article | Tag::Main) && !self.boiler[a as usize]
        })
    }

    /// The smallest element around the headline's heading that holds more
    /// than the heading (three times its text), below `<body>` and at most
    /// [`HEADLINE_AREA_MAX_CHARS`]: where a page without readable content
    /// keeps what it does say.
    pub(crate) fn headline_area(&self, dom: &Dom<'_>) -> Option<NodeIx> {
        let h = self.headline?;
        let wanted = self.stats[h as usize].len.max(1) * 3;
        let area = dom
            .parents_below_body(h)
            .find(|&a| self.stats[a as usize].len >= wanted)?;
        // A small area only: a big one is the page's chrome.
        (self.stats[area as usize].len <= HEADLINE_AREA_MAX_CHARS).then_some(area)
    }

    /// The element that best holds the main content, with its score.
    pub(crate) fn best_container(&self, dom: &Dom<'_>) -> Option<(NodeIx, f32)> {
        let mut best: Option<(NodeIx, f32)> = None;
        // The best container within the headline's section.
        let in_section = |ix: NodeIx| self.section.is_some_and(|s| dom.holds(s, ix));
        let mut near: Option<(NodeIx, f32)> = None;
        for (i, node) in dom.nodes.iter().enumerate() {
            if node.tag == Tag::Text || self.boiler[i] || !node.tag.is_block() {
                continue;
            }
            if matches!(node.tag, Tag::Head | Tag::Title) {
                continue;
            }
            let s = &self.stats[i];
            if s.good <= 0.0 {
                continue;
            }
            let mut good = s.good;
            if node.hint.has(Hint::ARTICLE_BODY) {
                good *= 1.0 + ARTICLE_BODY_BONUS;
            }
            let score = good - JUNK_WEIGHT * s.junk;
            if best.is_none_or(|(_, b)| score >= b) {
                best = Some((i as NodeIx, score));
            }
            if in_section(i as NodeIx) && near.is_none_or(|(_, b)| score >= b) {
                near = Some((i as NodeIx, score));
            }
        }
        let best = match (best, near) {
            (Some((b, score)), Some(n))
                if !in_section(b)
                    && !self.headline.is_some_and(|h| dom.holds(b, h))
                    && n.1 >= NEAR_HEADLINE_SHARE * score =>
            {
                Some(n)
            }
            (best, _) => best,
        };
        best.map(|(ix, score)| {
            let ix = self.widen(dom, ix);
            let ix = self.named_body_above(dom, ix);
            (self.titled_article_within(dom, ix), score)
        })
    }

    /// A chosen lone paragraph, quotation or list widened to the run of
    /// prose it belongs to. A container that holds the article beside a
    /// long comment thread or sidebar scores below one of its own
    /// paragraphs, though a render would leave that chrome out: an ancestor
    /// (a few levels up) that holds at least twice the text, and shows
    /// little junk for what it adds, is the article; the text counts the
    /// short lines of the article's lists at half weight and they are not
    /// junk here (a notice is one paragraph and the list it announces). The
    /// climb never leaves the headline's section (a sidebar of teaser
    /// summaries beside the post is prose too).
    fn widen(&self, dom: &Dom<'_>, ix: NodeIx) -> NodeIx {
        let inner = self.stats[ix as usize];
        // Only a lone paragraph (its own text is most of its prose), a
        // quotation or a list is widened: a container of several paragraphs
        // is a run already, but a quotation is part of what quotes it and a
        // list part of the text that introduces it.
        let own_prose = inner.own_len.saturating_sub(inner.own_link) as f32;
        if own_prose < 0.5 * inner.good
            && !matches!(
                dom.node(ix).tag,
                Tag::Blockquote | Tag::Ul | Tag::Ol | Tag::Dl
            )
        {
            return ix;
        }
        let section = self.section.filter(|&s| dom.holds(s, ix));
        let mut best = ix;
        for p in dom.parents_below_body(ix).take(WIDEN_MAX_CLIMB) {
            let leaves_section = section.is_some_and(|s| !dom.holds(s, p));
            if leaves_section || self.boiler[p as usize] {
                break;
            }
            let outer = self.stats[p as usize];
            let gained = outer.text() - inner.text();
            if outer.chrome_junk() - inner.chrome_junk() > WIDEN_MAX_JUNK_SHARE * gained {
                break;
            }
            if outer.text() >= WIDEN_MIN_GROWTH * inner.text() {
                best = p;
            }
        }
        best
    }

    /// When the container holds several `<article>`s with prose (the post
    /// plus "you may also like" posts, or the next story of an endless
    /// scroll), the one holding the page's first `<h1>` is the article.
    fn titled_article_within(&self, dom: &Dom<'_>, ix: NodeIx) -> NodeIx {
        let end = dom.node(ix).end;
        let mut articles: Vec<NodeIx> = Vec::new();
        let mut j = ix + 1;
        while j < end {
            let node = dom.node(j);
            if node.tag == Tag::Article {
                if self.stats[j as usize].good > 0.0 && !self.boiler[j as usize] {
                    articles.push(j);
                }
                j = node.end;
            } else {
                j += 1;
            }
        }
        if articles.len() < 2 {
            return ix;
        }
        let Some(h1) = (ix + 1..end).find(|&k| dom.node(k).tag == Tag::Heading(1)) else {
            return ix;
        };
        articles
            .into_iter()
            .find(|&a| a < h1 && dom.holds(a, h1))
            .unwrap_or(ix)
    }

    /// The nearest ancestor of `ix` (a few levels up) that names itself the
    /// article body, when there is one: a body that is mostly lists of
    /// linked items loses the prose contest to one of its paragraphs, but
    /// the page's own markup says where the article is.
    fn named_body_above(&self, dom: &Dom<'_>, ix: NodeIx) -> NodeIx {
        dom.parents_below_body(ix)
            .take(NAMED_BODY_MAX_CLIMB)
            .take_while(|&a| !self.boiler[a as usize])
            .find(|&a| {
                dom.node(a).hint.has(Hint::ARTICLE_BODY)
                    && self.stats[a as usize].link_density() <= NAMED_BODY_MAX_LINK_DENSITY
            })
            .unwrap_or(ix)
    }
}

/// Pass 1, top-down: inline text ownership (each text node counts for its
/// nearest block) and which nodes sit inside a link.
fn own_text(dom: &Dom<'_>) -> (Vec<Stats>, Vec<bool>) {
    let n = dom.len();
    let mut stats = vec![Stats::default(); n];
    let mut block = vec![0 as NodeIx; n];
    let mut in_link = vec![false; n];
    for i in 0..n {
        let node = dom.nodes[i];
        let p = node.parent as usize;
        let root = p == i;
        block[i] = if node.tag.is_block() || root {
            i as NodeIx
        } else {
            block[p]
        };
        in_link[i] = node.tag == Tag::A || (!root && in_link[p]);
        if node.tag == Tag::Text {
            let chars = text_weight(node.text);
            let owner = block[i] as usize;
            stats[i].len = chars;
            if in_link[i] {
                stats[i].link_len = chars;
                stats[owner].own_link += chars;
            }
            stats[owner].own_len += chars;
        }
    }
    (stats, in_link)
}

/// Pass 2, bottom-up: subtree text sums.
fn sum_text(dom: &Dom<'_>, stats: &mut [Stats]) {
    for i in (1..dom.len()).rev() {
        let p = dom.nodes[i].parent as usize;
        if p != i {
            let (len, link) = (stats[i].len, stats[i].link_len);
            stats[p].len += len;
            stats[p].link_len += link;
        }
    }
}

/// Fewest non-link characters of a paragraph that announces a list.
const ANNOUNCING_MIN_CHARS: u32 = 80;

/// The container at `ix` is a list that a sentence of the article
/// announces: the paragraph just before it is prose of some length and
/// ends with a colon ("The seven papers in this guest-edited issue are:").
/// Such a list is the article's even when it is all links, unlike a
/// related-posts list under its label ("More stories from our site:").
fn announced_list(dom: &Dom<'_>, stats: &[Stats], ix: NodeIx) -> bool {
    dom.previous_element(ix).is_some_and(|p| {
        let s = &stats[p as usize];
        s.own_is_prose()
            && s.own_len.saturating_sub(s.own_link) >= ANNOUNCING_MIN_CHARS
            && dom.last_text(p).is_some_and(|t| t.ends_with(':'))
    })
}

/// Pass 3, top-down: the nodes inside a list (`ul`, `ol`, `dl`) that the
/// article announces.
fn announced_lists(dom: &Dom<'_>, stats: &[Stats]) -> Vec<bool> {
    dom.marked(|ix| {
        matches!(dom.node(ix).tag, Tag::Ul | Tag::Ol | Tag::Dl) && announced_list(dom, stats, ix)
    })
}

/// A link list that a render leaves out: a container that is mostly links
/// (see [`Stats::is_link_list`]), unless the article announces it.
pub(crate) fn hidden_link_list(tag: Tag, s: &Stats, announced: bool) -> bool {
    tag.is_container() && s.is_link_list() && !announced
}

/// Pass 4, top-down: nodes inside teaser lists (cards of headline links
/// with short summaries).
///
/// The ancestors of the headline's heading are never teaser lists: an
/// article whose paragraphs open with links (a playlist, a link roundup)
/// looks like cards, but it is what the headline introduces.
fn teaser_lists(
    dom: &Dom<'_>,
    stats: &[Stats],
    in_link: &[bool],
    announced: &[bool],
    anchor: Option<Anchor>,
) -> Vec<bool> {
    let n = dom.len();
    let mut in_teaser = vec![false; n];
    let mut lead = anchor.map(|a| LeadList::new(dom, a));
    for i in 0..n {
        let p = dom.nodes[i].parent as usize;
        let ix = i as NodeIx;
        let holds_headline = anchor.is_some_and(|a| dom.holds(ix, a.headline));
        if p != i && in_teaser[p] {
            in_teaser[i] = true;
        } else if dom.nodes[i].tag.is_container() && stats[i].len > 0 && !holds_headline {
            let teaser = is_teaser_list(dom, stats, in_link, ix);
            in_teaser[i] =
                teaser && !lead.as_mut().is_some_and(|l| l.claims(dom, ix)) && !announced[i];
        }
        if let Some(l) = lead.as_mut() {
            l.pass(stats, ix);
        }
    }
    in_teaser
}

/// Most prose characters between the headline and a list of linked items
/// for that list to be what the headline introduces.
const LEAD_MAX_PROSE: u32 = 200;
/// How many levels above the headline its section is looked for.
const LEAD_SECTION_CLIMB: usize = 3;

/// The first list of linked items after the headline, in the headline's
/// section, with no prose before it, is the article (a link roundup, a
/// reading list), not a teaser rail: the headline introduces it.
struct LeadList {
    /// The headline's subtree ends here; the list must start after it.
    after: NodeIx,
    /// The headline's section ends here; the list must start before it.
    section_end: NodeIx,
    /// Prose characters seen since the headline.
    prose: u32,
    /// The claimed list's subtree ends here (none claimed yet: `None`).
    claimed_end: Option<NodeIx>,
}

/// The headline's heading and its section, found once per page.
#[derive(Clone, Copy)]
struct Anchor {
    headline: NodeIx,
    section: NodeIx,
}

/// The headline's section: the ancestor a few levels above the headline
/// (below `<body>`), where the article it introduces sits.
fn headline_section(dom: &Dom<'_>, headline: NodeIx) -> NodeIx {
    dom.parents_below_body(headline)
        .take(LEAD_SECTION_CLIMB)
        .last()
        .unwrap_or(headline)
}

/// `ix` is the headline's own area: it holds the headline, or follows it
/// inside its section with little prose between them (not a notice after
/// the article). Always true without a known headline.
fn headline_area_of(dom: &Dom<'_>, raw: &RawProse, anchor: Option<Anchor>, ix: NodeIx) -> bool {
    anchor.is_none_or(|a| {
        let after = dom.node(a.headline).end;
        let in_section = (after..dom.node(a.section).end).contains(&ix);
        let between = raw.before[ix as usize].saturating_sub(raw.before[after as usize]);
        dom.holds(ix, a.headline) || (in_section && between <= LEAD_MAX_PROSE)
    })
}

impl LeadList {
    fn new(dom: &Dom<'_>, anchor: Anchor) -> Self {
        LeadList {
            after: dom.node(anchor.headline).end,
            section_end: dom.node(anchor.section).end,
            prose: 0,
            claimed_end: None,
        }
    }

    /// Whether the teaser-like list `ix` is the headline's own list (the
    /// first one, or inside it).
    fn claims(&mut self, dom: &Dom<'_>, ix: NodeIx) -> bool {
        if let Some(end) = self.claimed_end {
            return ix < end;
        }
        let claimed = (self.after..self.section_end).contains(&ix) && self.prose <= LEAD_MAX_PROSE;
        if claimed {
            self.claimed_end = Some(dom.node(ix).end);
        }
        claimed
    }

    /// Count the prose node `ix` owns, once past the headline.
    fn pass(&mut self, stats: &[Stats], ix: NodeIx) {
        let s = &stats[ix as usize];
        if ix >= self.after && s.own_is_prose() {
            self.prose += s.own_len - s.own_link;
        }
    }
}

/// Most characters of a heading compared with the headline.
const HEADLINE_MAX_CHARS: usize = 300;

/// The first `<h1>`–`<h3>` whose text is the page's headline (the same
/// letters and digits, or one containing the other when both are long; or
/// failing that, nearly the same words), outside the page's chrome when one
/// is: a blog's name in its sidebar ("Blog name: the post's own title") is
/// not the post's headline.
fn title_heading(dom: &Dom<'_>, raw_title: &str) -> Option<NodeIx> {
    let title = squash(raw_title);
    if text_weight(&title) < 8 {
        return None;
    }
    let headings =
        || (0..dom.len() as NodeIx).filter(|&ix| matches!(dom.node(ix).tag, Tag::Heading(1..=3)));
    let same = headings().filter(|&ix| {
        let heading = squash(&dom.text_of(ix, HEADLINE_MAX_CHARS));
        text_weight(&heading) >= 8
            && (heading == title || heading.contains(&title) || title.contains(&heading))
    });
    if let Some(found) = first_outside_chrome(dom, same) {
        return Some(found);
    }
    // The headline edited between the title and the page ("X to resume
    // talks" above "X resumes talks"): nearly the same words.
    let words = word_set(raw_title);
    let edited = headings()
        .filter(|&ix| same_words(&words, &word_set(&dom.text_of(ix, HEADLINE_MAX_CHARS))));
    first_outside_chrome(dom, edited)
}

/// The first of `candidates` outside the page's chrome, else the first.
fn first_outside_chrome(
    dom: &Dom<'_>,
    mut candidates: impl Iterator<Item = NodeIx>,
) -> Option<NodeIx> {
    let first = candidates.next()?;
    std::iter::once(first)
        .chain(candidates)
        .find(|&ix| !in_chrome(dom, ix))
        .or(Some(first))
}

/// Fewest words of a headline matched by its words.
const EDITED_HEADLINE_MIN_WORDS: usize = 4;
/// Least share of their words two edited headlines share (Dice).
const EDITED_HEADLINE_OVERLAP: f32 = 0.8;

/// The lower-cased words of `text`.
fn word_set(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Two word sets are nearly the same headline.
fn same_words(
    a: &std::collections::HashSet<String>,
    b: &std::collections::HashSet<String>,
) -> bool {
    if a.len() < EDITED_HEADLINE_MIN_WORDS || b.len() < EDITED_HEADLINE_MIN_WORDS {
        return false;
    }
    let shared = a.intersection(b).count();
    2.0 * shared as f32 >= EDITED_HEADLINE_OVERLAP * (a.len() + b.len()) as f32
}

/// Whether an ancestor of `ix` is named as boilerplate (a sidebar, a
/// navigation, a comment section, …).
fn in_chrome(dom: &Dom<'_>, ix: NodeIx) -> bool {
    dom.ancestors(ix)
        .any(|a| dom.node(a).hint.has(Hint::BOILERPLATE))
}

/// Lower-cased letters and digits only.
pub(crate) fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Pass 5, bottom-up: prose characters per subtree regardless of
/// boilerplate, and which subtrees hold a named article body (to recognise
/// flagged elements that are really page wrappers).
fn raw_prose(dom: &Dom<'_>, stats: &[Stats], in_teaser: &[bool]) -> RawProse {
    let n = dom.len();
    let own = |i: usize| {
        let prose = !in_teaser[i]
            && stats[i].own_is_prose()
            && !matches!(dom.nodes[i].tag, Tag::Heading(_));
        if prose {
            stats[i].own_len.saturating_sub(stats[i].own_link)
        } else {
            0
        }
    };
    let mut raw = RawProse {
        good: vec![0f32; n],
        blocks: vec![0u32; n],
        holds_body: vec![false; n],
        before: vec![0; n + 1],
    };
    for i in 0..n {
        raw.before[i + 1] = raw.before[i] + own(i);
    }
    for i in (0..n).rev() {
        let node = dom.nodes[i];
        let prose = raw.before[i + 1] - raw.before[i];
        if prose > 0 {
            raw.good[i] += prose as f32;
            raw.blocks[i] += 1;
        }
        raw.holds_body[i] |= node.hint.has(Hint::ARTICLE_BODY);
        let p = node.parent as usize;
        if p != i {
            raw.good[p] += raw.good[i];
            raw.blocks[p] += raw.blocks[i];
            raw.holds_body[p] |= raw.holds_body[i];
        }
    }
    raw
}

/// Prose per subtree before boilerplate is known.
struct RawProse {
    /// Prose characters.
    good: Vec<f32>,
    /// Prose blocks.
    blocks: Vec<u32>,
    /// The subtree holds an element named as the article body.
    holds_body: Vec<bool>,
    /// Prose characters of the nodes before this one in document order
    /// (its ancestors and everything that precedes it).
    before: Vec<u32>,
}

/// Pass 6, top-down: which flagged subtrees really are boilerplate. A
/// flagged element that holds a named article body, or most of the page's
/// prose outside one, is a wrapper whose class happens to mention chrome
/// (`page-ad-margins`); comment sections always stay out.
fn boilerplate(dom: &Dom<'_>, raw: &RawProse, anchor: Option<Anchor>) -> Vec<bool> {
    let n = dom.len();
    let page_good = raw.good.first().copied().unwrap_or(0.0);
    let mut boiler = vec![false; n];
    // Inside an element named as the article body.
    let mut in_body = vec![false; n];
    for i in 0..n {
        let node = dom.nodes[i];
        let p = node.parent as usize;
        in_body[i] = p != i && (in_body[p] || dom.nodes[p].hint.has(Hint::ARTICLE_BODY));
        if p != i && boiler[p] {
            boiler[i] = true;
            continue;
        }
        if node.hint.has(Hint::BOILERPLATE) {
            let holds_most_prose =
                raw.good[i] >= WRAPPER_MIN_GOOD && raw.good[i] >= WRAPPER_SHARE * page_good;
            // A wrapper holds a run of paragraphs, or the headline's own
            // area; one long blurb in a sidebar (a disclaimer, an "about
            // me") is chrome however long it is.
            let article_like = raw.blocks[i] >= WRAPPER_MIN_BLOCKS
                || headline_area_of(dom, raw, anchor, i as NodeIx);
            // Inside a named article body, the body is the article's
            // wrapper: chrome there (a promo, a slideshow) is chrome.
            let wrapper = !node.hint.has(Hint::COMMENTS)
                && (raw.holds_body[i]
                    || (holds_most_prose
                        && article_like
                        && !in_body[i]
                        && !node.hint.has(Hint::STRONG)));
            boiler[i] = !wrapper;
        }
    }
    boiler
}

/// Pass 7, bottom-up: prose and junk per subtree.
fn score_prose(
    dom: &Dom<'_>,
    stats: &mut [Stats],
    boiler: &[bool],
    in_teaser: &[bool],
    announced: &[bool],
) {
    for i in (0..dom.len()).rev() {
        let node = dom.nodes[i];
        let s = &mut stats[i];
        if s.own_len > 0 {
            let non_link = s.own_len.saturating_sub(s.own_link) as f32;
            if boiler[i] || in_teaser[i] {
                s.junk += s.own_len as f32;
                s.hidden_junk += s.own_len as f32;
            } else if matches!(node.tag, Tag::Heading(_)) {
                // Headings are neither evidence for nor against.
            } else if s.own_is_prose() && !node.hint.has(Hint::MINOR) {
                s.good += non_link;
                s.junk += s.own_link as f32 * 0.5;
            } else if announced[i] {
                // An item of an announced list, links and all, is a short
                // line of the article.
                let len = s.own_len as f32;
                s.junk += len * SHORT_TEXT_JUNK;
                s.short += len;
            } else {
                s.junk += s.own_link as f32 + non_link * SHORT_TEXT_JUNK;
                s.short += non_link;
            }
        }
        if hidden_link_list(node.tag, &stats[i], announced[i]) {
            // A render leaves a link list out: none of it is shown.
            stats[i].hidden_junk = stats[i].junk;
            stats[i].short = 0.0;
        }
        let p = node.parent as usize;
        if p != i {
            let Stats {
                good,
                junk,
                hidden_junk: hidden,
                short,
                ..
            } = stats[i];
            stats[p].good += good;
            stats[p].junk += junk;
            stats[p].hidden_junk += hidden;
            stats[p].short += short;
        }
    }
}

/// Fewest cards that make a teaser list.
const TEASER_MIN_CARDS: usize = 3;
/// Most kinds of card told apart in one container.
const CARD_KINDS_MAX: usize = 16;
/// Share of a container's children that must be cards.
const TEASER_CARD_SHARE: f32 = 0.6;
/// Fewest characters of a card's headline link.
const CARD_MIN_HEADLINE: u32 = 15;
/// Most characters of text before a card's headline link (a kicker).
const CARD_MAX_KICKER: u32 = 30;
/// Most non-link characters of a card (a summary, not an article section).
const CARD_MAX_SUMMARY: u32 = 500;
/// How many nodes of a child are looked at to find its headline.
const CARD_SCAN_NODES: u32 = 40;

/// `ix` is a list of cards: at least three children that each open with a
/// headline link (after at most a short kicker) and carry at most a short
/// summary — "related stories", "more from", "breaking news" rails.
fn is_teaser_list(dom: &Dom<'_>, stats: &[Stats], in_link: &[bool], ix: NodeIx) -> bool {
    if matches!(
        dom.node(ix).tag,
        Tag::Html | Tag::Body | Tag::Main | Tag::Article
    ) {
        return false;
    }
    let mut children = 0usize;
    // (tag, class) of card children with their count: cards of one list
    // look alike.
    let mut kinds: Vec<((Tag, Option<&str>), usize)> = Vec::new();
    let mut headlines: Vec<String> = Vec::new();
    for child in dom.children(ix) {
        let s = &stats[child as usize];
        if s.len == 0 {
            continue;
        }
        children += 1;
        if let Some(headline) = card_headline(dom, stats, in_link, child) {
            let key = (dom.node(child).tag, dom.attr(child, "class"));
            let room = kinds.len() < CARD_KINDS_MAX;
            match kinds.iter_mut().find(|(k, _)| alike(*k, key)) {
                Some((_, n)) => *n += 1,
                // A list has a kind or two of card; more kinds than this
                // are not followed (a page of a million unlike cards stays
                // linear).
                None if room => kinds.push((key, 1)),
                None => {}
            }
            if headlines.len() < TEASER_MIN_CARDS {
                let text = squash(&dom.text_of(headline, HEADLINE_MAX_CHARS));
                if !headlines.contains(&text) {
                    headlines.push(text);
                }
            }
        } else if s.len.saturating_sub(s.link_len) > CARD_MAX_SUMMARY {
            // A child with more text than any card: this is a page wrapper
            // whose navigation rails look like cards, not a teaser list.
            return false;
        }
    }
    let cards = kinds.iter().map(|(_, n)| *n).max().unwrap_or(0);
    // Teasers link to different stories; the posts of a thread repeat one
    // title ("Re: …").
    cards >= TEASER_MIN_CARDS
        && cards as f32 >= TEASER_CARD_SHARE * children as f32
        && headlines.len() >= TEASER_MIN_CARDS
}

/// Two cards look alike: the same tag, and no class or a class word in
/// common that is not an id (`post` in `post post-12 category-a` and
/// `post post-13 category-b alt`).
fn alike(a: (Tag, Option<&str>), b: (Tag, Option<&str>)) -> bool {
    fn words(class: Option<&str>) -> impl Iterator<Item = &str> + Clone {
        class
            .unwrap_or("")
            .split_ascii_whitespace()
            .filter(|w| !w.bytes().any(|b| b.is_ascii_digit()))
    }
    let (mut x, y) = (words(a.1), words(b.1));
    a.0 == b.0
        && match x.clone().next() {
            None => y.clone().next().is_none(),
            Some(_) => x.any(|w| y.clone().any(|v| v == w)),
        }
}

/// The headline link of a card (a teaser of another story): a link of at
/// least [`CARD_MIN_HEADLINE`] characters near the card's start, in a
/// child with a short summary at most.
fn card_headline(dom: &Dom<'_>, stats: &[Stats], in_link: &[bool], ix: NodeIx) -> Option<NodeIx> {
    let s = &stats[ix as usize];
    if s.len.saturating_sub(s.link_len) > CARD_MAX_SUMMARY {
        return None;
    }
    let end = dom.node(ix).end.min(ix + CARD_SCAN_NODES);
    let mut before = 0u32;
    for j in ix..end {
        let node = dom.node(j);
        if node.tag != Tag::Text {
            continue;
        }
        let len = stats[j as usize].len;
        if len <= 1 {
            continue;
        }
        if in_link[j as usize] {
            // the link element holding this text
            let mut a = node.parent;
            while dom.node(a).tag != Tag::A && a > ix {
                a = dom.node(a).parent;
            }
            if stats[a as usize].len >= CARD_MIN_HEADLINE {
                return Some(a);
            }
        }
        before += len;
        if before > CARD_MAX_KICKER {
            return None;
        }
    }
    None
}
