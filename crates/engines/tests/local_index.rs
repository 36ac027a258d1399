//! The local index engine against real files in temporary folders: the
//! engine conformance suite, incremental indexing (add, update, unchanged,
//! remove, failures), BM25 order, snippets, CJK, HTML extraction, query
//! edge cases, freshness, hit URLs, persistence, seeding and concurrency.
#![cfg(feature = "local-index")]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ferret_core::conformance::{Conformance, Expect};
use ferret_core::{Engine, EngineKind, EngineRequest, ErrorKind, Freshness};
use ferret_engines::local_index::{
    IndexReport, LOCAL_HOST, LocalIndex, LocalIndexError, RootOptions,
};
use tempfile::TempDir;

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn days_ago(days: u64) -> SystemTime {
    SystemTime::now() - Duration::from_secs(days * 86_400)
}

/// A folder of notes and a fresh index in another folder.
struct Fixture {
    docs: TempDir,
    index_dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let docs = tempfile::tempdir().unwrap();
        let root = docs.path();
        write(
            root,
            "rust/async.md",
            "# Async Rust\n\nThe **tokio** runtime drives futures. Tokio schedules tasks on a \
             work-stealing runtime; tokio timers and tokio channels are part of it.\n",
        );
        write(
            root,
            "rust/errors.md",
            "# Error handling\n\nUse thiserror for libraries and anyhow for applications. \
             A long aside about many other things follows here, and only at the very end \
             does it say that tokio exists.\n",
        );
        write(
            root,
            "zh/async.md",
            "# 异步编程\n\nRust 的异步编程模型基于 future。运行时负责调度任务。\n",
        );
        write(
            root,
            "web/page.html",
            "<html><head><title>Search Engines Explained</title>\
             <script>var secretvariable = 'hidden';</script><style>.menuitem{}</style></head>\
             <body><nav>navigationonly Home About</nav><h1>How search works</h1>\
             <p>Inverted indexes map terms to documents; BM25 ranks them.</p>\
             <p style=\"display: none\">styledawayword</p></body></html>",
        );
        write(root, "notes.txt", "Shopping list\nmilk, eggs, quinoa\n");
        write(root, ".git/config.md", "# hidden git file gitonlyword\n");
        write(root, "target/build.md", "# build output targetonlyword\n");
        write(root, "src/main.rs", "fn main() { rustsourceword(); }\n");
        Fixture {
            docs,
            index_dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.docs.path()).unwrap()
    }

    fn open(&self) -> LocalIndex {
        LocalIndex::open(self.index_dir.path().join("index")).unwrap()
    }

    async fn indexed(&self) -> (LocalIndex, IndexReport) {
        let index = self.open();
        let report = index.add_dir(self.docs.path()).await.unwrap();
        (index, report)
    }
}

async fn urls(index: &LocalIndex, q: &str) -> Vec<String> {
    index
        .search(&EngineRequest::new(q))
        .await
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.url.to_string())
        .collect()
}

/// The URL the index gives a hit for `path`.
fn local(path: &Path) -> String {
    format!(
        "https://{LOCAL_HOST}{}",
        url::Url::from_file_path(path).unwrap().path()
    )
}

#[tokio::test]
async fn passes_the_engine_conformance_suite() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    assert_eq!(index.name(), "local");
    assert!(index.capabilities().is(EngineKind::Local));
    Conformance::new("tokio runtime")
        .expect(Expect::Hits { min: 2 })
        .check(&index)
        .await
        .assert_passed();
    Conformance::new("?!... ---")
        .expect(Expect::Error(ErrorKind::InvalidQuery))
        .check(&index)
        .await
        .assert_passed();
    // A query that matches nothing is a success with no hits.
    Conformance::new("zzzznotaword")
        .expect(Expect::Hits { min: 0 })
        .check(&index)
        .await
        .assert_passed();
}

#[tokio::test]
async fn adding_a_folder_reports_and_indexes_only_document_files() {
    let fx = Fixture::new();
    let (index, report) = fx.indexed().await;
    let root = fx.root();
    let rel: Vec<String> = report
        .added
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        rel,
        vec![
            "notes.txt",
            "rust/async.md",
            "rust/errors.md",
            "web/page.html",
            "zh/async.md"
        ]
    );
    assert_eq!(report.root, root);
    assert!(report.updated.is_empty() && report.removed.is_empty());
    assert_eq!((report.unchanged, report.documents), (0, 5));
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert!(
        report
            .to_string()
            .contains("5 added, 0 updated, 0 unchanged"),
        "{report}"
    );
    assert_eq!(index.num_docs(), 5);
    let roots = index.roots();
    assert_eq!(roots.len(), 1);
    assert_eq!((roots[0].path.clone(), roots[0].documents), (root, 5));

    // Hidden folders, target/ and other file types were not read.
    for word in ["gitonlyword", "targetonlyword", "rustsourceword"] {
        assert!(urls(&index, word).await.is_empty(), "{word} was indexed");
    }
}

