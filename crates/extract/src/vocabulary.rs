//! What class names, ids, ARIA roles and microdata say about an element.
//!
//! Sites name their containers for what they hold: `article-body`,
//! `entry-content`, `comments`, `share-tools`, `related-stories`. These tables
//! map such words to a hint: *boilerplate* (drop the subtree: comments,
//! sharing, related links, ads, navigation, newsletter boxes…), a *negative*
//! or *positive* weight for the main-content scorer, or *article body*
//! (microdata/ARIA that names the main text outright). The words are matched
//! against the lower-cased `class` and `id` values, either as a whole token
//! (`ad`, `nav`), as the start of a token (`comment` in `commentlist`) or
//! anywhere (`sidebar` in `rightsidebar`).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use scraper::node::Element;

use super::dom::Tag;

/// Hint flags and weight for one element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hint {
    /// Scorer weight from class/id words (negative = unlikely content).
    pub weight: i16,
    /// `Hint::*` flag bits.
    pub flags: u8,
}

impl Hint {
    /// No opinion.
    pub const NEUTRAL: Hint = Hint {
        weight: 0,
        flags: 0,
    };
    /// The subtree is boilerplate (navigation, comments, sharing, ads, …).
    pub const BOILERPLATE: u8 = 1;
    /// The element is named as the article body (microdata, ARIA, classes).
    pub const ARTICLE_BODY: u8 = 2;
    /// A page header: boilerplate unless it holds real paragraphs.
    pub const HEADER: u8 = 4;
    /// Caption, credit or byline-like: kept only inside the chosen content.
    pub const MINOR: u8 = 8;
    /// Boilerplate that is never a page wrapper (comments, cookie notices,
    /// dialogs, newsletter boxes, related links).
    pub const STRONG: u8 = 16;
    /// Names a comment section: boilerplate even around a named body.
    pub const COMMENTS: u8 = 32;

    /// Has the given flag bit.
    pub(crate) fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// How a vocabulary word must sit in a class/id value to count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// The whole token (`ad` matches `ad` and `top-ad`, not `head`).
    Token,
    /// The start of a token (`comment` matches `commentlist`).
    Prefix,
    /// Anywhere (`sidebar` matches `rightsidebar`).
    Anywhere,
    /// A whole class name or id (`hidden` matches `hidden`, not
    /// `field-label-hidden`).
    Whole,
}

/// What a vocabulary word means.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Meaning {
    /// Page chrome (ads, navigation, sidebars): removed with its subtree,
    /// unless the element turns out to wrap the article itself.
    Boilerplate,
    /// Boilerplate that never wraps an article (comments, cookie notices,
    /// dialogs, newsletter boxes, related links): always removed.
    Strong,
    /// A comment section: [`Meaning::Strong`], and boilerplate even around
    /// a named article body.
    Comments,
    /// Unlikely to be content (scorer weight only).
    Negative,
    /// Likely to be content (scorer weight only).
    Positive,
    /// Names the article body.
    Body,
    /// Caption, credit, byline, dateline.
    Minor,
}

