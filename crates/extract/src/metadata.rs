//! Page metadata: title, byline, publication date, description, site name,
//! canonical URL, language declarations, and the meta signals used by the
//! fetch verdict score.
//!
//! One linear pass over the flat DOM reads `<title>`, `<meta>`, `<link>`,
//! `<base>`, `<time>`, the first `<h1>` and byline-like elements. Each fact
//! then comes from the most reliable source that has it, in the priority
//! order of the tables below (JSON-LD and OpenGraph before generic tags).

use url::Url;

use super::content::squash;
use super::date::normalize_date;
use super::dom::{Dom, NodeIx, Tag, has_wide, text_weight};
use super::json_ld::ArticleFacts;

/// Meta keys (`name`, `property` or `itemprop`, lower-cased) that carry the
/// publication date, most reliable first.
const DATE_KEYS: &[&str] = &[
    "article:published_time",
    "og:article:published_time",
    "datepublished",
    "published_time",
    "article:published",
    "article.published",
    "publish-date",
    "publish_date",
    "publishdate",
    "pubdate",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date.created",
    "dcterms.created",
    "dc.date",
    "dcterms.date",
    "sailthru.date",
    "parsely-pub-date",
    "og:published_time",
    "citation_publication_date",
    "citation_date",
    "original-publish-date",
    "release_date",
    "date",
    "displaydate",
    "datecreated",
];

/// Meta keys that carry the author, most reliable first.
const AUTHOR_KEYS: &[&str] = &[
    "author",
    "article:author",
    "byl",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "citation_author",
];

/// Separators between a headline and the site name in `<title>`.
const TITLE_SEPARATORS: &[&str] = &[
    " | ", " - ", " – ", " — ", " :: ", " · ", " » ", " // ", " ~ ",
];

/// The separators of titles written in CJK scripts, which are not spaced
/// ("标题_频道_网站", "見出し｜サイト名"); tried only when a title has CJK
/// characters and none of [`TITLE_SEPARATORS`].
const CJK_TITLE_SEPARATORS: &[&str] = &["｜", "_", "|", "－", "—", "-"];

/// The text weight of a word of a CJK title (about two characters).
const CJK_WORD_WEIGHT: u32 = 6;

/// The separator between a title's parts, if it has one.
fn title_separator(title: &str) -> Option<&'static str> {
    let spaced = TITLE_SEPARATORS.iter().find(|s| title.contains(*s));
    let unspaced = || {
        has_wide(title)
            .then(|| CJK_TITLE_SEPARATORS.iter().find(|s| title.contains(*s)))
            .flatten()
    };
    spaced.or_else(unspaced).copied()
}

/// Words in a part of a title: CJK text, written without spaces, counts
/// about one word per two characters.
fn title_words(part: &str) -> usize {
    let spaced = part.split_whitespace().count();
    if has_wide(part) {
        spaced.max((text_weight(part) / CJK_WORD_WEIGHT) as usize)
    } else {
        spaced
    }
}

/// The `<time>` dates used when none is marked as the publication date.
#[derive(Default)]
struct TimeFallbacks {
    /// The first unmarked `<time datetime>`.
    datetime: Option<String>,
    /// The first `<time>` without `datetime` whose text is a date.
    text: Option<String>,
}

/// Meta facts gathered in one pass.
#[derive(Default, Debug)]
pub(crate) struct PageMeta {
    pub html_lang: Option<String>,
    pub content_language: Option<String>,
    pub og_locale: Option<String>,
    pub title_tag: Option<String>,
    pub og_title: Option<String>,
    pub twitter_title: Option<String>,
    pub first_h1: Option<String>,
    pub description: Option<String>,
    pub og_description: Option<String>,
    pub site_name: Option<String>,
    pub canonical: Option<String>,
    pub base_href: Option<String>,
    pub has_open_graph: bool,
    /// (priority, value) of the best date meta so far.
    date_meta: Option<(usize, String)>,
    /// (priority, value) of the best author meta so far.
    author_meta: Option<(usize, String)>,
    pub time_datetime: Option<String>,
    pub itemprop_date: Option<String>,
    pub byline_element: Option<String>,
}

