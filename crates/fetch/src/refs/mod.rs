//! Thread references: what a GitHub issue or pull request points at, so a
//! research run can follow a thread to its duplicates, fixes and commits.
//!
//! From the REST API's JSON ([`refs_from_api`]: the issue, its comments and
//! its timeline) or from the issue page's HTML ([`refs_from_html`]), every
//! reference is found and typed:
//!
//! | type | from |
//! |---|---|
//! | `issue` / `pr` | `#123` (resolved against the thread's repository), `owner/repo#123`, `GH-123`, issue and pull request URLs, timeline `cross-referenced` events; `pr` when the source says so (a `/pull/` URL, a timeline event on a pull request), else `issue`. "Fixes/closes/resolves #N" in a pull request's body is the `issue` it closes (`relation: closes`). |
//! | `duplicate` | "Duplicate of #123", "dupe of", "closed as duplicate of", "marked as duplicate of", "same as" |
//! | `related` | "related to", "see also", "see", "refs", "relates to", "part of", "follow-up to", "blocked by", "depends on" — and "fixes #N" outside a pull request's body |
//! | `discussion` | discussion URLs |
//! | `commit` | commit URLs, `owner/repo@sha`, bare SHAs (7–40 hex digits with letters and at least two digits, or any hex after "commit"/"sha"/"revision"), timeline `referenced`/`closed`/`committed` events |
//! | `url` | every other http(s) link, with its anchor text when it has one |
//!
//! Code (fenced blocks, inline code, `<code>`/`<pre>`) is not scanned, nor
//! are user mentions. References to the thread itself are left out. Each
//! reference keeps ±40 characters of context from its first occurrence and
//! counts all of them ([`Reference::occurrences`], [`Reference::sources`]).
//! [`refs_in_text`] scans any other text. Envelope: `ferret.refs.v1`.

mod fetch;
mod github;
mod html;
mod scan;

pub use fetch::{FetchRefsError, fetch_refs};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use github::{LinkKind, Target, classify};
pub use github::{ThreadApiUrls, ThreadId, ThreadKind, parse_thread_url};
use scan::{Found, Hit, Scope};

/// The envelope's `schema` value.
pub const REFS_SCHEMA: &str = "ferret.refs.v1";
/// Characters of context kept on each side of a reference.
pub const CONTEXT_CHARS: usize = 40;

/// The kind of a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefType {
    /// An issue (or a thread whose kind is unknown).
    Issue,
    /// A pull request.
    Pr,
    /// A GitHub discussion.
    Discussion,
    /// A commit.
    Commit,
    /// The issue this thread duplicates.
    Duplicate,
    /// An issue or pull request named as related.
    Related,
    /// Any other link.
    Url,
}

/// How the thread refers to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// A plain mention or link.
    Mention,
    /// "Fixes #N" in a pull request's body: merging closes the target.
    Closes,
    /// "Duplicate of #N".
    DuplicateOf,
    /// "Related to #N", "see also", "refs".
    Related,
    /// A timeline `cross-referenced` event: the target mentions this thread.
    CrossReference,
    /// A timeline commit event (`referenced`, `closed`, `committed`).
    CommitEvent,
}

impl Relation {
    fn strength(self) -> u8 {
        match self {
            Relation::Mention => 0,
            Relation::Related => 1,
            Relation::CommitEvent => 2,
            Relation::CrossReference => 3,
            Relation::Closes => 4,
            Relation::DuplicateOf => 5,
        }
    }
}

/// One reference, deduplicated by type and target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// What it is.
    #[serde(rename = "type")]
    pub kind: RefType,
    /// `owner/repo#123`, `owner/repo@sha` (or the bare SHA when the repo is
    /// unknown), or the URL.
    pub target: String,
    /// Where it lives on the web.
    pub url: String,
    /// About 40 characters on each side of the first occurrence.
    pub context: String,
    /// Where the first occurrence is: `body`, `comment N` (1-based) or
    /// `timeline`.
    pub source: String,
    /// The strongest relation among the occurrences.
    pub relation: Relation,
    /// The link's text, when it had one that differs from the URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_text: Option<String>,
    /// How many times it occurs.
    pub occurrences: usize,
    /// Every place it occurs, in order, without repeats.
    pub sources: Vec<String>,
}