/// The class/id vocabulary: (word, how it must fit, meaning).
const CLASS_WORDS: &[(&str, Fit, Meaning)] = &[
    // comments and community
    ("comment", Fit::Prefix, Meaning::Comments),
    ("disqus", Fit::Anywhere, Meaning::Comments),
    ("respond", Fit::Whole, Meaning::Strong),
    ("reply", Fit::Whole, Meaning::Strong),
    ("replies", Fit::Whole, Meaning::Strong),
    ("discussion", Fit::Token, Meaning::Strong),
    ("forum", Fit::Token, Meaning::Strong),
    // comments named in other languages (de/sv/da/no, cs/pl/id, es/pt, nl, tr)
    ("kommentar", Fit::Prefix, Meaning::Comments),
    ("komentar", Fit::Prefix, Meaning::Comments),
    ("comentario", Fit::Prefix, Meaning::Comments),
    ("reacties", Fit::Token, Meaning::Comments),
    ("yorum", Fit::Prefix, Meaning::Comments),
    // sharing and social
    ("share", Fit::Prefix, Meaning::Boilerplate),
    ("sharing", Fit::Anywhere, Meaning::Strong),
    ("sharethis", Fit::Anywhere, Meaning::Strong),
    ("addthis", Fit::Anywhere, Meaning::Strong),
    ("social", Fit::Prefix, Meaning::Boilerplate),
    ("follow", Fit::Whole, Meaning::Boilerplate),
    ("tweet", Fit::Token, Meaning::Negative),
    ("teilen", Fit::Token, Meaning::Boilerplate),
    ("partage", Fit::Prefix, Meaning::Boilerplate),
    ("compartir", Fit::Prefix, Meaning::Boilerplate),
    ("condividi", Fit::Prefix, Meaning::Boilerplate),
    // related and recommended content
    ("related", Fit::Prefix, Meaning::Strong),
    ("relatedposts", Fit::Anywhere, Meaning::Strong),
    ("recommend", Fit::Prefix, Meaning::Strong),
    ("recirc", Fit::Prefix, Meaning::Strong),
    ("more-stories", Fit::Anywhere, Meaning::Strong),
    ("morestories", Fit::Anywhere, Meaning::Strong),
    ("read-more", Fit::Anywhere, Meaning::Strong),
    ("readmore", Fit::Anywhere, Meaning::Strong),
    ("read-next", Fit::Anywhere, Meaning::Strong),
    ("popular", Fit::Prefix, Meaning::Strong),
    ("mostpopular", Fit::Anywhere, Meaning::Strong),
    ("most-read", Fit::Anywhere, Meaning::Strong),
    ("trending", Fit::Prefix, Meaning::Strong),
    ("outbrain", Fit::Anywhere, Meaning::Strong),
    ("taboola", Fit::Anywhere, Meaning::Strong),
    ("zergnet", Fit::Anywhere, Meaning::Strong),
    ("teaser", Fit::Prefix, Meaning::Negative),
    ("promo", Fit::Prefix, Meaning::Boilerplate),
    // advertising and sponsorship
    ("ad", Fit::Token, Meaning::Boilerplate),
    ("ads", Fit::Token, Meaning::Boilerplate),
    ("adv", Fit::Token, Meaning::Boilerplate),
    ("advert", Fit::Prefix, Meaning::Boilerplate),
    ("advertisement", Fit::Anywhere, Meaning::Boilerplate),
    ("adslot", Fit::Prefix, Meaning::Boilerplate),
    ("adunit", Fit::Prefix, Meaning::Boilerplate),
    ("dfp", Fit::Token, Meaning::Boilerplate),
    ("sponsor", Fit::Prefix, Meaning::Boilerplate),
    ("banner", Fit::Token, Meaning::Boilerplate),
    // advertising named in other languages (de, fr, es, it, nl, pl/cs/ru/sv)
    ("werbung", Fit::Anywhere, Meaning::Boilerplate),
    ("anzeige", Fit::Token, Meaning::Boilerplate),
    ("publicite", Fit::Prefix, Meaning::Boilerplate),
    ("publicidad", Fit::Prefix, Meaning::Boilerplate),
    ("pubblicita", Fit::Prefix, Meaning::Boilerplate),
    ("reclame", Fit::Token, Meaning::Boilerplate),
    ("reklam", Fit::Prefix, Meaning::Boilerplate),
    // subscriptions, newsletters, paywall prompts, cookies, dialogs
    ("newsletter", Fit::Anywhere, Meaning::Strong),
    ("subscri", Fit::Prefix, Meaning::Strong),
    ("signup", Fit::Prefix, Meaning::Strong),
    ("sign-up", Fit::Anywhere, Meaning::Strong),
    ("login", Fit::Prefix, Meaning::Strong),
    ("signin", Fit::Prefix, Meaning::Strong),
    ("register", Fit::Whole, Meaning::Strong),
    ("cookie", Fit::Prefix, Meaning::Strong),
    ("consent", Fit::Prefix, Meaning::Strong),
    ("gdpr", Fit::Anywhere, Meaning::Strong),
    ("popup", Fit::Prefix, Meaning::Strong),
    ("modal", Fit::Prefix, Meaning::Strong),
    ("overlay", Fit::Whole, Meaning::Strong),
    ("donate", Fit::Prefix, Meaning::Strong),
    ("optin", Fit::Prefix, Meaning::Strong),
    ("opt-in", Fit::Anywhere, Meaning::Strong),
    // notices beside the article: affiliate disclosures, disclaimers
    ("disclosure", Fit::Anywhere, Meaning::Boilerplate),
    ("disclaim", Fit::Anywhere, Meaning::Boilerplate),
    // navigation and page chrome
    ("nav", Fit::Token, Meaning::Boilerplate),
    ("navbar", Fit::Anywhere, Meaning::Boilerplate),
    ("navigation", Fit::Anywhere, Meaning::Boilerplate),
    ("subnav", Fit::Anywhere, Meaning::Boilerplate),
    ("menu", Fit::Prefix, Meaning::Boilerplate),
    ("breadcrumb", Fit::Prefix, Meaning::Boilerplate),
    ("pagination", Fit::Anywhere, Meaning::Boilerplate),
    ("pager", Fit::Token, Meaning::Boilerplate),
    ("sidebar", Fit::Anywhere, Meaning::Boilerplate),
    ("rail", Fit::Token, Meaning::Boilerplate),
    ("widget", Fit::Prefix, Meaning::Boilerplate),
    ("footer", Fit::Anywhere, Meaning::Boilerplate),
    ("masthead", Fit::Anywhere, Meaning::Boilerplate),
    ("toolbar", Fit::Anywhere, Meaning::Boilerplate),
    ("tools", Fit::Whole, Meaning::Boilerplate),
    ("actions", Fit::Token, Meaning::Boilerplate),
    ("action-bar", Fit::Anywhere, Meaning::Boilerplate),
    ("actionbar", Fit::Anywhere, Meaning::Boilerplate),
    ("skip", Fit::Whole, Meaning::Boilerplate),
    ("skiplink", Fit::Prefix, Meaning::Boilerplate),
    ("jump", Fit::Whole, Meaning::Boilerplate),
    ("tags", Fit::Token, Meaning::Boilerplate),
    ("taglist", Fit::Anywhere, Meaning::Boilerplate),
    ("tag-list", Fit::Anywhere, Meaning::Boilerplate),
    ("print", Fit::Whole, Meaning::Boilerplate),
    ("rating", Fit::Prefix, Meaning::Boilerplate),
    ("sr-only", Fit::Anywhere, Meaning::Strong),
    ("visually-hidden", Fit::Anywhere, Meaning::Strong),
    ("visuallyhidden", Fit::Anywhere, Meaning::Strong),
    ("screen-reader", Fit::Anywhere, Meaning::Strong),
    ("hidden", Fit::Whole, Meaning::Strong),
    ("hide", Fit::Whole, Meaning::Strong),
    ("author-bio", Fit::Anywhere, Meaning::Strong),
    ("authorbio", Fit::Anywhere, Meaning::Strong),
    ("about-author", Fit::Anywhere, Meaning::Strong),
    ("about-the-author", Fit::Anywhere, Meaning::Strong),
    ("author-box", Fit::Anywhere, Meaning::Strong),
    ("authorbox", Fit::Anywhere, Meaning::Strong),
    ("author-description", Fit::Anywhere, Meaning::Strong),
    ("copyright", Fit::Prefix, Meaning::Boilerplate),
    // the line under a blog post that files it ("This entry was posted in
    // … Bookmark the permalink"; a few themes put their byline in it, which
    // is chrome to the text as well)
    ("postmetadata", Fit::Anywhere, Meaning::Boilerplate),
    ("entry-utility", Fit::Anywhere, Meaning::Boilerplate),
    // the poster's card beside each post of a forum or Q&A thread (name,
    // rank, join date, post count, reputation) and the signature under it
    ("postprofile", Fit::Anywhere, Meaning::Boilerplate),
    ("user-info", Fit::Anywhere, Meaning::Boilerplate),
    ("userinfo", Fit::Anywhere, Meaning::Boilerplate),
    ("user-details", Fit::Anywhere, Meaning::Boilerplate),
    ("signature", Fit::Token, Meaning::Boilerplate),
    ("post-signature", Fit::Anywhere, Meaning::Boilerplate),
    // weak negatives: chrome that sometimes wraps content
    ("header", Fit::Anywhere, Meaning::Negative),
    ("masthead", Fit::Token, Meaning::Negative),
    ("meta", Fit::Token, Meaning::Negative),
    ("extra", Fit::Whole, Meaning::Negative),
    ("aside", Fit::Prefix, Meaning::Negative),
    ("combx", Fit::Anywhere, Meaning::Negative),
    ("contact", Fit::Prefix, Meaning::Negative),
    ("shopping", Fit::Prefix, Meaning::Negative),
    ("hero", Fit::Whole, Meaning::Negative),
    ("gallery", Fit::Prefix, Meaning::Negative),
    ("thumbnail", Fit::Prefix, Meaning::Negative),
    ("card", Fit::Whole, Meaning::Negative),
    ("list", Fit::Whole, Meaning::Negative),
    // minor: captions, credits, bylines, datelines
    ("caption", Fit::Prefix, Meaning::Minor),
    ("credit", Fit::Prefix, Meaning::Minor),
    ("byline", Fit::Prefix, Meaning::Minor),
    ("author", Fit::Token, Meaning::Minor),
    ("dateline", Fit::Prefix, Meaning::Minor),
    ("timestamp", Fit::Prefix, Meaning::Minor),
    // positive
    ("article", Fit::Prefix, Meaning::Positive),
    ("content", Fit::Anywhere, Meaning::Positive),
    ("entry", Fit::Prefix, Meaning::Positive),
    ("hentry", Fit::Token, Meaning::Positive),
    ("post", Fit::Prefix, Meaning::Positive),
    ("story", Fit::Prefix, Meaning::Positive),
    ("body", Fit::Anywhere, Meaning::Positive),
    ("text", Fit::Anywhere, Meaning::Positive),
    ("main", Fit::Prefix, Meaning::Positive),
    // the article and its content named in other languages
    ("artikel", Fit::Prefix, Meaning::Positive),
    ("beitrag", Fit::Prefix, Meaning::Positive),
    ("inhalt", Fit::Prefix, Meaning::Positive),
    ("contenu", Fit::Prefix, Meaning::Positive),
    ("contenido", Fit::Prefix, Meaning::Positive),
    ("conteudo", Fit::Prefix, Meaning::Positive),
    ("articolo", Fit::Prefix, Meaning::Positive),
    ("articulo", Fit::Prefix, Meaning::Positive),
    ("blog", Fit::Prefix, Meaning::Positive),
    ("prose", Fit::Token, Meaning::Positive),
    ("markdown", Fit::Prefix, Meaning::Positive),
    // named article bodies
    ("articlebody", Fit::Anywhere, Meaning::Body),
    ("article-body", Fit::Anywhere, Meaning::Body),
    ("article__body", Fit::Anywhere, Meaning::Body),
    ("article-content", Fit::Anywhere, Meaning::Body),
    ("articlecontent", Fit::Anywhere, Meaning::Body),
    ("article-text", Fit::Anywhere, Meaning::Body),
    ("story-body", Fit::Anywhere, Meaning::Body),
    ("storybody", Fit::Anywhere, Meaning::Body),
    ("story-content", Fit::Anywhere, Meaning::Body),
    ("post-body", Fit::Anywhere, Meaning::Body),
    ("post-content", Fit::Anywhere, Meaning::Body),
    ("entry-content", Fit::Anywhere, Meaning::Body),
    ("body-text", Fit::Anywhere, Meaning::Body),
    ("bodytext", Fit::Anywhere, Meaning::Body),
];