impl PageMeta {
    /// Reads the metadata elements of `dom`.
    pub(crate) fn collect(dom: &Dom<'_>) -> PageMeta {
        let mut m = PageMeta::default();
        let mut times = TimeFallbacks::default();
        for (i, node) in dom.nodes.iter().enumerate() {
            let ix = i as NodeIx;
            let Some(el) = node.el else { continue };
            match node.tag {
                Tag::Html => {
                    m.html_lang = el
                        .attr("lang")
                        .or_else(|| el.attr("xml:lang"))
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned);
                }
                Tag::Title if m.title_tag.is_none() => {
                    m.title_tag = non_empty(dom.text_of(ix, 400));
                }
                Tag::Base if m.base_href.is_none() => {
                    m.base_href = el.attr("href").map(str::to_owned);
                }
                Tag::Link => m.link(el),
                Tag::Meta => m.meta(el),
                Tag::Heading(1) if m.first_h1.is_none() => {
                    m.first_h1 = non_empty(dom.text_of(ix, 400));
                }
                Tag::Time => m.time(dom, ix, el, &mut times),
                _ => {}
            }
            if node.tag != Tag::Meta
                && let Some(prop) = el.attr("itemprop")
            {
                m.itemprop(dom, ix, el, prop);
            }
            if m.byline_element.is_none() && node.tag != Tag::Meta && node.tag != Tag::Link {
                m.byline_markup(dom, ix, node.tag, el);
            }
        }
        if m.time_datetime.is_none() {
            m.time_datetime = times.datetime.or(times.text);
        }
        m
    }

    /// `<link rel="canonical">`: the first one counts.
    fn link(&mut self, el: &scraper::node::Element) {
        let rel = el.attr("rel").unwrap_or("");
        if self.canonical.is_none()
            && rel
                .split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("canonical"))
        {
            self.canonical = el.attr("href").map(|h| h.trim().to_owned());
        }
    }

    /// `<time>`: one with a `datetime` marked as the publication date
    /// (`pubdate`, `itemprop`, a `publish` class) wins; the first other one
    /// with a `datetime`, then the first one whose text is a date (the HTML
    /// standard reads a `<time>` without `datetime` from its text), are kept
    /// in `fallbacks`.
    fn time(
        &mut self,
        dom: &Dom<'_>,
        ix: NodeIx,
        el: &scraper::node::Element,
        fallbacks: &mut TimeFallbacks,
    ) {
        let Some(dt) = el.attr("datetime") else {
            if fallbacks.text.is_none() {
                fallbacks.text =
                    non_empty(dom.text_of(ix, 80)).filter(|t| normalize_date(t).is_some());
            }
            return;
        };
        let marked = el.attr("pubdate").is_some()
            || el
                .attr("itemprop")
                .is_some_and(|p| p.eq_ignore_ascii_case("datepublished"))
            || el
                .attr("class")
                .is_some_and(|c| c.to_ascii_lowercase().contains("publish"));
        if marked && self.time_datetime.is_none() {
            self.time_datetime = Some(dt.to_owned());
        } else if fallbacks.datetime.is_none() {
            fallbacks.datetime = Some(dt.to_owned());
        }
    }

    /// Microdata outside `<meta>`: the first `datePublished` and the first
    /// `author` (its `name` part when it has one).
    fn itemprop(&mut self, dom: &Dom<'_>, ix: NodeIx, el: &scraper::node::Element, prop: &str) {
        if self.itemprop_date.is_none() && prop.eq_ignore_ascii_case("datepublished") {
            self.itemprop_date = el
                .attr("content")
                .or_else(|| el.attr("datetime"))
                .map(str::to_owned)
                .or_else(|| non_empty(dom.text_of(ix, 80)));
        }
        if self.byline_element.is_none() && prop.eq_ignore_ascii_case("author") {
            self.byline_element = clean_byline(&dom.text_of(author_name_node(dom, ix), 200))
                .or_else(|| clean_byline(&dom.text_of(ix, 200)));
        }
    }

    /// A byline in the markup: a `rel="author"` link or an element whose
    /// class mentions `byline`.
    fn byline_markup(&mut self, dom: &Dom<'_>, ix: NodeIx, tag: Tag, el: &scraper::node::Element) {
        let rel_author = tag == Tag::A
            && el
                .attr("rel")
                .is_some_and(|r| r.eq_ignore_ascii_case("author"));
        let byline_class = el
            .attr("class")
            .is_some_and(|c| c.to_ascii_lowercase().contains("byline"));
        if rel_author || byline_class {
            self.byline_element = clean_byline(&dom.text_of(ix, 200));
        }
    }

    fn meta(&mut self, el: &scraper::node::Element) {
        let Some(content) = el.attr("content").map(str::trim).filter(|c| !c.is_empty()) else {
            return;
        };
        if let Some(equiv) = el.attr("http-equiv") {
            if equiv.eq_ignore_ascii_case("content-language") && self.content_language.is_none() {
                self.content_language = Some(content.to_owned());
            }
            return;
        }
        let Some(key) = el
            .attr("property")
            .or_else(|| el.attr("name"))
            .or_else(|| el.attr("itemprop"))
        else {
            return;
        };
        let key = key.trim().to_ascii_lowercase();
        if key.starts_with("og:") {
            self.has_open_graph = true;
        }
        let set = |slot: &mut Option<String>| {
            if slot.is_none() {
                *slot = Some(content.to_owned());
            }
        };
        match key.as_str() {
            "og:title" => set(&mut self.og_title),
            "twitter:title" => set(&mut self.twitter_title),
            "description" => set(&mut self.description),
            "og:description" | "twitter:description" => set(&mut self.og_description),
            "og:site_name" | "application-name" => set(&mut self.site_name),
            "og:locale" => set(&mut self.og_locale),
            "language" | "content-language" | "dc.language" => set(&mut self.content_language),
            _ => {}
        }
        if let Some(p) = DATE_KEYS.iter().position(|k| *k == key)
            && self.date_meta.as_ref().is_none_or(|(best, _)| p < *best)
            && normalize_date(content).is_some()
        {
            self.date_meta = Some((p, content.to_owned()));
        }
        if let Some(p) = AUTHOR_KEYS.iter().position(|k| *k == key)
            && self.author_meta.as_ref().is_none_or(|(best, _)| p < *best)
            && let Some(name) = clean_byline(content)
        {
            self.author_meta = Some((p, name));
        }
    }

    /// The page title: OpenGraph, JSON-LD headline, Twitter, `<title>`,
    /// first `<h1>`; cleaned of site-name suffixes.
    pub(crate) fn title(&self, facts: &ArticleFacts, url: Option<&Url>) -> Option<String> {
        let raw = self
            .og_title
            .as_deref()
            .or(facts.headline.as_deref())
            .or(self.twitter_title.as_deref())
            .or(self.title_tag.as_deref())
            .or(self.first_h1.as_deref())?;
        let site = self.site_name.as_deref().or(facts.publisher.as_deref());
        non_empty(clean_title(raw, site, url))
    }

    /// The byline: JSON-LD author, meta author, then byline-like elements.
    pub(crate) fn byline(&self, facts: &ArticleFacts) -> Option<String> {
        facts
            .author
            .as_deref()
            .and_then(clean_byline)
            .or_else(|| self.author_meta.as_ref().map(|(_, a)| a.clone()))
            .or_else(|| self.byline_element.clone())
    }

    /// The publication date in ISO 8601.
    pub(crate) fn published(&self, facts: &ArticleFacts, url: Option<&Url>) -> Option<String> {
        let candidates = [
            facts.date_published.as_deref(),
            self.date_meta.as_ref().map(|(_, d)| d.as_str()),
            self.itemprop_date.as_deref(),
            facts.date_created.as_deref(),
            self.time_datetime.as_deref(),
        ];
        candidates
            .into_iter()
            .flatten()
            .find_map(normalize_date)
            .or_else(|| url.and_then(date_from_url))
    }

    /// The page description (meta description, then OpenGraph/Twitter).
    pub(crate) fn description(&self) -> Option<String> {
        self.description
            .clone()
            .or_else(|| self.og_description.clone())
    }
}

