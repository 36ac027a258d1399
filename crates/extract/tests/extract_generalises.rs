//! Extraction rules that must hold on any site: short articles are kept,
//! anchors without `href` are text, invisible characters leave the text,
//! hidden markup is read when it is the only content, a page without prose
//! falls back to its own content landmark, the headline is never a blog's
//! name in its sidebar, navigation rails never turn the page wrapper into a
//! teaser list, a slideshow's caption is its text, a CJK sentence weighs
//! what it says, a quotation or a list is read with the text around it, a
//! thread's posts come without their posters' cards, chrome named in other
//! languages is chrome, a display class hides text, a paragraph that links
//! the names it mentions is prose, a link list beside a post does not cut
//! the post short, an author box is chrome however its class joins its
//! words, the line that files a blog post is not part of it, a list the
//! article announces is read even when it is all links, a legal notice
//! longer than a short article stays chrome, a headline edited between the
//! title and the page is still the headline, a short post with a long
//! thread of replies is the post, disclosures and opt-in boxes are chrome,
//! teaser cards are one list whatever their per-post classes while a
//! thread's posts that repeat one title are not teasers, a page builder's
//! widgets are not chrome, a promo inside the named article body stays
//! chrome, and valid UTF-8 beats a wrong legacy declaration.
//! Pages are written here; no site names or classes of one site.

use ferret_extract::{ExtractOptions, Extracted, extract, extract_bytes, extract_many};
use url::Url;

fn run(html: &str) -> Extracted {
    extract(html, None, &ExtractOptions::default())
}

const PARA: &str = "Ferrets sleep for up to eighteen hours a day and are most active at dawn and dusk, when they explore, play and hunt in short bursts of energy.";

fn comments(n: usize) -> String {
    (0..n)
        .map(|k| format!("<div class=\"reply\"><p>Reader {k} says: I have kept ferrets for many years and mine always slept in a hammock near the window, which they loved very much.</p></div>"))
        .collect()
}

#[test]
fn a_one_paragraph_article_is_kept_not_replaced_by_comments() {
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"post\"><h1>Ferret sleep</h1><div class=\"entry-content\"><p>{PARA}</p></div></div><div class=\"responses\">{}</div></body></html>",
        comments(12)
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(
        !out.text.contains("Reader 3"),
        "comments came in: {}",
        out.text
    );
}

#[test]
fn an_anchor_without_href_is_text_not_a_link() {
    let html = format!(
        "<html><body><article><p><a name=\"top\">{PARA}</a></p><p>{PARA}</p></article></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"));
    assert_eq!(out.link_density, 0.0);
}

#[test]
fn soft_hyphens_and_zero_width_spaces_leave_the_words() {
    let html = "<html><body><article><p>Fer\u{AD}rets are play\u{200B}ful ani\u{2060}mals and they sleep for most of the day in dark and quiet places.</p></article></body></html>";
    let out = run(html);
    assert!(
        out.text.contains("Ferrets are playful animals"),
        "{:?}",
        out.text
    );
    assert!(!out.text.contains(['\u{AD}', '\u{200B}', '\u{2060}']));
}

#[test]
fn noscript_and_template_content_is_read_when_it_is_all_there_is() {
    let noscript = format!(
        "<html><body><div id=\"app\"></div><noscript><article><p>{PARA}</p><p>{PARA}</p></article></noscript></body></html>"
    );
    assert!(run(&noscript).text.contains("eighteen hours"));
    let template = format!(
        "<html><body><div id=\"app\"></div><script type=\"text/x-template\"><article><p>{PARA}</p></article></script></body></html>"
    );
    assert!(run(&template).text.contains("eighteen hours"));
    // A page with visible prose keeps its noscript fallback out.
    let both = format!(
        "<html><body><article><p>{PARA}</p><p>{PARA}</p></article><noscript><p>Turn on scripts to see the comments under this article, please.</p></noscript></body></html>"
    );
    assert!(!run(&both).text.contains("Turn on scripts"));
    // "Enable JavaScript" shells stay shells.
    let shell = "<html><body><div id=\"root\"></div><noscript>You need to enable JavaScript to run this app.</noscript><script>boot()</script></body></html>";
    assert!(!run(shell).text.contains("enable JavaScript"));
}