/// ARIA roles that mark page chrome.
const BOILERPLATE_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "menu",
    "menubar",
    "toolbar",
    "tablist",
];

/// Microdata properties that name the article body.
const BODY_ITEMPROPS: &[&str] = &["articlebody", "reviewbody", "text"];

/// Builds the class-word matcher now (once per process), so that its
/// one-time cost is never charged to a page's time budget.
pub(crate) fn prepare() {
    LazyLock::force(&CLASS_MATCHER);
}

/// The class/id words compiled into one case-insensitive automaton, with
/// the entry of [`CLASS_WORDS`] each pattern stands for. A hyphenated name
/// of chrome also matches its snake_case twin (`author-bio`, `author_bio`):
/// class names join words either way. Names of the article body do not:
/// they outrank the scorer, so only their usual spelling is trusted (on
/// the development sets the twins gained five pages and lost more on
/// photo stories whose `story_body` holds only captions).
struct ClassMatcher {
    automaton: AhoCorasick,
    entry: Vec<usize>,
}

static CLASS_MATCHER: LazyLock<ClassMatcher> = LazyLock::new(|| {
    let mut patterns = Vec::new();
    let mut entry = Vec::new();
    for (i, (word, _, meaning)) in CLASS_WORDS.iter().enumerate() {
        patterns.push(word.to_string());
        entry.push(i);
        let trusted_as_spelled = matches!(meaning, Meaning::Body | Meaning::Positive);
        if word.contains('-') && !trusted_as_spelled {
            patterns.push(word.replace('-', "_"));
            entry.push(i);
        }
    }
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&patterns)
        .expect("the class vocabulary is a valid set of literal patterns");
    ClassMatcher { automaton, entry }
});