/// The `ferret.refs.v1` envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadRefs {
    /// Always [`REFS_SCHEMA`].
    pub schema: String,
    /// The thread's web address.
    pub url: String,
    /// `owner/repo`.
    pub repo: String,
    /// Issue or pull request number.
    pub number: u64,
    /// Issue or pull request.
    pub kind: ThreadKind,
    /// References in order of first occurrence (body, comments, timeline).
    pub refs: Vec<Reference>,
    /// Parts of the input that were skipped, and why.
    pub warnings: Vec<String>,
}

/// The input could not be read as a thread.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefsError {
    /// The address is not an issue or pull request.
    #[error(
        "{0} is not a GitHub issue or pull request address; expected https://github.com/OWNER/REPO/issues/N or .../pull/N"
    )]
    NotAThread(String),
    /// Nothing in the input says which thread it is.
    #[error(
        "cannot tell which issue or pull request this is: the input has no html_url/issue_url, canonical link or og:url; pass the thread's URL"
    )]
    UnknownThread,
    /// The JSON does not have the API's shape.
    #[error("{0}")]
    Shape(String),
}

/// A thread as the REST API returns it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiThread {
    /// `GET /repos/{o}/{r}/issues/{n}` (optional when the comments or the
    /// URL say which thread it is).
    #[serde(default)]
    pub issue: Option<Value>,
    /// `GET …/comments`, all pages concatenated.
    #[serde(default)]
    pub comments: Vec<Value>,
    /// `GET …/timeline`, all pages concatenated.
    #[serde(default)]
    pub timeline: Vec<Value>,
}

impl ApiThread {
    /// Reads `{"issue": …, "comments": […], "timeline": […]}`, a bare array
    /// of comments, or a bare issue object.
    pub fn from_json(v: Value) -> Result<Self, RefsError> {
        match v {
            Value::Array(comments) => Ok(ApiThread {
                issue: None,
                comments,
                timeline: Vec::new(),
            }),
            Value::Object(ref o)
                if o.contains_key("comments") && o.get("comments").is_some_and(Value::is_array)
                    || o.contains_key("timeline") =>
            {
                serde_json::from_value(v).map_err(|e| {
                    RefsError::Shape(format!(
                        "expected {{\"issue\": {{…}}, \"comments\": […], \"timeline\": […]}}: {e}"
                    ))
                })
            }
            Value::Object(_) => Ok(ApiThread {
                issue: Some(v),
                comments: Vec::new(),
                timeline: Vec::new(),
            }),
            other => Err(RefsError::Shape(format!(
                "expected a GitHub issue object, an array of comments or {{\"issue\", \"comments\", \"timeline\"}}; got {}",
                match other {
                    Value::Null => "null",
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    _ => "a string",
                }
            ))),
        }
    }
}

/// References of a thread from its API JSON. `url` names the thread when
/// the JSON does not (only comments were fetched, say); when both are
/// present, `url` wins.
pub fn refs_from_api(thread: &ApiThread, url: Option<&str>) -> Result<ThreadRefs, RefsError> {
    let mut reader = ApiReader::new(thread_from_api(thread, url)?);
    if let Some(issue) = &thread.issue {
        reader.issue(issue);
    }
    reader.comments(&thread.comments);
    for ev in &thread.timeline {
        reader.event(ev);
    }
    Ok(reader
        .acc
        .finish(reader.id, reader.timeline_pr, reader.warnings))
}

/// Reads a thread's API JSON into references: the issue, its comments,
/// then its timeline events.
struct ApiReader {
    id: ThreadId,
    acc: Accumulator,
    warnings: Vec<String>,
    /// Pull requests the timeline names (issue mentions of them become `pr`).
    timeline_pr: Vec<(String, String, u64)>,
    /// Ids of the comments read, so the timeline's copies are skipped.
    comment_ids: Vec<u64>,
    /// Comments read so far: the next one is `comment {comments_read + 1}`.
    comments_read: usize,
}

impl ApiReader {
    fn new(id: ThreadId) -> Self {
        ApiReader {
            id,
            acc: Accumulator::default(),
            warnings: Vec::new(),
            timeline_pr: Vec::new(),
            comment_ids: Vec::new(),
            comments_read: 0,
        }
    }

    /// The issue object: whether the thread is a pull request, and its body
    /// (where a pull request's "fixes #N" closes the issue).
    fn issue(&mut self, issue: &Value) {
        if issue.get("pull_request").is_some_and(|p| !p.is_null()) {
            self.id.kind = ThreadKind::Pr;
        }
        if let Some(body) = issue.get("body").and_then(Value::as_str) {
            let scope = Scope {
                thread: Some(&self.id),
                closing_keywords_close: self.id.kind == ThreadKind::Pr,
            };
            self.acc
                .add_text(body, &scan::scan_markdown(body, &scope), "body", &self.id);
        }
    }

