//! Behaviour of `ferret_fetch::refs`: typed references of GitHub
//! threads from API JSON and page HTML.

use std::path::PathBuf;

use ferret_fetch::refs::{
    ApiThread, REFS_SCHEMA, RefType, Reference, RefsError, Relation, ThreadKind, ThreadRefs,
    parse_thread_url, refs_from_api, refs_from_html, refs_in_text,
};
use serde_json::{Value, json};
use url::Url;

fn shared_file(rel: &str) -> Option<String> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = dir.join(rel);
    if !path.is_file() {
        eprintln!("skipped: ../shared not present");
        return None;
    }
    Some(std::fs::read_to_string(path).expect("fixture readable"))
}

fn find<'a>(r: &'a ThreadRefs, kind: RefType, target: &str) -> &'a Reference {
    r.refs
        .iter()
        .find(|x| x.kind == kind && x.target == target)
        .unwrap_or_else(|| panic!("no {kind:?} {target} in {:#?}", r.refs))
}

fn has(r: &ThreadRefs, target: &str) -> bool {
    r.refs.iter().any(|x| x.target == target)
}

// --- real captures -------------------------------------------------------------

#[test]
fn octokit_comments_capture() {
    let Some(raw) =
        shared_file("fixtures/api/github-rest-issue-comments-octokit-rb-25-2016-10.json")
    else {
        return;
    };
    let thread = ApiThread::from_json(serde_json::from_str(&raw).unwrap()).unwrap();
    let r = refs_from_api(&thread, None).unwrap();
    assert_eq!(r.schema, REFS_SCHEMA);
    assert_eq!(r.repo, "octokit/octokit.rb");
    assert_eq!(r.number, 25);
    assert_eq!(
        r.kind,
        ThreadKind::Pr,
        "the comments' html_url says /pull/25"
    );
    assert_eq!(r.url, "https://github.com/octokit/octokit.rb/pull/25");
    assert_eq!(r.refs.len(), 1, "{:#?}", r.refs);
    let fork = &r.refs[0];
    assert_eq!(fork.kind, RefType::Url);
    assert_eq!(
        fork.target,
        "https://github.com/ctshryock/octokit/tree/25-issue-comments-v3"
    );
    assert_eq!(
        fork.anchor_text.as_deref(),
        Some("25-issue-comments-v3 fork")
    );
    assert_eq!(fork.source, "comment 1");
    assert!(
        fork.context.contains("I've started this on my"),
        "{}",
        fork.context
    );
    assert!(r.warnings.is_empty());
}

#[test]
fn defuddle_issue_page_capture() {
    let Some(html) = shared_file("fixtures/sites/github-issue-page-kepano-defuddle-56.html") else {
        return;
    };
    let r = refs_from_html(&html, None).unwrap();
    assert_eq!(r.url, "https://github.com/kepano/defuddle/issues/56");
    assert_eq!(
        (r.repo.as_str(), r.number, r.kind),
        ("kepano/defuddle", 56, ThreadKind::Issue)
    );

    let example = find(
        &r,
        RefType::Url,
        "https://github.com/jmorrell/defuddle-cloudflare-example",
    );
    assert_eq!(example.source, "body");
    assert!(example.context.starts_with("Example repo here:"));

    let linkedom = find(
        &r,
        RefType::Url,
        "https://github.com/WebReflection/linkedom",
    );
    assert_eq!(linkedom.anchor_text.as_deref(), Some("linkedom"));

    // The permalink embed links the commit the snippet is from.
    let commit = find(
        &r,
        RefType::Commit,
        "kepano/defuddle@cb4291db0f24cac0d0674d9e35fc0089338da2da",
    );
    assert_eq!(
        commit.url,
        "https://github.com/kepano/defuddle/commit/cb4291db0f24cac0d0674d9e35fc0089338da2da"
    );

    let worker = find(
        &r,
        RefType::Url,
        "https://developers.cloudflare.com/browser-rendering/",
    );
    assert_eq!(worker.source, "comment 1");
    assert_eq!(
        worker.anchor_text.as_deref(),
        Some("browser rendering worker")
    );

    let fork = find(&r, RefType::Url, "https://github.com/nbbaier/linkedom");
    assert_eq!(fork.anchor_text.as_deref(), Some("here"));
    assert_eq!(fork.source, "comment 4");
    assert!(has(&r, "https://jsr.io/@paoramen/cheer-reader"));

    // User mentions (@kepano, @jmorrell, @masylum) are not references.
    assert!(
        !r.refs
            .iter()
            .any(|x| x.target == "https://github.com/kepano")
    );
    assert!(!r.refs.iter().any(|x| x.target.contains("/masylum")));
    assert_eq!(r.refs.len(), 9, "{:#?}", r.refs);
}