/// The hint for an element of kind `tag`.
pub(crate) fn hint_for(tag: Tag, el: &Element) -> Hint {
    let mut hint = match tag {
        Tag::Nav | Tag::Aside | Tag::Footer => Hint {
            weight: -25,
            flags: Hint::BOILERPLATE,
        },
        Tag::Header => Hint {
            weight: -25,
            flags: Hint::HEADER,
        },
        Tag::Figcaption => Hint {
            weight: 0,
            flags: Hint::MINOR,
        },
        Tag::Article | Tag::Main => Hint {
            weight: 10,
            flags: 0,
        },
        _ => Hint::NEUTRAL,
    };
    if matches!(tag, Tag::Html | Tag::Head | Tag::Body) {
        return hint;
    }
    let mut it_is_comment = false;
    for (name, value) in el.attrs() {
        match name {
            "class" | "id" => {
                class_words(value, &mut hint, &mut it_is_comment);
            }
            "role" => {
                let role = value.trim();
                if role.eq_ignore_ascii_case("dialog") || role.eq_ignore_ascii_case("alertdialog") {
                    hint.flags |= Hint::BOILERPLATE | Hint::STRONG;
                } else if BOILERPLATE_ROLES
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(role))
                {
                    hint.flags |= Hint::BOILERPLATE;
                } else if role.eq_ignore_ascii_case("main") || role.eq_ignore_ascii_case("article")
                {
                    hint.weight += 25;
                }
            }
            "itemprop" => {
                let prop = value.trim();
                if BODY_ITEMPROPS.iter().any(|p| p.eq_ignore_ascii_case(prop)) {
                    hint.flags |= Hint::ARTICLE_BODY;
                } else if prop.eq_ignore_ascii_case("comment") {
                    hint.flags |= Hint::BOILERPLATE | Hint::STRONG | Hint::COMMENTS;
                }
            }
            _ => {}
        }
    }
    if matches!(tag, Tag::Article | Tag::Main) && !it_is_comment {
        // Semantic containers keep their content even when a class such as
        // `has-sidebar` or `comments-open` mentions chrome.
        hint.flags &= !(Hint::BOILERPLATE | Hint::STRONG | Hint::COMMENTS);
    }
    if hint.has(Hint::ARTICLE_BODY) {
        hint.flags &= !(Hint::BOILERPLATE | Hint::MINOR | Hint::STRONG | Hint::COMMENTS);
    }
    hint
}