    /// The comments array; a comment without a body is skipped with a warning.
    fn comments(&mut self, comments: &[Value]) {
        for (i, c) in comments.iter().enumerate() {
            let Some(body) = c.get("body").and_then(Value::as_str) else {
                self.warnings
                    .push(format!("comment {} has no body and was skipped", i + 1));
                continue;
            };
            if let Some(cid) = c.get("id").and_then(Value::as_u64) {
                self.comment_ids.push(cid);
            }
            self.comment(body);
        }
    }

    /// One more comment's body, as source `comment N`.
    fn comment(&mut self, body: &str) {
        self.comments_read += 1;
        let scope = Scope {
            thread: Some(&self.id),
            closing_keywords_close: false,
        };
        let source = format!("comment {}", self.comments_read);
        self.acc
            .add_text(body, &scan::scan_markdown(body, &scope), &source, &self.id);
    }

    /// One timeline event; kinds that carry no reference are ignored.
    fn event(&mut self, ev: &Value) {
        let event = ev.get("event").and_then(Value::as_str).unwrap_or("");
        match event {
            "commented" => self.timeline_comment(ev),
            "cross-referenced" => self.cross_referenced(ev),
            "referenced" | "closed" | "merged" => self.commit_event(ev, event),
            "committed" => self.committed(ev),
            "marked_as_duplicate" => self.marked_duplicate(ev),
            _ => {}
        }
    }

    /// A `commented` event: the timeline repeats the comments; only new
    /// ones count.
    fn timeline_comment(&mut self, ev: &Value) {
        if ev
            .get("id")
            .and_then(Value::as_u64)
            .is_some_and(|cid| self.comment_ids.contains(&cid))
        {
            return;
        }
        if let Some(body) = ev.get("body").and_then(Value::as_str) {
            self.comment(body);
        }
    }

    /// A `cross-referenced` event: the issue or pull request that mentions
    /// this thread.
    fn cross_referenced(&mut self, ev: &Value) {
        let Some(src) = ev.get("source").and_then(|s| s.get("issue")) else {
            self.warnings
                .push("a cross-referenced event without source.issue was skipped".to_owned());
            return;
        };
        let Some((owner, repo, number, is_pr, title)) = cross_reference(src) else {
            self.warnings
                .push("a cross-referenced event without a usable html_url was skipped".to_owned());
            return;
        };
        if is_pr {
            self.timeline_pr.push((owner.clone(), repo.clone(), number));
        }
        let what = if is_pr { "pull request" } else { "issue" };
        let context = format!("referenced from {what} {owner}/{repo}#{number}: {title}");
        let found = Found::Thread {
            owner,
            repo,
            number,
            kind: Some(if is_pr { LinkKind::Pr } else { LinkKind::Issue }),
        };
        self.acc.add(
            found,
            Relation::CrossReference,
            None,
            clip(&context),
            "timeline",
            &self.id,
        );
    }

    /// A `referenced`, `closed` or `merged` event naming a commit, in the
    /// repository its `commit_url` says (this thread's by default).
    fn commit_event(&mut self, ev: &Value, event: &str) {
        let Some(sha) = ev.get("commit_id").and_then(Value::as_str) else {
            return;
        };
        let (owner, repo) = ev
            .get("commit_url")
            .and_then(Value::as_str)
            .and_then(classify)
            .and_then(|t| match t {
                Target::Commit { owner, repo, .. } => Some((owner, repo)),
                _ => None,
            })
            .unwrap_or_else(|| (self.id.owner.clone(), self.id.repo.clone()));
        let context = match event {
            "closed" => "closed this in a commit".to_owned(),
            "merged" => "merged this in a commit".to_owned(),
            _ => "referenced this in a commit".to_owned(),
        };
        let found = Found::Commit {
            owner,
            repo,
            sha: sha.to_ascii_lowercase(),
        };
        self.acc.add(
            found,
            Relation::CommitEvent,
            None,
            context,
            "timeline",
            &self.id,
        );
    }