#[test]
fn html_page_with_an_explicit_url_must_be_a_thread() {
    let url = Url::parse("https://github.com/kepano/defuddle").unwrap();
    assert_eq!(
        refs_from_html("<html></html>", Some(&url)),
        Err(RefsError::NotAThread(
            "https://github.com/kepano/defuddle".into()
        ))
    );
    assert_eq!(
        refs_from_html("<p>no canonical</p>", None),
        Err(RefsError::UnknownThread)
    );
}

// --- crafted API thread with every kind ---------------------------------------

/// A pull request in the API's shapes: the issue object of a PR, comments
/// and timeline events.
fn crafted_pr() -> ApiThread {
    let issue = json!({
        "url": "https://api.github.com/repos/acme/widgets/issues/42",
        "html_url": "https://github.com/acme/widgets/pull/42",
        "number": 42,
        "title": "Fix cache expiry",
        "pull_request": {"url": "https://api.github.com/repos/acme/widgets/pulls/42",
                         "html_url": "https://github.com/acme/widgets/pull/42"},
        "body": "Fixes #12, #13 and #14.\r\n\r\nRelated to acme/gadgets#7. See also https://github.com/acme/widgets/pull/77 for the first attempt.\r\n\r\nThe regression came in a1b2c3d (see the [design doc](https://docs.acme.dev/cache#expiry)).\r\n\r\nThis PR is #42 itself.\r\n\r\n```\r\n// not a reference: #99 and deadbee1234\r\n```\r\nInline `#98` is code too."
    });
    let comments = json!([
        {
            "id": 1001,
            "html_url": "https://github.com/acme/widgets/pull/42#issuecomment-1001",
            "issue_url": "https://api.github.com/repos/acme/widgets/issues/42",
            "user": {"login": "octocat"},
            "body": "Duplicate of #8\n\n@octocat the colour #ff0000 and #a1b2c3d are not refs, nor is 1234567 or 20240105."
        },
        {
            "id": 1002,
            "html_url": "https://github.com/acme/widgets/pull/42#issuecomment-1002",
            "body": "Closing as duplicate of acme/widgets#8. Also GH-21 and acme/gadgets@0123abcd4567 matter; the old commit 1234567 too. Fixes #55 here is only related."
        },
        {
            "id": 1003,
            "html_url": "https://github.com/acme/widgets/pull/42#issuecomment-1003",
            "body": "Docs: <https://docs.acme.dev/cache#expiry> and [the forum](https://github.com/acme/widgets/discussions/3). Again #13."
        }
    ]);
    let timeline = json!([
        {"event": "commented", "id": 1001, "body": "Duplicate of #8"},
        {"event": "cross-referenced", "created_at": "2024-01-02T00:00:00Z",
         "source": {"type": "issue", "issue": {
            "number": 90, "title": "Cache keeps stale entries",
            "html_url": "https://github.com/acme/other/issues/90",
            "repository": {"full_name": "acme/other"}}}},
        {"event": "cross-referenced", "created_at": "2024-01-03T00:00:00Z",
         "source": {"type": "issue", "issue": {
            "number": 14, "title": "Follow-up cleanup",
            "html_url": "https://github.com/acme/widgets/issues/14",
            "pull_request": {"url": "https://api.github.com/repos/acme/widgets/pulls/14"}}}},
        {"event": "referenced", "commit_id": "f00dfeed1234567890abcdef1234567890abcdef",
         "commit_url": "https://api.github.com/repos/acme/widgets/commits/f00dfeed1234567890abcdef1234567890abcdef"},
        {"event": "committed", "sha": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
         "html_url": "https://github.com/acme/widgets/commit/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
         "message": "Fix cache expiry\n\nLonger text."},
        {"event": "labeled", "label": {"name": "bug"}},
        {"event": "cross-referenced", "source": {"type": "issue"}}
    ]);
    ApiThread {
        issue: Some(issue),
        comments: comments.as_array().unwrap().clone(),
        timeline: timeline.as_array().unwrap().clone(),
    }
}