/// Applies the class/id vocabulary to one attribute value.
fn class_words(value: &str, hint: &mut Hint, it_is_comment: &mut bool) {
    let bytes = value.as_bytes();
    // A word boundary sits between a non-alphanumeric byte and anything, and
    // at a camelCase step (`relatedArticles`).
    let boundary = |i: usize| {
        if i == 0 || i >= bytes.len() {
            return true;
        }
        let (a, b) = (bytes[i - 1], bytes[i]);
        !a.is_ascii_alphanumeric()
            || !b.is_ascii_alphanumeric()
            || (a.is_ascii_lowercase() && b.is_ascii_uppercase())
    };
    let mut positive = false;
    let mut negative = false;
    for m in CLASS_MATCHER.automaton.find_overlapping_iter(value) {
        let (_, fit, meaning) = CLASS_WORDS[CLASS_MATCHER.entry[m.pattern().as_usize()]];
        let starts = boundary(m.start());
        let fits = match fit {
            Fit::Token => starts && boundary(m.end()),
            Fit::Prefix => starts,
            Fit::Anywhere => true,
            Fit::Whole => {
                let before = m.start() == 0 || bytes[m.start() - 1].is_ascii_whitespace();
                let after = m.end() == bytes.len() || bytes[m.end()].is_ascii_whitespace();
                before && after
            }
        };
        if !fits || is_state_modifier(bytes, m.start(), m.end()) {
            continue;
        }
        match meaning {
            Meaning::Boilerplate => {
                hint.flags |= Hint::BOILERPLATE;
                negative = true;
            }
            Meaning::Strong => {
                hint.flags |= Hint::BOILERPLATE | Hint::STRONG;
                negative = true;
            }
            Meaning::Comments => {
                hint.flags |= Hint::BOILERPLATE | Hint::STRONG | Hint::COMMENTS;
                negative = true;
                *it_is_comment = true;
            }
            Meaning::Negative => negative = true,
            Meaning::Positive => positive = true,
            Meaning::Body => {
                hint.flags |= Hint::ARTICLE_BODY;
                positive = true;
            }
            Meaning::Minor => {
                hint.flags |= Hint::MINOR;
                negative = true;
            }
        }
    }
    if negative {
        hint.weight -= 25;
    }
    if positive {
        hint.weight += 25;
    }
}