    /// A `committed` event (a pull request's commit), with its message's
    /// first line as context.
    fn committed(&mut self, ev: &Value) {
        let Some(sha) = ev.get("sha").and_then(Value::as_str) else {
            return;
        };
        let message = ev.get("message").and_then(Value::as_str).unwrap_or("");
        let found = Found::Commit {
            owner: self.id.owner.clone(),
            repo: self.id.repo.clone(),
            sha: sha.to_ascii_lowercase(),
        };
        let first_line = message.lines().next().unwrap_or("");
        self.acc.add(
            found,
            Relation::CommitEvent,
            None,
            clip(first_line),
            "timeline",
            &self.id,
        );
    }

    /// A `marked_as_duplicate` event. The REST payload does not always name
    /// the original; it is used when it does.
    fn marked_duplicate(&mut self, ev: &Value) {
        let canonical = ["canonical", "duplicate_of", "issue"].iter().find_map(|k| {
            ev.get(*k)
                .and_then(|v| v.get("html_url"))
                .and_then(Value::as_str)
        });
        let Some(Target::Thread {
            owner,
            repo,
            number,
            kind,
        }) = canonical.and_then(classify)
        else {
            return;
        };
        let found = Found::Thread {
            owner,
            repo,
            number,
            kind: Some(kind),
        };
        self.acc.add(
            found,
            Relation::DuplicateOf,
            None,
            "marked this as a duplicate".to_owned(),
            "timeline",
            &self.id,
        );
    }
}

/// References of a thread from its page's HTML. `url` is the page's
/// address; without it the canonical link (or `og:url`) says which thread
/// it is.
pub fn refs_from_html(html: &str, url: Option<&Url>) -> Result<ThreadRefs, RefsError> {
    let page = html::read_page(html, url);
    let id = match url {
        Some(u) => {
            parse_thread_url(u.as_str()).ok_or_else(|| RefsError::NotAThread(u.to_string()))?
        }
        None => page
            .canonical
            .as_deref()
            .and_then(parse_thread_url)
            .ok_or(RefsError::UnknownThread)?,
    };
    let mut acc = Accumulator::default();
    let mut warnings = Vec::new();
    warnings.extend(page.cuts.iter().cloned());
    if page.sections.is_empty() {
        warnings.push(
            "no comment bodies (.markdown-body) found on the page; it may be a login wall or a changed layout"
                .to_owned(),
        );
    }
    for (i, s) in page.sections.iter().enumerate() {
        let source = if i == 0 {
            "body".to_owned()
        } else {
            format!("comment {i}")
        };
        let scope = Scope {
            thread: Some(&id),
            closing_keywords_close: i == 0 && id.kind == ThreadKind::Pr,
        };
        let hits = scan::scan(&s.text, &s.code, &s.links, &scope);
        acc.add_text(&s.text, &hits, &source, &id);
    }
    let mut timeline_pr = Vec::new();
    for l in &page.timeline_links {
        let Some(target) = classify(&l.href) else {
            continue;
        };
        let found = match target {
            Target::Thread {
                owner,
                repo,
                number,
                kind,
            } => {
                if kind == LinkKind::Pr {
                    timeline_pr.push((owner.clone(), repo.clone(), number));
                }
                Found::Thread {
                    owner,
                    repo,
                    number,
                    kind: Some(kind),
                }
            }
            Target::Commit { owner, repo, sha } => Found::Commit { owner, repo, sha },
            Target::Other => continue,
        };
        let relation = if matches!(found, Found::Commit { .. }) {
            Relation::CommitEvent
        } else {
            Relation::CrossReference
        };
        acc.add(found, relation, None, clip(&l.text), "timeline", &id);
    }
    Ok(acc.finish(id, timeline_pr, warnings))
}

/// References in any text (a page, a README): links and bare URLs always;
/// `#123` and bare SHAs only when `thread` gives the repository. Results
/// are deduplicated like a thread's, with `source` as given.
pub fn refs_in_text(text: &str, thread: Option<&ThreadId>, source: &str) -> Vec<Reference> {
    let scope = Scope {
        thread,
        closing_keywords_close: false,
    };
    let hits = scan::scan_markdown(text, &scope);
    let mut acc = Accumulator::default();
    let placeholder = ThreadId {
        owner: String::new(),
        repo: String::new(),
        number: 0,
        kind: ThreadKind::Issue,
    };
    acc.add_text(text, &hits, source, thread.unwrap_or(&placeholder));
    acc.finish_refs(&[])
}