#[tokio::test]
async fn hits_carry_a_local_url_title_snippet_and_modification_date() {
    let fx = Fixture::new();
    let file = fx.root().join("rust/async.md");
    set_mtime(&file, days_ago(3));
    let (index, _) = fx.indexed().await;
    let answer = index.search(&EngineRequest::new("tokio")).await.unwrap();
    let hit = &answer.hits[0];
    assert_eq!(hit.url, local(&file));
    assert!(hit.url.starts_with("https://local.invalid/"));
    assert_eq!(hit.title, "Async Rust");
    assert_eq!(hit.rank, 1);
    assert!(
        hit.snippet.to_lowercase().contains("tokio"),
        "{}",
        hit.snippet
    );
    assert!(
        !hit.snippet.contains("<b>") && !hit.snippet.contains("**"),
        "{}",
        hit.snippet
    );
    let published =
        chrono::DateTime::parse_from_rfc3339(hit.published_at.as_deref().unwrap()).unwrap();
    let age = chrono::Utc::now().signed_duration_since(published);
    assert_eq!(age.num_days(), 3, "{published}");
    assert_eq!(answer.provenance.runtime, "local");
    assert!(!answer.provenance.is_login());

    // The URL maps back to the file, and nothing else does.
    assert_eq!(index.indexed_path_for_url(&hit.url), Some(file));
    let passwd = format!("https://{LOCAL_HOST}/etc/passwd");
    assert_eq!(index.indexed_path_for_url(&passwd), None);
    let src = local(&fx.root().join("src/main.rs"));
    assert_eq!(index.indexed_path_for_url(&src), None);
    assert_eq!(
        index.indexed_path_for_url("https://example.com/rust/async.md"),
        None
    );
}

#[tokio::test]
async fn bm25_ranks_the_focused_document_first() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let root = fx.root();
    assert_eq!(
        urls(&index, "tokio").await,
        vec![
            local(&root.join("rust/async.md")),
            local(&root.join("rust/errors.md"))
        ]
    );
    // A title match outranks the same word in passing.
    assert_eq!(
        urls(&index, "error").await.first(),
        Some(&local(&root.join("rust/errors.md")))
    );
    let two = index
        .search(&EngineRequest::new("tokio").with_max_results(1))
        .await
        .unwrap();
    assert_eq!(two.hits.len(), 1);
}

#[tokio::test]
async fn cjk_text_is_searchable_by_words_inside_runs() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let zh = local(&fx.root().join("zh/async.md"));
    for q in ["编程", "异步编程", "调度任务", "运行时"] {
        assert_eq!(urls(&index, q).await, vec![zh.clone()], "query {q:?}");
    }
    // Characters that never occur next to each other do not match.
    assert!(urls(&index, "编异").await.is_empty());
    let hit = &index
        .search(&EngineRequest::new("调度"))
        .await
        .unwrap()
        .hits[0];
    assert_eq!(hit.title, "异步编程");
    assert!(hit.snippet.contains("调度"), "{}", hit.snippet);
}

#[tokio::test]
async fn html_is_indexed_as_its_visible_text() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let page = local(&fx.root().join("web/page.html"));
    let answer = index
        .search(&EngineRequest::new("bm25 ranks"))
        .await
        .unwrap();
    assert_eq!(answer.hits[0].url, page);
    assert_eq!(answer.hits[0].title, "Search Engines Explained");
    for hidden in [
        "secretvariable",
        "menuitem",
        "navigationonly",
        "styledawayword",
    ] {
        assert!(
            urls(&index, hidden).await.is_empty(),
            "{hidden} was indexed"
        );
    }
    // Plain text: title from the first line.
    let txt = &index
        .search(&EngineRequest::new("quinoa"))
        .await
        .unwrap()
        .hits[0];
    assert_eq!(txt.title, "Shopping list");
}