/// Inside an `itemprop="author"` element, the node that holds just the
/// name: an `itemprop="name"` descendant, else the first link, else the
/// element itself (author cards also hold reputation, dates and badges).
fn author_name_node(dom: &Dom<'_>, ix: NodeIx) -> NodeIx {
    let end = dom.node(ix).end;
    let named = (ix + 1..end).find(|&k| {
        dom.attr(k, "itemprop")
            .is_some_and(|p| p.eq_ignore_ascii_case("name"))
    });
    named
        .or_else(|| (ix + 1..end).find(|&k| dom.node(k).tag == Tag::A))
        .unwrap_or(ix)
}

/// Collapses whitespace, removes a leading "By", and rejects values that are
/// URLs or too long to be names.
pub(crate) fn clean_byline(raw: &str) -> Option<String> {
    let collapsed = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = collapsed.as_str();
    for prefix in ["By ", "by ", "BY ", "Von ", "Par ", "Por ", "Di "] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest;
        }
    }
    // "Name | Staff writer", "Name - 27/09/2018": keep the name part.
    let s = s.split(" | ").next().unwrap_or(s);
    // Drop trailing handles and dates ("@name", "27/09/2018", "12:30").
    let words: Vec<&str> = s.split(' ').collect();
    let keep = words.len()
        - words
            .iter()
            .rev()
            .take_while(|w| {
                w.starts_with('@')
                    || (w.bytes().any(|b| b.is_ascii_digit())
                        && w.bytes()
                            .all(|b| b.is_ascii_digit() || b"/-:.,".contains(&b)))
                    || **w == "-"
            })
            .count();
    let s = words[..keep].join(" ");
    let s = s.trim_matches(|c: char| c == ',' || c == '|' || c.is_whitespace());
    if s.is_empty() || s.len() > 120 || s.starts_with("http") || s.starts_with('@') {
        return None;
    }
    Some(s.to_owned())
}