fn thread_from_api(thread: &ApiThread, url: Option<&str>) -> Result<ThreadId, RefsError> {
    if let Some(u) = url {
        return parse_thread_url(u).ok_or_else(|| RefsError::NotAThread(u.to_owned()));
    }
    let candidates = thread
        .issue
        .iter()
        .flat_map(|i| [i.get("html_url"), i.get("url")])
        .chain(
            thread
                .comments
                .iter()
                .flat_map(|c| [c.get("html_url"), c.get("issue_url")]),
        )
        .flatten()
        .filter_map(Value::as_str);
    for c in candidates {
        if let Some(id) = parse_thread_url(c) {
            return Ok(id);
        }
    }
    Err(RefsError::UnknownThread)
}

/// `(owner, repo, number, is_pr, title)` of a cross-referencing issue.
fn cross_reference(issue: &Value) -> Option<(String, String, u64, bool, String)> {
    let html_url = issue.get("html_url").and_then(Value::as_str)?;
    let Target::Thread {
        owner,
        repo,
        number,
        kind,
    } = classify(html_url)?
    else {
        return None;
    };
    let is_pr = kind == LinkKind::Pr || issue.get("pull_request").is_some_and(|p| !p.is_null());
    let title = issue
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Some((owner, repo, number, is_pr, title))
}

fn clip(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let max = CONTEXT_CHARS * 2 + 20;
    if collapsed.chars().count() > max {
        let mut t: String = collapsed.chars().take(max).collect();
        t.push('…');
        t
    } else {
        collapsed
    }
}

/// Collects occurrences and merges them by type and target.
#[derive(Default)]
struct Accumulator {
    refs: Vec<Reference>,
    /// Thread keys (`owner/repo#n`, lowercased) seen as issues/PRs, with
    /// their link kind when a URL said so.
    kinds: Vec<(String, LinkKind)>,
}

impl Accumulator {
    fn add_text(&mut self, text: &str, hits: &[Hit], source: &str, id: &ThreadId) {
        for h in hits {
            let context = scan::context(text, &h.range, CONTEXT_CHARS);
            self.add(
                h.found.clone(),
                h.relation,
                h.anchor.clone(),
                context,
                source,
                id,
            );
        }
    }

    fn add(
        &mut self,
        found: Found,
        relation: Relation,
        anchor: Option<String>,
        context: String,
        source: &str,
        id: &ThreadId,
    ) {
        let Some((kind, target, url)) = self.typed(found, relation, id) else {
            return; // the thread itself
        };
        let same = |r: &Reference| {
            r.kind == kind
                && (r.target.eq_ignore_ascii_case(&target)
                    || kind == RefType::Commit && same_commit(&r.target, &target))
        };
        if let Some(r) = self.refs.iter_mut().find(|r| same(r)) {
            merge_occurrence(r, relation, anchor, source, target, url);
            return;
        }
        self.refs.push(Reference {
            kind,
            target,
            url,
            context,
            source: source.to_owned(),
            relation,
            anchor_text: anchor,
            occurrences: 1,
            sources: vec![source.to_owned()],
        });
    }

    /// `(type, target, url)` of a found reference; `None` for the thread
    /// itself.
    fn typed(
        &mut self,
        found: Found,
        relation: Relation,
        id: &ThreadId,
    ) -> Option<(RefType, String, String)> {
        Some(match found {
            Found::Thread {
                owner,
                repo,
                number,
                kind,
            } => {
                if id.is(&owner, &repo, number) {
                    return None;
                }
                self.note_kind(&owner, &repo, number, kind);
                thread_ref(&owner, &repo, number, kind, relation)
            }
            Found::Commit { owner, repo, sha } => {
                if owner.is_empty() {
                    (RefType::Commit, sha.clone(), String::new())
                } else {
                    (
                        RefType::Commit,
                        format!("{owner}/{repo}@{sha}"),
                        format!("https://github.com/{owner}/{repo}/commit/{sha}"),
                    )
                }
            }
            Found::Url(u) => (RefType::Url, u.clone(), u),
        })
    }

    /// Remembers the first link kind a URL gave this thread key.
    fn note_kind(&mut self, owner: &str, repo: &str, number: u64, kind: Option<LinkKind>) {
        let key = format!("{owner}/{repo}#{number}").to_lowercase();
        if let Some(k) = kind
            && !self.kinds.iter().any(|(x, _)| *x == key)
        {
            self.kinds.push((key, k));
        }
    }