/// Class prefixes and suffixes that make a word describe a page *state*
/// (`has-sidebar`, `comments-open`, `modal-enabled`) rather than name the
/// element itself.
const STATE_PREFIXES: &[&str] = &["has-", "has_", "with-", "no-", "show-", "enable-", "is-"];
/// Page builders that call every block of a page a widget
/// (`elementor-widget-text-editor`): their prefix makes the word layout,
/// not chrome. Chrome they build keeps its own words (`…-nav-menu`,
/// `…-share-buttons`).
const BUILDER_PREFIXES: &[&str] = &["elementor-"];
const STATE_SUFFIXES: &[&str] = &[
    "-enabled",
    "-disabled",
    "-open",
    "-opened",
    "-closed",
    "-active",
    "-visible",
    "-on",
    "-off",
    "-mode",
    "-allowed",
    "-template",
    "-layout",
    "_enabled",
    "-left",
    "-right",
];

/// The word at `start..end` is part of a state class such as `has-sidebar`.
fn is_state_modifier(bytes: &[u8], start: usize, end: usize) -> bool {
    let token_start = bytes[..start]
        .iter()
        .rposition(u8::is_ascii_whitespace)
        .map_or(0, |p| p + 1);
    let token_end = bytes[end..]
        .iter()
        .position(u8::is_ascii_whitespace)
        .map_or(bytes.len(), |p| end + p);
    let before = &bytes[token_start..start];
    let after = &bytes[end..token_end];
    let ends_with = |hay: &[u8], pat: &str| {
        hay.len() >= pat.len() && hay[hay.len() - pat.len()..].eq_ignore_ascii_case(pat.as_bytes())
    };
    STATE_PREFIXES
        .iter()
        .chain(BUILDER_PREFIXES)
        .any(|p| ends_with(before, p))
        || STATE_SUFFIXES.iter().any(|suf| {
            // the suffix directly follows the word (allowing a plural "s")
            let a = if after.first().is_some_and(|b| b.eq_ignore_ascii_case(&b's')) {
                &after[1..]
            } else {
                after
            };
            a.len() >= suf.len()
                && a[..suf.len()].eq_ignore_ascii_case(suf.as_bytes())
                && (a.len() == suf.len() || !a[suf.len()].is_ascii_alphanumeric())
        })
}