#[test]
fn a_link_roundup_without_prose_returns_its_list() {
    let items: String = (0..8)
        .map(|k| format!("<li><a href=\"/story/{k}\">Week in review item number {k} about ferret care and feeding</a></li>"))
        .collect();
    let html = format!(
        "<html><head><title>The week in review</title></head><body><nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/about\">About</a></li></ul></nav><div class=\"entry\"><h3>The week in review</h3><div class=\"entry-content\"><ul>{items}</ul></div></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("item number 0") && out.text.contains("item number 7"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("About"), "{}", out.text);
}

#[test]
fn navigation_rails_do_not_make_the_page_wrapper_a_teaser_list() {
    let rail = |name: &str| -> String {
        let links: String = (0..6)
            .map(|k| format!("<a href=\"/{name}/{k}\">A long navigation entry number {k}</a><br>"))
            .collect();
        format!("<div id=\"{name}\">{links}</div>")
    };
    let body: String = (0..4).map(|_| format!("<p>{PARA}</p>")).collect();
    let html = format!(
        "<html><body><div id=\"page\">{}{}<div id=\"content\"><h1>Ferrets</h1>{body}</div>{}</div></body></html>",
        rail("menu"),
        rail("topics"),
        rail("more")
    );
    let out = run(&html);
    assert!(
        out.text.matches("eighteen hours").count() == 4,
        "{}",
        out.text
    );
}

#[test]
fn valid_utf8_wins_over_a_wrong_legacy_meta_charset() {
    let html = "<html><head><meta charset=\"gb2312\"></head><body><article><p>Grüße aus Zürich: Frettchen schlafen bis zu achtzehn Stunden am Tag — 雪貂每天睡十八个小时。</p></article></body></html>";
    let out = extract_bytes(html.as_bytes(), None, None, &ExtractOptions::default());
    assert!(out.text.contains("Grüße aus Zürich"), "{}", out.text);
    assert!(out.text.contains("雪貂每天睡十八个小时"), "{}", out.text);
}

#[test]
fn extract_many_matches_one_at_a_time_in_order() {
    let pages: Vec<(Vec<u8>, Option<Url>)> = (0..9)
        .map(|k| {
            let html =
                format!("<html><body><article><p>Page {k}. {PARA}</p></article></body></html>");
            (
                html.into_bytes(),
                Url::parse(&format!("https://ferrets.example/{k}")).ok(),
            )
        })
        .collect();
    let options = ExtractOptions::default();
    let many = extract_many(&pages, &options);
    assert_eq!(many.len(), pages.len());
    for ((bytes, url), got) in pages.iter().zip(&many) {
        assert_eq!(got, &extract_bytes(bytes, None, url.as_ref(), &options));
    }
    assert!(many[4].text.starts_with("Page 4."));
}

#[test]
fn a_page_that_is_only_its_headline_and_chrome_is_never_empty() {
    // A photo page: a menu, the headline, a caption line and sharing links,
    // no paragraph of prose anywhere.
    let menu: String = (0..12)
        .map(|k| format!("<li><a href=\"/s{k}\">Section {k}</a></li>"))
        .collect();
    let html = format!(
        "<html><head><title>Ferrets in the snow</title></head><body><nav><ul>{menu}</ul></nav><div class=\"gallery\"><h1>Ferrets in the snow</h1><div><span>Two ferrets play in fresh snow.</span></div><div><a href=\"/share\">Share</a></div></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("Two ferrets play"),
        "the caption is lost: {:?}",
        out.text
    );
    let headline_only =
        "<html><head><title>In the pink</title></head><body><h2>In the pink</h2></body></html>";
    assert!(
        !run(headline_only).text.is_empty(),
        "a headline-only page came out empty"
    );
}

#[test]
fn linked_items_right_after_the_headline_are_the_article_not_a_teaser_rail() {
    let items: String = (0..6)
        .map(|k| format!("<li><a href=\"/elsewhere/{k}\">Ferret care guide number {k}</a>: a short note on why this guide about feeding and sleep is worth reading this week, item {k}.</li>"))
        .collect();
    let related: String = (0..6)
        .map(|k| format!("<li><a href=\"/related/{k}\">Related story number {k} on this site</a> A teaser sentence for the related story {k}.</li>"))
        .collect();
    let html = format!(
        "<html><head><title>Links of the week</title></head><body><div class=\"post\"><h2>Links of the week</h2><div class=\"date\">Friday, 9:15</div><div class=\"text\"><p>Here they are:</p><ul>{items}</ul></div></div><div class=\"more\"><h3>More stories</h3><ul>{related}</ul></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("item 0") && out.text.contains("item 5"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("Related story"), "{}", out.text);
}

#[test]
fn one_long_blurb_in_a_sidebar_does_not_beat_a_short_article() {
    let blurb = "The opinions expressed on this site are the author's own and do not reflect the views of any employer, sponsor or manufacturer; prices and availability change without notice, and every product named here is a trademark of its owner. ".repeat(4);
    let html = format!(
        "<html><head><title>In stock at last</title></head><body><div id=\"main\"><div class=\"post\"><h1>In stock at last</h1><p>{PARA}</p></div></div><div id=\"sidebar\"><div class=\"textwidget\">{blurb}</div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(!out.text.contains("opinions expressed"), "{}", out.text);
}

#[test]
fn the_article_under_the_headline_beats_a_longer_author_bio_elsewhere() {
    let nav: String = (0..12)
        .map(|k| format!("<a href=\"/topic/{k}\">Topic number {k} of the site</a> "))
        .collect();
    let nav = format!("<div id=\"top\">{nav}</div>");
    let bio = "Jane Example is a chemist who works on medicines you have hopefully never heard of. She enjoys cooking to bluegrass music, walking her two ferrets along the canal, hosting a weekly science podcast with friends, and writing about the history of laboratory glassware for anyone who will read it.";
    let html = format!(
        "<html><head><title>Quick notes for Monday</title></head><body>{nav}<div id=\"main\"><div class=\"post\"><h2>Quick notes for Monday</h2><div class=\"entry\"><p>{PARA}</p></div></div></div><div id=\"aside\"><div class=\"about\"><p>{bio}</p></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(!out.text.contains("bluegrass"), "{}", out.text);
}

#[test]
fn a_blog_name_heading_in_the_sidebar_is_not_the_headline() {
    // The title is "Blog name: post title"; the sidebar comes first in the
    // source, opens with the blog's name as its `<h1>` and says more than
    // the short post does.
    let bio = "I live by the canal with two ferrets and write about them every week. I have kept ferrets for twenty years, I volunteer at a shelter on weekends, and I answer every letter readers send me about their own animals and their habits.";
    let html = format!(
        "<html><head><title>Ferret notes: Quick notes for Monday</title></head><body><div id=\"sidebar\"><h1>Ferret notes</h1><p>{bio}</p></div><div id=\"main\"><h2 class=\"date\">Monday</h2><div class=\"post\"><h3>Quick notes for Monday</h3><div><p>{PARA}</p></div></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(!out.text.contains("canal"), "{}", out.text);
}

#[test]
fn the_short_lines_after_the_opening_paragraph_are_part_of_the_article() {
    // A notice: one paragraph of prose, then the list it announces, written
    // as short lines in sibling blocks rather than as a list element.
    let lines = |from: usize, to: usize| -> String {
        (from..to)
            .map(|k| format!("<div><b>&#8226; Area{k:02} Township Schools</b></div>"))
            .collect()
    };
    let html = format!(
        "<html><head><title>Schools closed on Thursday</title></head><body><div id=\"nav\"><a href=\"/\">Home</a> <a href=\"/news\">News</a> <a href=\"/sport\">Sport</a></div><div id=\"article\"><h1>Schools closed on Thursday</h1><div class=\"story\"><div>{PARA}</div><div><br></div><div>The following schools will be closed on Thursday:</div>{}<div>These schools open two hours late:</div>{}</div></div></body></html>",
        lines(0, 14),
        lines(14, 22)
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(out.text.contains("Area03 Township"), "{}", out.text);
    assert!(out.text.contains("Area21 Township"), "{}", out.text);
}

#[test]
fn the_text_is_the_body_after_the_headline_with_the_lines_between_them() {
    let body: String = (0..3).map(|_| format!("<p>{PARA}</p>")).collect();
    let html = format!(
        "<html><head><title>How ferrets sleep - Pet Pages</title></head><body><nav><a href=\"/\">Home</a> <a href=\"/pets\">Pets</a></nav><div class=\"post\"><h1>How ferrets sleep</h1><div class=\"when\">Posted on 3 May 2024</div><div class=\"byline\">By Sam Writer</div><div class=\"entry-content\">{body}</div></div><footer><p>Pet Pages is published by an example company; all rights reserved by the owners of this site.</p></footer></body></html>"
    );
    let out = run(&html);
    assert_eq!(out.title.as_deref(), Some("How ferrets sleep"));
    // The headline is the title, not text; the dateline between it and the
    // body opens the text.
    assert!(
        out.text
            .starts_with("Posted on 3 May 2024\n\nFerrets sleep"),
        "{}",
        out.text
    );
    // A byline outside the chosen content is metadata (`byline`), not text.
    assert!(!out.text.contains("Sam Writer"), "{}", out.text);
    assert_eq!(
        out.text.matches("eighteen hours").count(),
        3,
        "{}",
        out.text
    );
    assert!(!out.text.contains("Home"), "{}", out.text);
    assert!(!out.text.contains("all rights reserved"), "{}", out.text);
}

/// A post of three paragraphs, then `heading`, then six replies as the
/// heading's siblings in the post's own container (no comment container).
fn post_then_thread(heading: &str) -> Extracted {
    let body: String = (0..3).map(|_| format!("<p>{PARA}</p>")).collect();
    let replies: String = (0..6)
        .map(|k| format!("<p>Reader {k} wrote a long reply about their own ferrets, who also sleep most of the day in a warm hammock.</p><p class=\"posted\">Posted by: Reader {k} | Mar 26, 2007 2:0{k}:18 PM</p>"))
        .collect();
    let out = run(&format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"content\"><h3>Ferret sleep</h3>{body}{heading}{replies}</div></body></html>"
    ));
    assert_eq!(
        out.text.matches("eighteen hours").count(),
        3,
        "{}",
        out.text
    );
    assert!(!out.text.contains("Reader 0"), "{}", out.text);
    out
}

#[test]
fn a_heading_that_opens_the_comments_ends_the_article() {
    let out = post_then_thread("<h2>12 Comments</h2>");
    assert!(!out.text.contains("Comments"), "{}", out.text);
}

#[test]
fn a_slideshow_whose_text_is_its_caption_is_read_not_left_as_the_headline() {
    // Twenty numbered thumbnails (links) around one slide whose caption is
    // the page's only prose: the thumbnails make the viewer link-heavy, and
    // a caption is chrome on an article page, but here it is the text.
    let thumbs: String = (1..=20)
        .map(|k| format!("<div class=\"thumb\"><a href=\"/slides/{k}\">{k}</a></div>"))
        .collect();
    let html = format!(
        "<html><head><title>Ferrets at play | Photos</title></head><body><div class=\"story\"><h1>Ferrets at play</h1><div class=\"viewer\"><div class=\"thumbs\">{thumbs}</div><div class=\"slide\"><img src=\"/a.jpg\" alt=\"\"><div class=\"caption\">{PARA} <span class=\"credit\">(Photo: A. Keeper)</span></div></div></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert_ne!(out.strategy, ferret_extract::Strategy::Headline);
}

#[test]
fn a_heading_named_as_the_comments_ends_the_article_when_the_replies_are_its_siblings() {
    // The heading's words are not a comment word; its name is what says so.
    post_then_thread("<h2 id=\"comments\">What you said</h2>");
}

#[test]
fn a_post_beside_a_long_thread_in_its_own_container_is_read_whole_not_one_paragraph() {
    // The post's container also holds a comment thread three times its
    // length: the thread is left out of any render, but it weighs the
    // container below its own longest paragraph, which alone would win.
    let long = format!("{PARA} {PARA}");
    let rest: String = ["the first", "the second", "the third"]
        .iter()
        .map(|n| {
            format!(
                "<p>This is {n} of the shorter paragraphs of the post: ferrets like a hammock hung near a warm window, and a den of soft old towels.</p>"
            )
        })
        .collect();
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"post\"><h1>Ferret sleep</h1><p>{long}</p>{rest}<div class=\"comments\">{}</div></div></body></html>",
        comments(20)
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(out.text.contains("the third"), "{}", out.text);
    assert!(!out.text.contains("Reader 3"), "{}", out.text);
}

#[test]
fn a_short_post_in_chinese_or_japanese_weighs_what_it_says_not_its_character_count() {
    // Three short Japanese sentences (16 to 22 characters each; an English
    // rendering takes over 50) between two readers' comments and a longer
    // profile paragraph in the sidebar: each CJK character stands for a
    // syllable or a word, so the post is prose and the sidebar stays out.
    let html = "<html lang=\"ja\"><head><meta charset=\"utf-8\"><title>京都で紅葉を楽しむ三つの方法 | 旅のブログ</title></head><body>\
        <header><a href=\"/\">旅のブログ</a><nav><a href=\"/tag/kyoto\">京都</a> <a href=\"/tag/food\">グルメ</a></nav></header>\
        <div id=\"container\"><div id=\"main\"><div class=\"entry\"><h2 class=\"entry-title\">京都で紅葉を楽しむ三つの方法</h2>\
        <p class=\"date\">2022年11月20日</p><div class=\"entry-body\">\
        <p>今年も紅葉の季節がやってきました。</p><p>朝早く東福寺に行くと、人が少なくて静かです。</p><p>夜のライトアップもおすすめです。</p></div></div>\
        <div class=\"comments\"><h3>コメント</h3><div class=\"comment\"><p>素敵な写真ですね！私も来週行く予定です。おすすめの時間帯があれば教えてください。</p></div>\
        <div class=\"comment\"><p>東福寺は本当に混みますよね。早朝に行くのが一番だと思います。</p></div></div></div>\
        <div id=\"side\"><h3>プロフィール</h3><p>京都在住の会社員です。週末は寺社巡りと写真撮影を楽しんでいます。旅行の情報を中心に書いています。</p></div></div></body></html>";
    let out = run(html);
    assert!(out.text.contains("東福寺に行く"), "{}", out.text);
    assert!(out.text.contains("ライトアップ"), "{}", out.text);
    assert!(
        !out.text.contains("会社員"),
        "the sidebar came in: {}",
        out.text
    );
    assert!(
        !out.text.contains("素敵な写真"),
        "a comment came in: {}",
        out.text
    );
}

#[test]
fn a_quotation_is_read_with_the_post_that_quotes_it() {
    // The post's own paragraphs sit around a quotation, beside the comment
    // thread in one container: the quotation outscores each of the post's
    // paragraphs, and the container loses to it by the thread.
    let quote = "The next decade will connect people, processes, data and things, turning information into actions that create new capabilities and richer experiences. ";
    let own = [
        "I still remember when I got my first modem and dial-up access, back in 1993 or so, and spent whole nights exploring bulletin boards.",
        "There is an interesting article over at a vendor's blog exploring what comes next, and I want to share its main point with you.",
        "The only point I do not agree with is the timing: in my opinion we still need five to ten years before everyday things talk to each other.",
        "So what do you think the next decade will bring? Tell me whether your own home has anything connected yet, apart from the phones.",
    ];
    let thread: String = (0..10)
        .map(|k| format!("<li class=\"comment\"><div class=\"commenttext\"><p>Reader {k}: I still remember my first modem too, it was so slow that a single picture took minutes to load on the screen.</p></div></li>"))
        .collect();
    let html = format!(
        "<html><head><title>How the web will change the world</title></head><body><div id=\"content\"><div id=\"left\">\
         <h1>How the web will change the world</h1><p>{}</p><p>{}</p><blockquote><p>{quote}</p><p>{quote}</p></blockquote><p>{}</p><p>{}</p>\
         <div id=\"commentblock\"><h2 id=\"comments\">10 Responses</h2><ol class=\"commentlist\">{thread}</ol></div></div></div></body></html>",
        own[0], own[1], own[2], own[3]
    );
    let out = run(&html);
    for line in own {
        assert!(out.text.contains(line), "{line} missing: {}", out.text);
    }
    assert!(out.text.contains("richer experiences"), "{}", out.text);
    assert!(!out.text.contains("Reader 3"), "{}", out.text);
}

#[test]
fn the_posters_cards_and_signatures_of_a_thread_stay_out_of_its_posts() {
    let posts = [
        "I bought an old cast iron skillet at a flea market and stripped the rust with vinegar. Which oil works best for seasoning it, and how hot should the oven be?",
        "Skip the flaxseed. Use a thin coat of vegetable shortening or canola oil, wipe off as much as you can, and bake it upside down at 230 C for an hour, three or four times.",
        "Agree with the above. Cooking fatty food in it during the first weeks builds the seasoning faster than any oven cycle, and keep tomato sauces away until it is dark.",
    ];
    let thread: String = posts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            format!(
                "<div class=\"post\"><div class=\"postbody\"><div class=\"content\">{p}</div><div class=\"signature\">My smoker build log and other projects: see my profile page</div></div>\
                 <dl class=\"postprofile\"><dt>cook{k}</dt><dd>Posts: 4{k}1</dd><dd>Joined: Jan 2019</dd></dl>\
                 <div class=\"user-info\"><a href=\"/u/{k}\">cook{k}</a> 1{k}.2k reputation, 3 gold badges</div></div>"
            )
        })
        .collect();
    let html = format!(
        "<html><head><title>Seasoning cast iron</title></head><body><h1>Seasoning cast iron</h1><div id=\"posts\">{thread}</div></body></html>"
    );
    let out = run(&html);
    for p in posts {
        assert!(out.text.contains(p), "{p} missing: {}", out.text);
    }
    for junk in ["Joined", "Posts: 4", "reputation", "smoker build log"] {
        assert!(!out.text.contains(junk), "{junk} came in: {}", out.text);
    }
}

#[test]
fn chrome_named_in_other_languages_is_chrome() {
    // A German page: the advertisement, the sharing bar and the comments
    // are named in German, and each says more than the short article.
    let article = "Der Stadtrat hat am Dienstag beschlossen, das Netz geschützter Radwege in den nächsten drei Jahren um vierzig Kilometer zu erweitern.";
    let ad = "Jetzt zugreifen: Nur diese Woche erhalten Sie alle Fahrräder, Helme und Schlösser in unserem Onlineshop mit zwanzig Prozent Rabatt und kostenlosem Versand bis vor die Haustür. ";
    let comment = "Endlich! Ich fahre jeden Tag mit dem Rad zur Arbeit und warte seit Jahren auf einen sicheren Weg entlang der Hauptstraße, danke an alle Beteiligten.";
    let comments: String = (0..4)
        .map(|k| format!("<div class=\"kommentar\"><p>Leser {k}: {comment}</p></div>"))
        .collect();
    let html = format!(
        "<html lang=\"de\"><head><title>Mehr Radwege für die Stadt</title></head><body><div id=\"seite\">\
         <div class=\"artikel-inhalt\"><h1>Mehr Radwege für die Stadt</h1><p>{article}</p></div>\
         <div class=\"werbung\"><p>{ad}{ad}</p></div><div class=\"teilen\"><p>Teilen Sie diesen Artikel mit Ihren Freunden, Kollegen und Nachbarn auf allen Kanälen.</p></div>\
         <div class=\"kommentare\">{comments}</div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("vierzig Kilometer"), "{}", out.text);
    for junk in ["Onlineshop", "Teilen Sie", "Leser 2"] {
        assert!(!out.text.contains(junk), "{junk} came in: {}", out.text);
    }
}

#[test]
fn a_chosen_list_is_read_with_the_text_and_lists_around_it() {
    // A notice: two lines of intro, a long list of closings (mostly short
    // lines, a few long ones), two more labelled lists (short lines) and a
    // few links. The first list outscores the container, whose short lines
    // and links cost it more than its intro adds.
    let schools: String = (0..20)
        .map(|k| match k % 5 {
            0 => {
                format!("<li>Regional high school district {k}: out for the rest of the week</li>")
            }
            _ => format!("<li>Township {k}: out Thursday</li>"),
        })
        .collect();
    let colleges: String = (0..60)
        .map(|k| format!("<li>College number {k}</li>"))
        .collect();
    let links: String = (0..6)
        .map(|k| format!("<a href=\"/storm/{k}\">Storm coverage part {k}</a> | "))
        .collect();
    let html = format!(
        "<html><head><title>School closings this week</title></head><body><div id=\"article\"><h1>School closings this week</h1>\
         <div id=\"body\">School is out for most of the county's children for the rest of the week, after the storm took down power lines across the region.<br><br>\
         Here is a mostly complete list of the schools that stay closed until at least Monday, unless noted otherwise below.<br><br>Public schools<ul>{schools}</ul>\
         <b>Colleges</b><br><ul>{colleges}</ul>\
         <p><b>Board meetings</b></p><ul><li>The school board's Monday meeting has moved to the nineteenth</li></ul>\
         <b>More resources</b><div>{links}</div></div></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("Township 19: out Thursday"),
        "{}",
        out.text
    );
    assert!(out.text.contains("College number 59"), "{}", out.text);
    assert!(out.text.contains("moved to the nineteenth"), "{}", out.text);
}

#[test]
fn text_hidden_by_a_display_class_is_not_read_unless_a_wider_screen_shows_it() {
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"post\"><h1>Ferret sleep</h1>\
         <p><span class=\"d-none\">begin-marker</span>{PARA}<span class=\"d-none d-print-inline\">print-only</span></p>\
         <p class=\"d-none d-md-block\">On wider screens the page adds this sentence about hammocks and blankets.</p></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("eighteen hours"), "{}", out.text);
    assert!(!out.text.contains("begin-marker"), "{}", out.text);
    assert!(!out.text.contains("print-only"), "{}", out.text);
    assert!(out.text.contains("hammocks and blankets"), "{}", out.text);
}

#[test]
fn paragraphs_that_link_the_names_they_mention_are_prose() {
    // Two of the four paragraphs link most of the names in them (40% of
    // their text is links): they are still sentences of the article, not a
    // link list, so the article is read whole and not cut to the one
    // paragraph without links.
    let html = "<html><head><title>Ferret show opens in the capital</title></head><body>\
        <header><h2>Ferret show opens in the capital</h2><div class=\"byline\">By Staff • Nov 6</div></header>\
        <article><section>\
        <p>Fans of the ferret show: we have shown you the <a href=\"/a\">posters</a>, the <a href=\"/b\">secrets of the stage</a>, and some <a href=\"/c\">first-look interviews</a>.</p>\
        <p>Now we bring you the first photographs from the opening night, with the ferrets in their costumes running the maze while a full hall cheers them on to the finish.</p>\
        <p>The show, which runs until the end of the year, also stars the trainers <a href=\"/d\">Ann Holloway</a>, <a href=\"/e\">Russel Crane</a>, Amy Seyfert, <a href=\"/f\">Sasha Baron Cole</a>, <a href=\"/g\">Helen Bonham Cart</a>, Aaron Tevet and the award winner <a href=\"/h\">Eddie Redman</a>.</p>\
        <p>See the photographs below.</p>\
        </section></article></body></html>";
    let out = run(html);
    assert!(
        out.text.contains("we have shown you the posters"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("also stars the trainers Ann Holloway"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("See the photographs below."),
        "{}",
        out.text
    );
}

#[test]
fn a_link_list_under_the_post_does_not_cut_the_post_to_one_paragraph() {
    // The post's three paragraphs share their container with a long list
    // of tag links. A render leaves the list out, so its links do not count
    // against reading the post whole.
    let tags: String = (0..40)
        .map(|k| format!("<li><a href=\"/tags/{k}\">Ferret tag {k}</a></li>"))
        .collect();
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><article><h1>Ferret sleep</h1><div>\
         <p>{PARA} {PARA}</p>\
         <p>The keepers we spoke to agree that a dark, quiet corner and a soft hammock matter more than any toy, and that a ferret woken too often grows irritable.</p>\
         <p>In this episode the vet explains why young ferrets sleep even longer than adults, and what a sudden change in their sleep can tell an owner about their health.</p>\
         <p>Tags:</p><ul>{tags}</ul></div></article></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("a soft hammock matter more"),
        "{}",
        out.text
    );
    assert!(out.text.contains("what a sudden change"), "{}", out.text);
    assert!(!out.text.contains("Ferret tag"), "{}", out.text);
}

#[test]
fn an_author_box_under_the_post_is_not_the_article_however_its_name_is_joined() {
    // The same bio box under a two-paragraph post, named the ways themes
    // join words: hyphens, underscores, run together.
    let bio = "Jane Example is a chemist who works on medicines you have hopefully never heard of. She enjoys cooking to bluegrass music, walking her two ferrets along the canal, and writing about the history of laboratory glassware.";
    for name in [
        "about_the_author",
        "about-the-author",
        "author_box",
        "authorbox",
        "author_description",
        "author_bio",
    ] {
        let html = format!(
            "<html><head><title>Ferret sleep</title></head><body><div class=\"post\"><h1>Ferret sleep</h1><div class=\"entry\"><p>{PARA}</p><p>{PARA} They wake for meals.</p><div class=\"{name}\"><p>{bio}</p></div></div></div></body></html>"
        );
        let out = run(&html);
        assert!(
            out.text.contains("They wake for meals."),
            "{name}: {}",
            out.text
        );
        assert!(!out.text.contains("bluegrass"), "{name}: {}", out.text);
    }
}

#[test]
fn the_line_that_files_a_blog_post_is_not_part_of_it() {
    // Blog themes close a post with a line that files it, in the post's own
    // container: which categories, when, how to follow the replies.
    let filed = "This entry was posted on Saturday, August 25th, 2012 at 12:23 am and is filed under <a href=\"/c/pets\">Pets</a>, <a href=\"/c/sleep\">Sleep</a>. You can follow any responses to this entry through the feed. You can leave a response, or trackback from your own site.";
    for closing in [
        format!("<p class=\"postmetadata alt\"><small>{filed}</small></p>"),
        format!("<div class=\"entry-utility\">{filed}</div>"),
    ] {
        let html = format!(
            "<html><head><title>Ferret sleep</title></head><body><div class=\"post\"><h2>Ferret sleep</h2><div class=\"entry\"><p>{PARA}</p><p>{PARA} They wake for meals.</p>{closing}</div></div></body></html>"
        );
        let out = run(&html);
        assert!(out.text.contains("They wake for meals."), "{}", out.text);
        assert!(!out.text.contains("This entry was posted"), "{}", out.text);
    }
}

#[test]
fn a_list_the_article_announces_is_read_even_when_it_is_all_links() {
    // The post ends on a sentence that announces a list of linked titles
    // (each a headline-like link with its author): the list is the post's.
    // Under it, a related-stories list under its short label is not.
    let papers: String = (1..=7)
        .map(|k| format!("<li><a href=\"/papers/{k}\">Sleep patterns of the domestic ferret, study {k}</a> by Author {k}</li>"))
        .collect();
    let related: String = (1..=5)
        .map(|k| format!("<li><a href=\"/news/{k}\">Another ferret story from our newsroom, number {k}</a></li>"))
        .collect();
    let html = format!(
        "<html><head><title>Ferret sleep papers</title></head><body><div class=\"post\"><h1>Ferret sleep papers</h1><div class=\"entry\">\
         <p>{PARA}</p><p>{PARA} We are delighted to publish a collection of papers on the subject. The seven papers in this special issue of the journal are: </p>\
         <ul>{papers}</ul><p>More ferret stories from us:</p><ul>{related}</ul></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("study 1"), "{}", out.text);
    assert!(out.text.contains("study 7 by Author 7"), "{}", out.text);
    assert!(!out.text.contains("from our newsroom"), "{}", out.text);
}

/// A short article under `heading`, then the site's long footer notice in
/// the same section, on a page titled `title`.
fn short_article_over_a_legal_notice(title: &str, heading: &str) -> Extracted {
    let legal = "The site and its logo are registered trademarks of the league, and all marks depicted herein are the property of the league and may not be reproduced without the prior written consent of their owners. ".repeat(4);
    run(&format!(
        "<html><head><title>{title}</title></head><body><div id=\"page\"><div id=\"wide\"><div class=\"article\"><h1>{heading}</h1><p>{PARA}</p><p>{PARA}</p><p>{PARA} They wake for meals.</p></div></div><div class=\"footer\">{legal}</div></div></body></html>"
    ))
}

#[test]
fn a_legal_notice_longer_than_a_short_article_stays_chrome() {
    // The footer notice, in the headline's section after the article,
    // holds more prose than the three-paragraph article: it is still a
    // footer, not a page wrapper whose class mentions chrome.
    let out = short_article_over_a_legal_notice("Ferret sleep", "Ferret sleep");
    assert!(out.text.contains("They wake for meals."), "{}", out.text);
    assert!(!out.text.contains("registered trademarks"), "{}", out.text);
}

#[test]
fn a_headline_edited_between_the_title_and_the_page_is_still_the_headline() {
    // The title says "to sleep", the page's heading "sleep": the heading is
    // still the headline, so the footer notice after the short article is
    // still chrome (see the test above) and the heading is not in the text.
    let out = short_article_over_a_legal_notice(
        "Ferrets to sleep longer in winter, study finds - Pet News",
        "Ferrets sleep longer in winter, study finds",
    );
    assert!(out.text.contains("They wake for meals."), "{}", out.text);
    assert!(!out.text.contains("registered trademarks"), "{}", out.text);
    assert!(!out.text.contains("study finds"), "{}", out.text);
}

#[test]
fn a_short_post_with_replies_is_the_post_not_its_replies() {
    // A tutorial page says three short lines of its own, with no heading
    // that names it; the replies under it are much longer. The post is the
    // text: comments stand in only for a page with almost no text of its
    // own (a thread under a link).
    let html = format!(
        "<html><head><title>Alien surface</title></head><body><div class=\"wrapper\"><div class=\"main\">\
         <div class=\"desc\">In this tutorial:<br>• Build a surface from a matte painting<br>• Track the camera in 3D</div>\
         <div class=\"typical-header\">107 Responses to \"Alien surface\"</div><div id=\"comments_container\">{}</div></div></div></body></html>",
        comments(5)
    );
    let out = run(&html);
    assert!(out.text.contains("Track the camera in 3D"), "{}", out.text);
    assert!(!out.text.contains("Reader 0 says"), "{}", out.text);
}

#[test]
fn disclosures_and_opt_in_boxes_beside_the_article_are_chrome() {
    let disclosure = "This post may contain affiliate links, which means we may receive a commission if you click a link and purchase something that we have recommended. While clicking these links will not cost you any extra money, they help us keep this site up and running.";
    let opt_in = "Join thousands of ferret owners! Every week we send the best ferret care tips, product reviews and exclusive discounts straight to your inbox, and you can unsubscribe at any time with one click.";
    for (class, text) in [
        ("affiliate-disclosure", disclosure),
        ("post-disclaimer", disclosure),
        ("optin-box", opt_in),
        ("newsletter_opt-in", opt_in),
    ] {
        let html = format!(
            "<html><head><title>Best ferret hammocks</title></head><body><div class=\"post\"><h1>Best ferret hammocks</h1><div class=\"entry-content\"><div class=\"{class}\"><p>{text}</p></div><p>{PARA} Our pick is the fleece hammock.</p></div></div></body></html>"
        );
        let out = run(&html);
        assert!(out.text.contains("fleece hammock"), "{class}: {}", out.text);
        assert!(!out.text.contains(&text[..30]), "{class}: {}", out.text);
    }
}

#[test]
fn teaser_cards_whose_classes_differ_per_post_are_still_one_teaser_list() {
    // A strip of featured posts above the article: each card is a linked
    // headline and an excerpt, and each carries its own post id, category
    // and alternation classes, as blog themes write them.
    let cards: String = (1..=4)
        .map(|k| {
            let alt = if k % 2 == 0 { " alt" } else { "" };
            format!(
                "<div id=\"post-{k}\" class=\"hentry post post-{k} category-topic-{k}{alt} small-post\"><h2><a href=\"/featured/{k}\">Featured story number {k} about pets</a></h2>\
                 <p>Our readers have asked many questions about the care of small pets at home, and this featured story number {k} answers the most common ones about food, sleep, play and the vet, with advice from keepers who have looked after them for years and years…</p>\
                 <p><a href=\"/featured/{k}\">Continue reading</a></p></div>"
            )
        })
        .collect();
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div id=\"featured\">{cards}</div>\
         <div id=\"main\"><div class=\"article\"><h1>Ferret sleep</h1><p>{PARA}</p><p>{PARA} They wake for meals.</p></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("They wake for meals."), "{}", out.text);
    assert!(!out.text.contains("Our readers have asked"), "{}", out.text);
}

#[test]
fn a_threads_posts_that_repeat_one_title_are_not_teaser_cards() {
    // Each post of a forum thread opens with the same linked "Re: …" title
    // and is short, and the posts alternate their classes: they look like
    // teaser cards, but teasers link to different stories.
    let replies = [
        "My ferret has started sleeping twenty hours a day since we moved house. Is this normal, or should I take him to the vet this week?",
        "That sounds like stress from the move. Give him a week with his old bedding and keep the room quiet, and he should settle down again.",
        "Agreed, but if he stops eating or drinking, see a vet at once. Older ferrets can also sleep more because of a disease of the pancreas.",
        "Thanks everyone, he is back to normal after a few days with his hammock and his old blanket. The last reply in this thread.",
    ];
    let posts: String = replies
        .iter()
        .enumerate()
        .map(|(k, text)| {
            format!(
                "<div class=\"post bg{}\" id=\"p{k}\"><h3><a href=\"#p{k}\">Re: Sleeping all day after the move</a></h3><div class=\"content\">{text}</div></div>",
                k % 2 + 1
            )
        })
        .collect();
    let html = format!(
        "<html><head><title>Health board - Ferret Forum</title></head><body>\
         <div class=\"action-bar\"><a href=\"/reply\">Post Reply</a> 4 posts • Page 1 of 1</div><div id=\"posts\">{posts}</div>\
         <div class=\"post-actions\"><a href=\"/reply\">Reply</a> <a href=\"/quote\">Quote</a> Report this thread to the moderators</div>\
         <div id=\"rules\"><p>Board rules: be kind to other members, stay on topic and do not post advertisements; the moderators remove posts that break the rules and may ban repeat offenders.</p>\
         <p>New members: please introduce yourself in the welcome forum before you post questions in the health forum, and search the board first.</p></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("The last reply in this thread."),
        "{}",
        out.text
    );
    assert!(out.text.contains("Give him a week"), "{}", out.text);
    // The bars of buttons around the thread are chrome.
    assert!(!out.text.contains("Page 1 of 1"), "{}", out.text);
    assert!(!out.text.contains("Report this thread"), "{}", out.text);
}

#[test]
fn a_page_builder_that_calls_every_block_a_widget_does_not_make_it_chrome() {
    // A page builder wraps every block in a `…-widget-…` element: the
    // article's text widgets are the article, and the sidebar column's
    // bio stays out, as it would on any other page.
    let widget = |kind: &str, inner: &str| {
        format!(
            "<div class=\"elementor-element elementor-widget elementor-widget-{kind}\"><div class=\"elementor-widget-container\">{inner}</div></div>"
        )
    };
    let article = [
        widget("heading", "<h1>Ferret sleep</h1>"),
        widget("text-editor", &format!("<p>{PARA} First.</p>")),
        widget(
            "text-editor",
            &format!("<p>{PARA} Second.</p><p>{PARA} Third.</p>"),
        ),
        widget("text-editor", &format!("<p>{PARA} Fourth.</p>")),
    ]
    .concat();
    let bio = widget(
        "text-editor",
        "<p>Hi, I am Ann, a home cook who loves baking bread and sharing simple recipes with friends and family all over the world.</p>",
    );
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"elementor\"><div class=\"elementor-container\">\
         <div class=\"elementor-column elementor-col-66\">{article}</div><div class=\"elementor-column elementor-col-33 sidebar\">{bio}</div></div></div></body></html>"
    );
    let out = run(&html);
    assert!(
        out.text.contains("First.") && out.text.contains("Fourth."),
        "{}",
        out.text
    );
    assert!(!out.text.contains("home cook"), "{}", out.text);
}

#[test]
fn a_promo_inside_the_named_article_body_stays_chrome_however_long() {
    // The article body holds a short story and, after it, a long promo
    // slideshow: the named body is the article's wrapper, so the promo is
    // not one, however much of the page's text it holds.
    let slides: String = (1..=8)
        .map(|k| format!("<li><h4>Slide {k}: a claim about pets</h4><p>Slide {k} text: one of the many claims made about pets over the years, told at length with the history of where it came from, who made it and what the evidence really says about it today.</p></li>"))
        .collect();
    let html = format!(
        "<html><head><title>Ferret sleep</title></head><body><div class=\"entry\"><h1>Ferret sleep</h1>\
         <div itemprop=\"articleBody\"><p>{PARA}</p><p>{PARA} They wake for meals.</p>\
         <div class=\"promo_holder\"><ul class=\"slideshow\">{slides}</ul></div></div></div></body></html>"
    );
    let out = run(&html);
    assert!(out.text.contains("They wake for meals."), "{}", out.text);
    assert!(!out.text.contains("Slide 3 text"), "{}", out.text);
}