#[tokio::test]
async fn query_syntax_never_errors_but_empty_queries_are_invalid() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    for q in ["", "   ", "?!", "—…()[]{}", "\"\" -- :"] {
        let err = index.search(&EngineRequest::new(q)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidQuery, "{q:?}: {err}");
    }
    for q in [
        "\"unclosed phrase tokio",
        "tokio AND (",
        "title:",
        "nosuchfield:tokio",
        "tokio^^^2",
        "[a TO",
        "-tokio",
        "C++ node.js c#",
    ] {
        assert!(
            index.search(&EngineRequest::new(q)).await.is_ok(),
            "{q:?} failed"
        );
    }
    // Syntax that works: phrases and exclusions.
    let root = fx.root();
    assert_eq!(
        urls(&index, "\"tokio timers\"").await,
        vec![local(&root.join("rust/async.md"))]
    );
    assert_eq!(
        urls(&index, "tokio -thiserror").await,
        vec![local(&root.join("rust/async.md"))]
    );
    assert_eq!(
        urls(&index, "title:error").await,
        vec![local(&root.join("rust/errors.md"))]
    );
}

#[tokio::test]
async fn reindexing_is_incremental() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let root = fx.root();

    let again = index.add_dir(fx.docs.path()).await.unwrap();
    assert!(!again.changed());
    assert_eq!((again.unchanged, again.documents), (5, 5));

    // Change one file (new content, later mtime), delete one, add one.
    let changed = write(
        &root,
        "rust/async.md",
        "# Async Rust\n\nNow about smol executors.\n",
    );
    set_mtime(&changed, SystemTime::now() + Duration::from_secs(5));
    std::fs::remove_file(root.join("notes.txt")).unwrap();
    let added = write(
        &root,
        "rust/new/traits.markdown",
        "# Traits\n\nTrait objects and generics.\n",
    );

    let report = index.add_dir(&root).await.unwrap();
    assert_eq!(report.updated, vec![changed.clone()]);
    assert_eq!(report.removed, vec![root.join("notes.txt")]);
    assert_eq!(report.added, vec![added.clone()]);
    assert_eq!((report.unchanged, report.documents), (3, 5));
    assert_eq!(index.num_docs(), 5);

    assert!(urls(&index, "quinoa").await.is_empty());
    assert_eq!(urls(&index, "smol").await, vec![local(&changed)]);
    assert_eq!(
        urls(&index, "tokio").await,
        vec![local(&root.join("rust/errors.md"))]
    );
    assert_eq!(urls(&index, "generics").await, vec![local(&added)]);

    // Same size and content but a new mtime is re-read too.
    set_mtime(&added, SystemTime::now() + Duration::from_secs(60));
    let report = index.add_dir(&root).await.unwrap();
    assert_eq!(report.updated, vec![added]);
}

#[tokio::test]
async fn unreadable_files_are_reported_with_reasons() {
    let fx = Fixture::new();
    let root = fx.root();
    let binary = root.join("blob.txt");
    std::fs::write(&binary, b"GIF89a\0\0\x01binary").unwrap();
    let (index, report) = fx.indexed().await;
    assert_eq!(report.failed.len(), 1, "{:?}", report.failed);
    assert_eq!(report.failed[0].path, binary);
    assert!(
        report.failed[0].reason.contains("binary"),
        "{:?}",
        report.failed
    );
    assert_eq!(report.documents, 5);
    assert_eq!(index.num_docs(), 5);

    let err = index
        .add_dir(root.join("no/such/folder"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LocalIndexError::NotADirectory { .. }),
        "{err}"
    );
    let err = index.add_dir(root.join("notes.txt")).await.unwrap_err();
    assert!(err.to_string().contains("is not a folder"), "{err}");
}