#[test]
fn closing_keywords_in_a_pr_body_name_the_issues_it_closes() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    assert_eq!(r.kind, ThreadKind::Pr);
    for n in ["acme/widgets#12", "acme/widgets#13"] {
        let x = find(&r, RefType::Issue, n);
        assert_eq!(x.relation, Relation::Closes, "{n}");
        assert_eq!(x.source, "body");
    }
    // #14 is closed by this PR even though the timeline says it is a PR.
    let fourteen = find(&r, RefType::Issue, "acme/widgets#14");
    assert_eq!(fourteen.relation, Relation::Closes);
    assert!(
        fourteen.context.contains("Fixes #12, #13 and #14"),
        "{}",
        fourteen.context
    );
}

#[test]
fn related_and_duplicate_markers() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    let related = find(&r, RefType::Related, "acme/gadgets#7");
    assert_eq!(related.url, "https://github.com/acme/gadgets/issues/7");
    let dup = find(&r, RefType::Duplicate, "acme/widgets#8");
    assert_eq!(dup.relation, Relation::DuplicateOf);
    assert_eq!(
        dup.occurrences, 2,
        "\"Duplicate of #8\" and \"Closing as duplicate of acme/widgets#8\""
    );
    assert_eq!(dup.sources, vec!["comment 1", "comment 2"]);
    // "Fixes" outside the PR body only relates.
    let fifty_five = find(&r, RefType::Related, "acme/widgets#55");
    assert_eq!(fifty_five.source, "comment 2");
}

#[test]
fn pull_request_urls_and_timeline_cross_references() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    let pr = find(&r, RefType::Related, "acme/widgets#77");
    assert_eq!(pr.url, "https://github.com/acme/widgets/pull/77");
    let cross = find(&r, RefType::Issue, "acme/other#90");
    assert_eq!(cross.relation, Relation::CrossReference);
    assert_eq!(cross.source, "timeline");
    assert!(cross.context.contains("Cache keeps stale entries"));
    // The timeline says #14 is a pull request: a cross-reference from a PR.
    let cross_pr = find(&r, RefType::Pr, "acme/widgets#14");
    assert_eq!(cross_pr.url, "https://github.com/acme/widgets/pull/14");
    assert_eq!(cross_pr.relation, Relation::CrossReference);
    assert!(
        r.warnings.iter().any(|w| w.contains("cross-referenced")),
        "the event without source.issue is reported: {:?}",
        r.warnings
    );
}

#[test]
fn commits_from_text_links_and_timeline() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    // "a1b2c3d" in the body and the full SHA of the committed event merge.
    let c = find(
        &r,
        RefType::Commit,
        "acme/widgets@a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    );
    assert_eq!(c.occurrences, 2);
    assert_eq!(c.sources, vec!["body", "timeline"]);
    assert!(c.context.contains("The regression came in a1b2c3d"));
    let cross_repo = find(&r, RefType::Commit, "acme/gadgets@0123abcd4567");
    assert_eq!(
        cross_repo.url,
        "https://github.com/acme/gadgets/commit/0123abcd4567"
    );
    let referenced = find(
        &r,
        RefType::Commit,
        "acme/widgets@f00dfeed1234567890abcdef1234567890abcdef",
    );
    assert_eq!(referenced.relation, Relation::CommitEvent);
    // "the old commit 1234567": all digits, but named a commit.
    assert!(has(&r, "acme/widgets@1234567"));
}

#[test]
fn false_positives_are_not_references() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    for not_a_ref in [
        "acme/widgets#99",
        "acme/widgets#98",
        "acme/widgets@deadbee1234",
        "acme/widgets@ff0000",
        "acme/widgets@a1b2c3d4",
        "acme/widgets@20240105",
        "acme/widgets#42",
    ] {
        assert!(!has(&r, not_a_ref), "{not_a_ref} found in {:#?}", r.refs);
    }
    // "1234567" in comment 1 has no commit context: only comment 2's counts.
    let c = find(&r, RefType::Commit, "acme/widgets@1234567");
    assert_eq!(c.sources, vec!["comment 2"]);
}

#[test]
fn urls_discussions_and_gh_numbers() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    let doc = find(&r, RefType::Url, "https://docs.acme.dev/cache#expiry");
    assert_eq!(doc.anchor_text.as_deref(), Some("design doc"));
    assert_eq!(doc.occurrences, 2, "the Markdown link and the <autolink>");
    let forum = find(&r, RefType::Discussion, "acme/widgets#3");
    assert_eq!(forum.url, "https://github.com/acme/widgets/discussions/3");
    assert_eq!(forum.anchor_text.as_deref(), Some("the forum"));
    assert!(has(&r, "acme/widgets#21"), "GH-21");
}