/// Removes a site-name part from a page title.
pub(crate) fn clean_title(raw: &str, site: Option<&str>, url: Option<&Url>) -> String {
    let title = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(sep) = title_separator(&title) else {
        return title;
    };
    let parts: Vec<&str> = title.split(sep).map(str::trim).collect();
    let host_label = url.and_then(Url::host_str).map(|h| {
        h.trim_start_matches("www.")
            .split('.')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
    });
    let is_site = |part: &str| {
        let p = squash(part);
        if p.is_empty() {
            return false;
        }
        site.is_some_and(|s| {
            let s = squash(s);
            !s.is_empty() && (p == s || p.contains(&s) || s.contains(&p))
        }) || host_label
            .as_deref()
            .is_some_and(|h| h.len() > 2 && (p.contains(h) || h.contains(&p)))
    };
    let mut kept: Vec<&str> = parts.iter().copied().filter(|p| !is_site(p)).collect();
    if kept.is_empty() {
        kept = parts.clone();
    }
    // A leading section label: "Opinion | Headline of the piece".
    if kept.len() >= 2
        && title_words(kept[0]) <= 2
        && kept[0].chars().count() <= 20
        && kept[1..].iter().map(|p| title_words(p)).sum::<usize>() >= 4
    {
        kept.remove(0);
    }
    if kept.len() < parts.len() {
        return kept.join(sep);
    }
    // No known site name: drop a short last part after a longer headline.
    if parts.len() >= 2 {
        let last = parts[parts.len() - 1];
        let head = parts[..parts.len() - 1].join(sep);
        if title_words(last) <= 4 && title_words(&head) >= 3 {
            return head;
        }
    }
    title
}

/// A `/yyyy/mm/dd/` date in the URL path.
fn date_from_url(url: &Url) -> Option<String> {
    let segs: Vec<&str> = url.path_segments()?.collect();
    segs.windows(3).find_map(|w| {
        let ok = w[0].len() == 4 && w[1].len() <= 2 && w[2].len() <= 2;
        ok.then(|| normalize_date(&format!("{}-{:0>2}-{:0>2}", w[0], w[1], w[2])))
            .flatten()
    })
}

fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_lose_site_names_and_section_labels() {
        let url = Url::parse("https://www.example-news.com/a").ok();
        assert_eq!(
            clean_title(
                "Storm hits the coast | Example News",
                Some("Example News"),
                None
            ),
            "Storm hits the coast"
        );
        assert_eq!(
            clean_title(
                "Storm hits the coast - example-news.com",
                None,
                url.as_ref()
            ),
            "Storm hits the coast"
        );
        assert_eq!(
            clean_title(
                "Opinion | Why the storm was worse than forecast",
                None,
                None
            ),
            "Why the storm was worse than forecast"
        );
        assert_eq!(
            clean_title(
                "Why the storm was worse than forecast - Daily Blog",
                None,
                None
            ),
            "Why the storm was worse than forecast"
        );
        assert_eq!(clean_title("Cats - Dogs", None, None), "Cats - Dogs");
    }

    #[test]
    fn cjk_titles_lose_site_names_after_unspaced_separators() {
        assert_eq!(
            clean_title("北京今年首场降雪来临_新闻中心", None, None),
            "北京今年首场降雪来临"
        );
        assert_eq!(
            clean_title("京都で紅葉を楽しむ三つの方法｜旅のブログ", None, None),
            "京都で紅葉を楽しむ三つの方法"
        );
        assert_eq!(
            clean_title("京都で紅葉を楽しむ三つの方法 | 旅のブログ", None, None),
            "京都で紅葉を楽しむ三つの方法"
        );
        // Too short to tell the headline from the site: kept whole.
        assert_eq!(clean_title("雪_新闻", None, None), "雪_新闻");
        // Latin titles never split on an unspaced hyphen.
        assert_eq!(
            clean_title("Self-driving cars arrive", None, None),
            "Self-driving cars arrive"
        );
    }

    #[test]
    fn bylines_are_names() {
        assert_eq!(clean_byline("By  Jane   Doe").as_deref(), Some("Jane Doe"));
        assert_eq!(
            clean_byline("Carlos Nadalim 27/09/2018").as_deref(),
            Some("Carlos Nadalim")
        );
        assert_eq!(
            clean_byline("Bryan DeArdo @BryanDeArdo").as_deref(),
            Some("Bryan DeArdo")
        );
        assert_eq!(
            clean_byline("Ana Lima | Staff writer").as_deref(),
            Some("Ana Lima")
        );
        assert_eq!(clean_byline("https://facebook.com/someone"), None);
        assert_eq!(clean_byline("   "), None);
    }
}