#[tokio::test]
async fn a_freshness_window_filters_by_modification_time() {
    let fx = Fixture::new();
    let root = fx.root();
    set_mtime(&root.join("rust/async.md"), days_ago(400));
    set_mtime(&root.join("rust/errors.md"), days_ago(2));
    let (index, _) = fx.indexed().await;
    assert!(index.capabilities().freshness);
    let recent = |f: Freshness| {
        let index = index.clone();
        async move {
            index
                .search(&EngineRequest::new("tokio").with_freshness(f))
                .await
                .unwrap()
                .hits
                .into_iter()
                .map(|h| h.url)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        recent(Freshness::Pw).await,
        vec![local(&root.join("rust/errors.md"))]
    );
    assert!(recent(Freshness::Pd).await.is_empty());
    assert_eq!(recent(Freshness::Py).await.len(), 1);
    assert_eq!(urls(&index, "tokio").await.len(), 2);
}

#[tokio::test]
async fn the_index_persists_across_reopening() {
    let fx = Fixture::new();
    {
        let (index, _) = fx.indexed().await;
        assert_eq!(index.num_docs(), 5);
    }
    let reopened = fx.open();
    assert_eq!(reopened.num_docs(), 5);
    assert_eq!(reopened.roots().len(), 1);
    assert_eq!(urls(&reopened, "tokio").await.len(), 2);
    let report = reopened.add_dir(fx.docs.path()).await.unwrap();
    assert_eq!(report.unchanged, 5);
}

#[tokio::test]
async fn a_base_url_addresses_hits_on_the_published_site() {
    let fx = Fixture::new();
    let index = fx.open();
    let base = url::Url::parse("https://docs.example.com/guide").unwrap();
    index
        .add_dir_with(fx.docs.path(), RootOptions::with_base_url(base))
        .await
        .unwrap();
    let hit = &index
        .search(&EngineRequest::new("smol OR tokio"))
        .await
        .unwrap()
        .hits[0];
    assert_eq!(hit.url, "https://docs.example.com/guide/rust/async.md");
    assert_eq!(
        index.indexed_path_for_url(&hit.url),
        Some(fx.root().join("rust/async.md"))
    );
    // Re-adding without options keeps the base URL.
    index.add_dir(fx.docs.path()).await.unwrap();
    assert_eq!(
        index.roots()[0].base_url.as_deref(),
        Some("https://docs.example.com/guide/")
    );
    let err = index
        .add_dir_with(
            fx.docs.path(),
            RootOptions::with_base_url(url::Url::parse("ftp://x.example/").unwrap()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, LocalIndexError::InvalidBaseUrl { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn removing_and_refreshing_folders() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let root = fx.root();
    // A nested folder indexed on its own survives removing the outer one.
    let other = tempfile::tempdir().unwrap();
    write(other.path(), "solo.md", "# Solo\n\nunique solitary words\n");
    index.add_dir(other.path()).await.unwrap();
    assert_eq!(index.roots().len(), 2);

    let report = index.remove_dir(&root).await.unwrap();
    assert_eq!(report.removed.len(), 5);
    assert_eq!(index.num_docs(), 1);
    assert_eq!(index.roots().len(), 1);
    assert!(urls(&index, "tokio").await.is_empty());
    let err = index.remove_dir(&root).await.unwrap_err();
    assert!(matches!(err, LocalIndexError::NotARoot { .. }), "{err}");

    // refresh() picks up changes in every folder, and empties vanished ones.
    write(
        other.path(),
        "second.md",
        "# Second\n\nanother solitary page\n",
    );
    let reports = index.refresh().await.unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].added.len(), 1);
    assert_eq!(urls(&index, "solitary").await.len(), 2);
    let gone = other.path().to_path_buf();
    drop(other);
    let reports = index.refresh().await.unwrap();
    assert_eq!(reports[0].removed.len(), 2);
    assert!(reports[0].failed[0].reason.contains("no longer exists"));
    assert_eq!(index.num_docs(), 0);
    assert!(!gone.exists());
}

#[tokio::test]
async fn nested_folders_keep_their_own_documents() {
    let fx = Fixture::new();
    let root = fx.root();
    // target/ is skipped when walking the outer folder, but can be a folder
    // of its own.
    let index = fx.open();
    index.add_dir(root.join("target")).await.unwrap();
    index.add_dir(&root).await.unwrap();
    assert_eq!(urls(&index, "targetonlyword").await.len(), 1);
    let again = index.add_dir(&root).await.unwrap();
    assert!(again.removed.is_empty(), "{:?}", again.removed);
    assert_eq!(urls(&index, "targetonlyword").await.len(), 1);
}

#[tokio::test]
async fn seeding_fills_only_an_empty_index() {
    let fx = Fixture::new();
    let index = fx.open();
    assert!(index.is_empty());
    let report = index.seed_from(fx.docs.path()).await.unwrap().unwrap();
    assert_eq!(report.added.len(), 5);
    // Seeding again refreshes the seeded folder: new pages appear.
    write(
        &fx.root(),
        "new-page.md",
        "# New page\n\nfreshly added guide page\n",
    );
    let report = index.seed_from(fx.docs.path()).await.unwrap().unwrap();
    assert_eq!(report.added.len(), 1);
    assert_eq!(report.unchanged, 5);

    // An index with the user's own folders is left alone.
    let own = tempfile::tempdir().unwrap();
    write(own.path(), "mine.md", "# Mine\n");
    let user_index = LocalIndex::open(own.path().join("idx")).unwrap();
    let notes = tempfile::tempdir().unwrap();
    write(notes.path(), "n.md", "# N\n");
    user_index.add_dir(notes.path()).await.unwrap();
    assert_eq!(user_index.seed_from(fx.docs.path()).await.unwrap(), None);
    assert_eq!(user_index.num_docs(), 1);
}

#[tokio::test]
async fn seeding_from_the_repository_docs_indexes_the_user_guide() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    if !docs.is_dir() {
        eprintln!("skipped: {} not present", docs.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let index = LocalIndex::open(dir.path()).unwrap();
    let report = index.seed_from(&docs).await.unwrap().unwrap();
    assert!(!report.added.is_empty(), "{report}");
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let answer = index.search(&EngineRequest::new("ferret")).await.unwrap();
    assert!(!answer.hits.is_empty());
    assert!(answer.hits.iter().all(|h| !h.title.is_empty()));
}

#[tokio::test]
async fn searches_run_while_indexing_and_see_each_commit() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let root = fx.root();
    for i in 0..60 {
        write(
            &root,
            &format!("bulk/page{i}.md"),
            &format!("# Page {i}\n\nbulkword number {i}\n"),
        );
    }
    let writer = {
        let index = index.clone();
        let root = root.clone();
        tokio::spawn(async move { index.add_dir(&root).await })
    };
    // Searches keep answering from the last commit meanwhile.
    let mut answered = 0;
    while !writer.is_finished() {
        let got = index.search(&EngineRequest::new("tokio")).await.unwrap();
        assert_eq!(got.hits.len(), 2);
        answered += 1;
        tokio::task::yield_now().await;
    }
    let report = writer.await.unwrap().unwrap();
    assert_eq!(report.added.len(), 60);
    assert!(answered >= 1);
    // Visible as soon as add_dir returns.
    let bulk = index
        .search(&EngineRequest::new("bulkword").with_max_results(100))
        .await
        .unwrap();
    assert_eq!(bulk.hits.len(), LocalIndex::DEFAULT_MAX_RESULTS);

    // Two add_dir calls in this process queue up rather than fail.
    let (a, b) = tokio::join!(index.add_dir(&root), index.add_dir(&root));
    assert!(a.is_ok() && b.is_ok());
}

#[tokio::test]
async fn another_writer_makes_indexing_busy_not_broken() {
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    write(&fx.root(), "later.md", "# Later\n");
    // Another process's writer holds the index lock.
    let other = tantivy::Index::open_in_dir(index.dir()).unwrap();
    let writer: tantivy::IndexWriter = other.writer(15_000_000).unwrap();
    let err = index.add_dir(fx.docs.path()).await.unwrap_err();
    assert!(matches!(err, LocalIndexError::Busy { .. }), "{err}");
    assert!(err.to_string().contains("try again"), "{err}");
    // Searching still works.
    assert_eq!(urls(&index, "tokio").await.len(), 2);
    drop(writer);
    let report = index.add_dir(fx.docs.path()).await.unwrap();
    assert_eq!(report.added.len(), 1);
}

#[tokio::test]
async fn a_directory_that_is_not_an_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("important.doc"), "user data").unwrap();
    let err = LocalIndex::open(dir.path()).unwrap_err();
    assert!(matches!(err, LocalIndexError::NotAnIndex { .. }), "{err}");
    assert!(err.to_string().contains("important.doc"), "{err}");
    assert!(dir.path().join("important.doc").exists());
}

#[tokio::test]
async fn an_index_with_another_schema_is_an_incompatible_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut builder = tantivy::schema::Schema::builder();
    builder.add_text_field("something_else", tantivy::schema::TEXT);
    tantivy::Index::create_in_dir(dir.path(), builder.build()).unwrap();
    let err = LocalIndex::open(dir.path()).unwrap_err();
    assert!(matches!(err, LocalIndexError::Incompatible { .. }), "{err}");
    assert!(err.to_string().contains("delete the directory"), "{err}");

    // A damaged folder list is reported the same way, not ignored.
    let fx = Fixture::new();
    let (index, _) = fx.indexed().await;
    let dir = index.dir().to_path_buf();
    drop(index);
    std::fs::write(dir.join("ferret-roots.json"), "{ not json").unwrap();
    let err = LocalIndex::open(&dir).unwrap_err();
    assert!(matches!(err, LocalIndexError::Incompatible { .. }), "{err}");
}