/// The element is not rendered ([`crate::hidden`]: the `hidden`
/// attribute, `display:none` or `visibility:hidden`, a display class).
pub(crate) fn is_hidden(el: &Element) -> bool {
    crate::hidden::is_removed(el)
}

/// Headings that open a page's comment section ("Comments", "13
/// comments:", "3 thoughts on “…”", "Leave a reply"), compared with the
/// heading's words lower-cased, digits and punctuation dropped.
const COMMENT_HEADINGS: &[&str] = &[
    "comments",
    "reader comments",
    "user comments",
    "join the discussion",
    "leave a comment",
    "leave a reply",
    "post a comment",
    "add a comment",
    "add your comment",
    "trackbacks",
    "pingbacks",
    // the same in other languages, with the comment-form headings of the
    // common blog engines' translations
    "kommentare",
    "schreibe einen kommentar",
    "commentaires",
    "laisser un commentaire",
    "comentarios",
    "deja una respuesta",
    "deja un comentario",
    "comentários",
    "deixe um comentário",
    "commenti",
    "lascia un commento",
    "reacties",
    "geef een reactie",
    "kommentarer",
    "komentarze",
    "dodaj komentarz",
    "komentáře",
    "yorumlar",
    "σχόλια",
    "комментарии",
    "добавить комментарий",
    "תגובות",
    "التعليقات",
    "评论",
    "評論",
    "发表评论",
    "发表回复",
    "コメント",
    "コメントを残す",
    "댓글",
];

/// After a count, what a comment-section heading says ("12 responses",
/// "3 thoughts on “Title”"): words that alone could name an article's
/// section ("Responses", "Discussion") only count with a number.
const COUNTED_COMMENT_HEADINGS: &[&str] = &[
    "comment",
    "responses",
    "response",
    "replies",
    "reply",
    "reactions",
    "thoughts on ",
    "thought on ",
    "thought on ",
    "responses to ",
    "response to ",
    "comments on ",
    "comments to ",
    "replies to ",
];

/// Whether a heading with `text` opens the comment section.
pub(crate) fn is_comment_heading(text: &str) -> bool {
    if text.chars().count() > 200 {
        return false;
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let joined = words.join(" ");
    let counted = text.trim_start().starts_with(|c: char| c.is_ascii_digit());
    COMMENT_HEADINGS.contains(&joined.as_str())
        || (counted
            && COUNTED_COMMENT_HEADINGS
                .iter()
                .any(|h| joined == *h || (h.ends_with(' ') && joined.starts_with(h))))
}

#[cfg(test)]
mod tests {
    use super::is_comment_heading;

    #[test]
    fn comment_section_headings_are_recognised() {
        for heading in [
            "Comments",
            "13 comments:",
            "1 Comment",
            "12 Responses",
            "3 thoughts on “How ferrets sleep”",
            "Leave a Reply",
            "Kommentare",
            "Laisser un commentaire",
            "Deixe um comentário",
            "Комментарии",
            "12 Kommentarer",
            "评论",
            "コメントを残す",
        ] {
            assert!(is_comment_heading(heading), "{heading}");
        }
    }

    #[test]
    fn article_sections_are_not_comment_headings() {
        for heading in [
            "Comment",
            "Discussion",
            "Responses",
            "Replies to the consultation were mixed",
            "Comments on the draft law were due in May",
            "Results",
        ] {
            assert!(!is_comment_heading(heading), "{heading}");
        }
    }
}