#[test]
fn mentions_count_every_occurrence() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    // #13 closes (body) and is mentioned again in comment 3: one reference.
    let thirteen: Vec<&Reference> = r
        .refs
        .iter()
        .filter(|x| x.target == "acme/widgets#13")
        .collect();
    assert_eq!(thirteen.len(), 1, "{thirteen:#?}");
    assert_eq!(thirteen[0].occurrences, 2);
    assert_eq!(thirteen[0].sources, vec!["body", "comment 3"]);
    assert_eq!(
        thirteen[0].relation,
        Relation::Closes,
        "the strongest relation is kept"
    );
    // The timeline's copy of comment 1 is not counted twice.
    assert_eq!(
        find(&r, RefType::Duplicate, "acme/widgets#8").occurrences,
        2
    );
}

#[test]
fn envelope_shape() {
    let r = refs_from_api(&crafted_pr(), None).unwrap();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["schema"], "ferret.refs.v1");
    assert_eq!(v["url"], "https://github.com/acme/widgets/pull/42");
    assert_eq!(v["repo"], "acme/widgets");
    assert_eq!(v["number"], 42);
    let first = &v["refs"][0];
    for key in [
        "type",
        "target",
        "url",
        "context",
        "source",
        "relation",
        "occurrences",
        "sources",
    ] {
        assert!(first.get(key).is_some(), "ref has {key}");
    }
    for r in &r.refs {
        assert!(r.context.chars().count() <= 2 * 40 + 200, "{}", r.context);
        assert!(r.occurrences >= r.sources.len());
    }
    let back: ThreadRefs = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
}

// --- inputs and identity -----------------------------------------------------

#[test]
fn api_thread_accepts_the_three_shapes() {
    let issue_only = ApiThread::from_json(
        json!({"html_url": "https://github.com/a/b/issues/1", "body": "see #2"}),
    )
    .unwrap();
    let r = refs_from_api(&issue_only, None).unwrap();
    assert_eq!(r.kind, ThreadKind::Issue);
    assert_eq!(find(&r, RefType::Related, "a/b#2").source, "body");

    let combined = ApiThread::from_json(json!({
        "issue": {"html_url": "https://github.com/a/b/issues/1", "body": ""},
        "comments": [{"body": "dupe of #3"}],
        "timeline": []
    }))
    .unwrap();
    let r = refs_from_api(&combined, None).unwrap();
    assert_eq!(find(&r, RefType::Duplicate, "a/b#3").source, "comment 1");

    assert!(matches!(
        ApiThread::from_json(json!("nope")),
        Err(RefsError::Shape(_))
    ));
    assert!(matches!(
        ApiThread::from_json(json!({"comments": "x", "timeline": 3})),
        Err(RefsError::Shape(_))
    ));
}

#[test]
fn thread_identity_comes_from_the_url_first() {
    let thread = ApiThread {
        issue: None,
        comments: vec![json!({"body": "see #5"})],
        timeline: Vec::new(),
    };
    assert_eq!(refs_from_api(&thread, None), Err(RefsError::UnknownThread));
    let r = refs_from_api(&thread, Some("https://github.com/x/y/issues/4")).unwrap();
    assert_eq!(r.repo, "x/y");
    assert!(has(&r, "x/y#5"));
    assert!(matches!(
        refs_from_api(&thread, Some("https://example.com/x")),
        Err(RefsError::NotAThread(_))
    ));
}

#[test]
fn comments_without_body_are_reported() {
    let thread = ApiThread {
        issue: Some(json!({"html_url": "https://github.com/a/b/issues/1", "body": null})),
        comments: vec![json!({"id": 5}), json!({"body": "ok"})],
        timeline: Vec::new(),
    };
    let r = refs_from_api(&thread, None).unwrap();
    assert_eq!(r.warnings, vec!["comment 1 has no body and was skipped"]);
}