    /// Issue mentions become `pr` where a URL or the timeline says the
    /// target is a pull request; equal references then merge.
    fn finish_refs(mut self, timeline_pr: &[(String, String, u64)]) -> Vec<Reference> {
        let mut prs: Vec<String> = self
            .kinds
            .iter()
            .filter(|(_, k)| *k == LinkKind::Pr)
            .map(|(key, _)| key.clone())
            .collect();
        for (o, r, n) in timeline_pr {
            prs.push(format!("{o}/{r}#{n}").to_lowercase());
        }
        let mut out: Vec<Reference> = Vec::new();
        for mut r in self.refs.drain(..) {
            if r.kind == RefType::Issue
                && r.relation != Relation::Closes
                && prs.contains(&r.target.to_lowercase())
            {
                r.kind = RefType::Pr;
                r.url = r.url.replacen("/issues/", "/pull/", 1);
            }
            if let Some(existing) = out
                .iter_mut()
                .find(|e| e.kind == r.kind && e.target.eq_ignore_ascii_case(&r.target))
            {
                existing.occurrences += r.occurrences;
                for s in r.sources {
                    if !existing.sources.contains(&s) {
                        existing.sources.push(s);
                    }
                }
                if r.relation.strength() > existing.relation.strength() {
                    existing.relation = r.relation;
                }
                if existing.anchor_text.is_none() {
                    existing.anchor_text = r.anchor_text;
                }
            } else {
                out.push(r);
            }
        }
        out
    }

    fn finish(
        self,
        id: ThreadId,
        timeline_pr: Vec<(String, String, u64)>,
        warnings: Vec<String>,
    ) -> ThreadRefs {
        let refs = self.finish_refs(&timeline_pr);
        ThreadRefs {
            schema: REFS_SCHEMA.to_owned(),
            url: id.html_url(),
            repo: id.repo_slug(),
            number: id.number,
            kind: id.kind,
            refs,
            warnings,
        }
    }
}

/// Two commit targets name the same commit when the repos match and one
/// SHA is a prefix of the other (`abc1234` ~ the full 40 digits).
fn same_commit(a: &str, b: &str) -> bool {
    let split = |s: &str| -> (String, String) {
        match s.rsplit_once('@') {
            Some((repo, sha)) => (repo.to_lowercase(), sha.to_lowercase()),
            None => (String::new(), s.to_lowercase()),
        }
    };
    let (ra, sa) = split(a);
    let (rb, sb) = split(b);
    ra == rb && (sa.starts_with(&sb) || sb.starts_with(&sa))
}

/// `(type, target, url)` of an issue-or-pull-request reference: the
/// relation decides the type first, then the link kind.
fn thread_ref(
    owner: &str,
    repo: &str,
    number: u64,
    kind: Option<LinkKind>,
    relation: Relation,
) -> (RefType, String, String) {
    let ref_type = match (relation, kind) {
        (Relation::DuplicateOf, _) => RefType::Duplicate,
        (Relation::Related, _) => RefType::Related,
        (Relation::Closes, _) => RefType::Issue,
        (_, Some(LinkKind::Pr)) => RefType::Pr,
        (_, Some(LinkKind::Discussion)) => RefType::Discussion,
        _ => RefType::Issue,
    };
    let seg = match (ref_type, kind) {
        (RefType::Pr, _) | (_, Some(LinkKind::Pr)) => "pull",
        (_, Some(LinkKind::Discussion)) => "discussions",
        _ => "issues",
    };
    (
        ref_type,
        format!("{owner}/{repo}#{number}"),
        format!("https://github.com/{owner}/{repo}/{seg}/{number}"),
    )
}

/// Counts one more occurrence of an existing reference `r`: its sources,
/// the strongest relation, the first anchor text, the longest SHA.
fn merge_occurrence(
    r: &mut Reference,
    relation: Relation,
    anchor: Option<String>,
    source: &str,
    target: String,
    url: String,
) {
    r.occurrences += 1;
    if !r.sources.iter().any(|s| s == source) {
        r.sources.push(source.to_owned());
    }
    if relation.strength() > r.relation.strength() {
        r.relation = relation;
    }
    if r.anchor_text.is_none() {
        r.anchor_text = anchor;
    }
    // Keep the longest spelling of a commit's SHA.
    if r.kind == RefType::Commit && target.len() > r.target.len() {
        r.target = target;
        r.url = url;
    }
}