#[test]
fn thread_urls_and_api_addresses() {
    let t = parse_thread_url("https://github.com/rust-lang/rust/pull/12345/files").unwrap();
    assert_eq!(t.kind, ThreadKind::Pr);
    let api = t.api_urls();
    assert_eq!(
        api.issue,
        "https://api.github.com/repos/rust-lang/rust/issues/12345"
    );
    assert_eq!(
        api.comments,
        "https://api.github.com/repos/rust-lang/rust/issues/12345/comments?per_page=100"
    );
    assert_eq!(
        api.timeline,
        "https://api.github.com/repos/rust-lang/rust/issues/12345/timeline?per_page=100"
    );
    assert!(parse_thread_url("https://github.com/rust-lang/rust").is_none());
    assert!(parse_thread_url("not a url").is_none());
}

// --- HTML ------------------------------------------------------------------------

#[test]
fn crafted_issue_page_html() {
    let html = r##"<html><head>
<link rel="canonical" href="https://github.com/acme/widgets/issues/5">
</head><body>
<div class="js-discussion">
 <div class="TimelineItem"><div class="comment-body markdown-body">
   <p>Crash on start. Duplicate of <a class="issue-link js-issue-link" href="https://github.com/acme/widgets/issues/3">#3</a>.</p>
   <p>Introduced by <a class="commit-link" href="https://github.com/acme/widgets/commit/9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"><tt>9f8e7d6</tt></a>; see <a href="https://status.acme.dev/incidents/12">the incident</a>.</p>
   <pre><code>at #77 in main.rs, sha deadbeef12</code></pre>
   <p>Thanks <a class="user-mention" href="https://github.com/octocat">@octocat</a></p>
 </div></div>
 <div class="TimelineItem"><div class="comment-body markdown-body"><p>Related to #4, and rust-lang/rust#1.</p></div></div>
 <div class="TimelineItem">
   <span>mentioned this issue</span>
   <a class="Link--primary" href="/acme/widgets/pull/9">Handle empty config #9</a>
 </div>
</div>
</body></html>"##;
    let r = refs_from_html(html, None).unwrap();
    assert_eq!((r.repo.as_str(), r.number), ("acme/widgets", 5));
    let dup = find(&r, RefType::Duplicate, "acme/widgets#3");
    assert_eq!(dup.source, "body");
    assert!(
        dup.context.contains("Crash on start. Duplicate of #3"),
        "{}",
        dup.context
    );
    let commit = find(
        &r,
        RefType::Commit,
        "acme/widgets@9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
    );
    assert_eq!(commit.anchor_text.as_deref(), Some("9f8e7d6"));
    let incident = find(&r, RefType::Url, "https://status.acme.dev/incidents/12");
    assert_eq!(incident.anchor_text.as_deref(), Some("the incident"));
    assert_eq!(
        find(&r, RefType::Related, "acme/widgets#4").source,
        "comment 1"
    );
    assert_eq!(
        find(&r, RefType::Related, "rust-lang/rust#1").source,
        "comment 1"
    );
    let pr = find(&r, RefType::Pr, "acme/widgets#9");
    assert_eq!(pr.source, "timeline");
    assert_eq!(pr.relation, Relation::CrossReference);
    assert!(!has(&r, "acme/widgets#77"), "code is not scanned");
    assert!(!r.refs.iter().any(|x| x.target.contains("octocat")));
}

#[test]
fn plain_text_refs_need_a_repo_for_short_forms() {
    let text = "See tokio-rs/tokio#3 and #12 at https://tokio.rs/blog. Commit abc1234f9.";
    let refs = refs_in_text(text, None, "page");
    let targets: Vec<&str> = refs.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(
        targets,
        vec!["tokio-rs/tokio#3", "https://tokio.rs/blog", "abc1234f9"]
    );
    assert_eq!(refs[0].kind, RefType::Related, "\"See\" marks it related");
    assert_eq!(refs[2].kind, RefType::Commit);
    assert_eq!(refs[2].url, "", "no repo, no commit URL");
    let t = parse_thread_url("https://github.com/o/r/issues/1").unwrap();
    let with_repo = refs_in_text(text, Some(&t), "page");
    assert!(with_repo.iter().any(|r| r.target == "o/r#12"));
}

#[test]
fn wikipedia_style_urls_keep_their_parentheses() {
    let refs = refs_in_text(
        "(see https://en.wikipedia.org/wiki/Rust_(programming_language)).",
        None,
        "page",
    );
    assert_eq!(refs.len(), 1);
    assert_eq!(
        refs[0].target,
        "https://en.wikipedia.org/wiki/Rust_(programming_language)"
    );
    let _: Value = serde_json::to_value(&refs).unwrap();
}
