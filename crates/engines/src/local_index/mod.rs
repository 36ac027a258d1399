//! [`LocalIndex`]: an embedded full-text index of folders on this machine
//! (Markdown, HTML and text files), searchable as the engine `local`
//! (feature `local-index`; the CLI keeps it at `$FERRET_HOME/index` and
//! fills it with `ferret index add <dir>`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use ferret_core::{Engine, EngineRequest};
//! use ferret_engines::local_index::LocalIndex;
//!
//! let index = LocalIndex::open("/home/me/.local/share/ferret/index")?;
//! let report = index.add_dir("/home/me/notes").await?;
//! println!("{report}"); // "/home/me/notes: 12 added, 0 updated, …"
//! let answer = index.search(&EngineRequest::new("tokio runtime")).await?;
//! # Ok(()) }
//! ```
//!
//! ## Indexing
//!
//! [`LocalIndex::add_dir`] walks a folder (skipping hidden entries such as
//! `.git/`, and `target/`, `node_modules/`), reads `.md`, `.markdown`,
//! `.txt`, `.html` and `.htm` files, and is incremental: a file whose size
//! and modification time are unchanged is skipped, a changed one is
//! re-indexed, a deleted one is removed. The [`IndexReport`] lists what was
//! added, updated, unchanged, removed and what failed, with reasons.
//! [`LocalIndex::refresh`] re-runs every folder; [`LocalIndex::remove_dir`]
//! forgets one; [`LocalIndex::seed_from`] fills an empty index (the CLI
//! seeds it with the user guide in `docs/`).
//!
//! Titles come from the first `# heading` of Markdown, `<title>` (or the
//! first `<h1>`) of HTML, or a short first line of text, else the file
//! name. HTML text excludes scripts, styles and navigation.
//!
//! ## Searching
//!
//! BM25 over title (boosted ×2) and text, with tantivy's query syntax
//! (`"phrases"`, `-exclusions`, `title:word`) parsed leniently: user syntax
//! never causes an error, only a query with nothing searchable in it (only
//! punctuation) is [`EngineError::InvalidQuery`]. CJK text is searchable:
//! the tokenizer emits character bigrams, as [`ferret_core::tokenize`]
//! does. A freshness window and a since/until range filter by modification
//! time, which is also each hit's `published_at`; a page after the first
//! skips the pages before it. Snippets are the best-matching passage of the
//! text (plain text).
//!
//! ## Hit URLs
//!
//! The [`Engine`] contract (and fusion's canonical URLs) needs absolute
//! http(s) URLs, so a hit for `/home/me/notes/a b.md` is addressed as
//! `https://local.invalid/home/me/notes/a%20b.md`: the file's absolute path
//! under the reserved host [`LOCAL_HOST`] (`.invalid` can never resolve, so
//! nothing is ever fetched from the network by mistake). The path reads as
//! the file's own path, and [`LocalIndex::indexed_path_for_url`] maps it
//! back. A folder published on the web can instead be given a base URL
//! ([`RootOptions::base_url`]): hits then link to the published pages.
//!
//! ## Concurrency
//!
//! One writer at a time (indexing calls queue up in this process; another
//! process indexing the same directory makes them fail with
//! [`LocalIndexError::Busy`]); any number of searches run meanwhile and see
//! each commit as soon as it is made. All file and index work runs on
//! tokio's blocking pool.

mod extract;
mod report;
mod tokenizer;
mod walk;

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use chrono::{DateTime, SecondsFormat, Utc};
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineHit, EngineKind,
    EngineRequest, EngineResponse, Provenance, Runtime,
};
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::directory::error::LockError;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, RangeQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{
    Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, TantivyError, Term,
};
use url::Url;

pub use extract::{DocKind, EXTENSIONS};
pub use report::{IndexFailure, IndexReport, IndexedRoot, RootOptions};
pub use walk::SKIPPED_DIRS;

use tokenizer::{CjkTokenizer, TOKENIZER_NAME};

/// The host of local hit URLs: `https://local.invalid/<absolute path>`.
pub const LOCAL_HOST: &str = "local.invalid";

/// Files larger than this are not indexed (reported as failed).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The file in the index directory that lists the indexed folders.
const ROOTS_FILE: &str = "ferret-roots.json";
const ROOTS_VERSION: u32 = 1;

/// The controls the local index pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::Freshness,
    Control::Since,
    Control::Until,
    Control::Page,
]);

/// Nanoseconds in a day.
const DAY_NS: i64 = 86_400 * 1_000_000_000;

/// Title matches count this much more than text matches.
const TITLE_BOOST: f32 = 2.0;

/// Snippet length in characters.
const SNIPPET_CHARS: usize = 240;

/// Memory for the single indexing thread.
const WRITER_BUDGET: usize = 32 * 1024 * 1024;

/// A local index failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalIndexError {
    /// The folder to index does not exist or is not a folder.
    #[error("{path} is not a folder; give the path of a folder of Markdown, HTML or text files")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The folder to remove is not one the index holds.
    #[error("{path} is not an indexed folder (indexed: {indexed})")]
    NotARoot {
        /// The path given.
        path: PathBuf,
        /// The folders the index holds, comma-separated.
        indexed: String,
    },
    /// The index directory holds something else.
    #[error(
        "{dir} is not empty and holds no Ferret index (found {found:?}); choose an empty or new \
         directory for the index"
    )]
    NotAnIndex {
        /// The index directory.
        dir: PathBuf,
        /// A file found there.
        found: String,
    },
    /// The index was built by an incompatible version.
    #[error(
        "the index at {dir} was built by an incompatible Ferret version ({message}); delete the \
         directory and add your folders again"
    )]
    Incompatible {
        /// The index directory.
        dir: PathBuf,
        /// What did not match.
        message: String,
    },
    /// Another process is writing the index.
    #[error("another process is writing the index at {dir}; wait for it to finish and try again")]
    Busy {
        /// The index directory.
        dir: PathBuf,
    },
    /// A base URL that cannot address hits.
    #[error("invalid base URL {url:?}: {reason}")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file system operation failed.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The index itself failed (unreadable or damaged files).
    #[error(
        "the index at {dir} failed: {message}; if this persists, delete the directory and add \
         your folders again"
    )]
    Index {
        /// The index directory.
        dir: PathBuf,
        /// What failed.
        message: String,
    },
}

impl From<LocalIndexError> for EngineError {
    fn from(e: LocalIndexError) -> Self {
        EngineError::Transport {
            message: e.to_string(),
            temporary: matches!(e, LocalIndexError::Busy { .. }),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    path: Field,
    title: Field,
    body: Field,
    mtime: Field,
    size: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED | FAST),
        title: b.add_text_field("title", text.clone()),
        body: b.add_text_field("body", text),
        mtime: b.add_i64_field("mtime_ns", INDEXED | STORED | FAST),
        size: b.add_u64_field("size", STORED | FAST),
    };
    (b.build(), fields)
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct RootsFile {
    version: u32,
    roots: Vec<IndexedRoot>,
}

/// An embedded index of local folders, and the `local` search engine over
/// it. Clones share the index.
#[derive(Clone)]
pub struct LocalIndex {
    inner: Arc<Inner>,
    max_results: usize,
}

struct Inner {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    roots: Mutex<Vec<IndexedRoot>>,
    writing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for LocalIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalIndex")
            .field("dir", &self.inner.dir)
            .field("max_results", &self.max_results)
            .finish_non_exhaustive()
    }
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> LocalIndexError {
    LocalIndexError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn index_err(dir: &Path, e: TantivyError) -> LocalIndexError {
    match e {
        TantivyError::LockFailure(LockError::LockBusy, _) => LocalIndexError::Busy {
            dir: dir.to_path_buf(),
        },
        TantivyError::SchemaError(message) => LocalIndexError::Incompatible {
            dir: dir.to_path_buf(),
            message,
        },
        other => LocalIndexError::Index {
            dir: dir.to_path_buf(),
            message: other.to_string(),
        },
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The modification times (ns since 1970) a request allows: from the later
/// of its freshness window's start and its `since` day, to the end of its
/// `until` day.
fn mtime_bounds(request: &EngineRequest) -> (Bound<i64>, Bound<i64>) {
    // Days past what nanoseconds can count clamp to the far ends.
    let day_start = |day: chrono::NaiveDate| {
        let midnight = day.and_time(chrono::NaiveTime::MIN).and_utc();
        midnight
            .timestamp_nanos_opt()
            .unwrap_or(if midnight.timestamp() > 0 {
                i64::MAX
            } else {
                i64::MIN
            })
    };
    let window = request
        .freshness
        .map(|f| now_ns().saturating_sub(i64::from(f.days()) * DAY_NS));
    let since = request.since.map(day_start);
    let lower = match window.into_iter().chain(since).max() {
        Some(ns) => Bound::Included(ns),
        None => Bound::Unbounded,
    };
    let upper = match request.until {
        Some(day) => Bound::Excluded(day_start(day).saturating_add(DAY_NS)),
        None => Bound::Unbounded,
    };
    (lower, upper)
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `path` made absolute with symlinks resolved; it must be a folder.
fn folder(path: &Path) -> Result<PathBuf, LocalIndexError> {
    match std::fs::canonicalize(path) {
        Ok(p) if p.is_dir() => Ok(p),
        _ => Err(LocalIndexError::NotADirectory {
            path: path.to_path_buf(),
        }),
    }
}

/// `path` made absolute (resolved when it exists).
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_default())
}

/// The local URL of an absolute `path`.
fn local_url(path: &Path) -> Option<String> {
    let file = Url::from_file_path(path).ok()?;
    Some(format!("https://{LOCAL_HOST}{}", file.path()))
}

/// The URL of `path` under `root`'s base URL.
fn published_url(base: &str, root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut url = Url::parse(base).ok()?;
    {
        let mut segments = url.path_segments_mut().ok()?;
        segments.pop_if_empty();
        for c in rel.components() {
            segments.push(c.as_os_str().to_str()?);
        }
    }
    Some(url.to_string())
}

/// A base URL checked and normalised to end in `/`.
fn check_base_url(url: &Url) -> Result<String, LocalIndexError> {
    let bad = |reason: &str| LocalIndexError::InvalidBaseUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it must be an absolute http(s) URL with a host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must not have a query or fragment"));
    }
    let mut text = url.to_string();
    if !text.ends_with('/') {
        text.push('/');
    }
    Ok(text)
}

/// The innermost indexed folder holding `path`.
fn owning_root<'a>(roots: &'a [IndexedRoot], path: &Path) -> Option<&'a IndexedRoot> {
    roots
        .iter()
        .filter(|r| path.starts_with(&r.path))
        .max_by_key(|r| r.path.components().count())
}

/// The hit URL of `path`.
fn url_for(roots: &[IndexedRoot], path: &Path) -> Option<String> {
    match owning_root(roots, path) {
        Some(IndexedRoot {
            path: root,
            base_url: Some(base),
            ..
        }) => published_url(base, root, path),
        _ => local_url(path),
    }
}

/// The first `max` characters of `text` on one line, cut at a word.
fn lead(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    }
}

impl LocalIndex {
    /// The engine name.
    pub const NAME: &'static str = "local";

    /// The default (and largest) number of hits per search.
    pub const DEFAULT_MAX_RESULTS: usize = 50;

    /// Open the index in `dir`, creating it (and the directory) when
    /// missing. A non-empty directory that holds no index is refused.
    /// Blocks for the few milliseconds opening takes.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, LocalIndexError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
        let mmap = MmapDirectory::open(&dir).map_err(|e| io_err(&dir, e))?;
        let exists = Index::exists(&mmap).map_err(|e| io_err(&dir, e))?;
        if !exists {
            let entries = std::fs::read_dir(&dir).map_err(|e| io_err(&dir, e))?;
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !(name.starts_with(".tantivy") || name.starts_with(ROOTS_FILE)) {
                    return Err(LocalIndexError::NotAnIndex { dir, found: name });
                }
            }
        }
        let (schema, fields) = schema();
        let index = Index::open_or_create(mmap, schema).map_err(|e| index_err(&dir, e))?;
        index.tokenizers().register(TOKENIZER_NAME, CjkTokenizer);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|e| index_err(&dir, e))?;
        let roots = load_roots(&dir)?;
        Ok(LocalIndex {
            inner: Arc::new(Inner {
                dir,
                index,
                reader,
                fields,
                roots: Mutex::new(roots),
                writing: tokio::sync::Mutex::new(()),
            }),
            max_results: Self::DEFAULT_MAX_RESULTS,
        })
    }

    /// Return at most `n` hits per search (at least 1).
    pub fn with_max_results(mut self, n: usize) -> Self {
        self.max_results = n.max(1);
        self
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Documents in the index.
    pub fn num_docs(&self) -> u64 {
        self.inner.reader.searcher().num_docs()
    }

    /// Whether the index holds no documents and no folders.
    pub fn is_empty(&self) -> bool {
        self.num_docs() == 0 && lock(&self.inner.roots).is_empty()
    }

    /// The indexed folders.
    pub fn roots(&self) -> Vec<IndexedRoot> {
        lock(&self.inner.roots).clone()
    }

    /// Index the folder at `path` (see the module docs); a folder indexed
    /// before keeps its [`RootOptions`].
    pub async fn add_dir(&self, path: impl AsRef<Path>) -> Result<IndexReport, LocalIndexError> {
        self.write(path.as_ref(), None).await
    }

    /// [`LocalIndex::add_dir`] with `options` for this folder.
    pub async fn add_dir_with(
        &self,
        path: impl AsRef<Path>,
        options: RootOptions,
    ) -> Result<IndexReport, LocalIndexError> {
        self.write(path.as_ref(), Some(options)).await
    }

    async fn write(
        &self,
        path: &Path,
        options: Option<RootOptions>,
    ) -> Result<IndexReport, LocalIndexError> {
        let base_url = match options.as_ref().and_then(|o| o.base_url.as_ref()) {
            Some(url) => Some(check_base_url(url)?),
            None => None,
        };
        let path = path.to_path_buf();
        let _guard = self.inner.writing.lock().await;
        let inner = self.inner.clone();
        blocking(move || {
            let root = folder(&path)?;
            inner.index_root(&root, options.map(|_| base_url))
        })
        .await
    }

    /// Re-index every folder. A folder that no longer exists has its
    /// documents removed (its report says so) but stays registered, so it
    /// comes back when it reappears; [`LocalIndex::remove_dir`] forgets it.
    pub async fn refresh(&self) -> Result<Vec<IndexReport>, LocalIndexError> {
        let _guard = self.inner.writing.lock().await;
        let inner = self.inner.clone();
        blocking(move || {
            let roots = load_roots(&inner.dir)?;
            let mut reports = Vec::with_capacity(roots.len());
            for root in roots {
                if root.path.is_dir() {
                    reports.push(inner.index_root(&root.path, None)?);
                } else {
                    let mut report = inner.remove_docs(&root.path, true)?;
                    report.failed.push(IndexFailure::new(
                        &root.path,
                        "the folder no longer exists; its documents were removed",
                    ));
                    reports.push(report);
                }
            }
            Ok(reports)
        })
        .await
    }

    /// Forget the folder at `path` and remove its documents (except those
    /// that also belong to another indexed folder inside it).
    pub async fn remove_dir(&self, path: impl AsRef<Path>) -> Result<IndexReport, LocalIndexError> {
        let path = path.as_ref().to_path_buf();
        let _guard = self.inner.writing.lock().await;
        let inner = self.inner.clone();
        blocking(move || inner.remove_docs(&absolute(&path), false)).await
    }

    /// Seed a fresh index: when the index holds nothing, index `dir` (the
    /// CLI passes the repository's `docs/`) and return its report. When
    /// `dir` is already indexed it is refreshed (new pages appear). When
    /// the index holds other folders only, nothing is done (`None`).
    pub async fn seed_from(
        &self,
        dir: impl AsRef<Path>,
    ) -> Result<Option<IndexReport>, LocalIndexError> {
        let dir = dir.as_ref();
        let root = {
            let dir = dir.to_path_buf();
            blocking(move || folder(&dir)).await?
        };
        let known = self.roots().iter().any(|r| r.path == root);
        if self.is_empty() || known {
            self.add_dir(&root).await.map(Some)
        } else {
            Ok(None)
        }
    }

    /// Open the index in `dir` and, when it is empty, seed it from the
    /// folder `seed` — holding an exclusive lock on `<dir>.lock` throughout,
    /// so that concurrent first runs (several processes on an empty Ferret
    /// home) wait for the one that seeds instead of racing it, then find the
    /// index seeded. Waits at most `wait` for the lock
    /// ([`LocalIndexError::Busy`] after that). The report is `None` when
    /// nothing was seeded.
    pub async fn open_seeded(
        dir: impl AsRef<Path>,
        seed: &Path,
        wait: Duration,
    ) -> Result<(LocalIndex, Option<IndexReport>), LocalIndexError> {
        let dir = dir.as_ref().to_path_buf();
        let lock_path = dir.with_extension("lock");
        let held = {
            let (lock_path, dir) = (lock_path.clone(), dir.clone());
            blocking(move || lock_exclusive(&lock_path, &dir, wait)).await?
        };
        let index = {
            let dir = dir.clone();
            blocking(move || LocalIndex::open(&dir)).await?
        };
        let report = if index.is_empty() && seed.is_dir() {
            index.seed_from(seed).await?
        } else {
            None
        };
        drop(held);
        Ok((index, report))
    }

    /// The file behind a hit URL this index produced, when that file is an
    /// indexed document (so a URL from anywhere else can never name an
    /// arbitrary file on this machine).
    pub fn indexed_path_for_url(&self, url: &str) -> Option<PathBuf> {
        let parsed = Url::parse(url).ok()?;
        let roots = self.roots();
        let candidate = if parsed.scheme() == "https" && parsed.host_str() == Some(LOCAL_HOST) {
            let mut file = Url::parse("file:///").ok()?;
            file.set_path(parsed.path());
            file.to_file_path().ok()?
        } else {
            roots.iter().find_map(|r| {
                let base = Url::parse(r.base_url.as_deref()?).ok()?;
                let rest = parsed.as_str().strip_prefix(base.as_str())?;
                let rest = rest.split(['?', '#']).next()?;
                let mut file = Url::from_directory_path(&r.path).ok()?;
                file.set_path(&format!("{}{rest}", file.path()));
                file.to_file_path().ok()
            })?
        };
        owning_root(&roots, &candidate)?;
        let term = Term::from_field_text(self.inner.fields.path, candidate.to_str()?);
        let found = self.inner.reader.searcher().doc_freq(&term).ok()? > 0;
        found.then_some(candidate)
    }
}

/// Take an exclusive lock on the file `path` (created when missing),
/// waiting at most `wait`; the lock lasts as long as the returned file.
fn lock_exclusive(
    path: &Path,
    dir: &Path,
    wait: Duration,
) -> Result<std::fs::File, LocalIndexError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| io_err(path, e))?;
    let deadline = Instant::now() + wait;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LocalIndexError::Busy {
                    dir: dir.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(path, e)),
        }
    }
}

/// Run `f` on tokio's blocking pool.
async fn blocking<T, F>(f: F) -> Result<T, LocalIndexError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, LocalIndexError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| LocalIndexError::Io {
            path: PathBuf::new(),
            message: format!("an index task failed: {e}"),
        })?
}

fn load_roots(dir: &Path) -> Result<Vec<IndexedRoot>, LocalIndexError> {
    let path = dir.join(ROOTS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(&path, e)),
    };
    let file: RootsFile =
        serde_json::from_str(&text).map_err(|e| LocalIndexError::Incompatible {
            dir: dir.to_path_buf(),
            message: format!("{} is unreadable: {e}", path.display()),
        })?;
    if file.version != ROOTS_VERSION {
        return Err(LocalIndexError::Incompatible {
            dir: dir.to_path_buf(),
            message: format!(
                "{} has version {}, this build reads {ROOTS_VERSION}",
                path.display(),
                file.version
            ),
        });
    }
    Ok(file.roots)
}

fn save_roots(dir: &Path, roots: &[IndexedRoot]) -> Result<(), LocalIndexError> {
    let path = dir.join(ROOTS_FILE);
    let tmp = dir.join(format!("{ROOTS_FILE}.tmp"));
    let file = RootsFile {
        version: ROOTS_VERSION,
        roots: roots.to_vec(),
    };
    let json = serde_json::to_vec_pretty(&file).map_err(|e| io_err(&path, e))?;
    std::fs::write(&tmp, json).map_err(|e| io_err(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))
}

/// Split the walked files into those to (re)read — with whether each is new
/// — counting the unchanged ones (same mtime and size) in `report`; also
/// returns every path seen.
fn files_to_read(
    files: Vec<walk::FoundFile>,
    known: &HashMap<PathBuf, (i64, u64)>,
    report: &mut IndexReport,
) -> (Vec<(walk::FoundFile, bool)>, HashSet<PathBuf>) {
    let mut seen = HashSet::with_capacity(files.len());
    let mut work = Vec::new();
    for file in files {
        seen.insert(file.path.clone());
        match known.get(&file.path) {
            Some(&(mtime, size)) if mtime == file.mtime_ns && size == file.size => {
                report.unchanged += 1;
            }
            previous => work.push((file, previous.is_none())),
        }
    }
    (work, seen)
}

/// The indexed paths under `root` the walk no longer found, sorted.
fn stale_paths(
    root: &Path,
    roots: &[IndexedRoot],
    known: &HashMap<PathBuf, (i64, u64)>,
    seen: &HashSet<PathBuf>,
) -> Vec<PathBuf> {
    // Gone from the folder — unless it belongs to another indexed
    // folder nested in this one whose files this walk skipped.
    let others: Vec<&Path> = roots
        .iter()
        .map(|r| r.path.as_path())
        .filter(|p| *p != root)
        .collect();
    let mut stale: Vec<PathBuf> = known
        .keys()
        .filter(|p| p.starts_with(root) && !seen.contains(*p))
        .filter(|p| {
            let claimed = others.iter().any(|o| p.starts_with(o));
            !(claimed && p.is_file() && walk::indexable_kind(p).is_some())
        })
        .cloned()
        .collect();
    stale.sort();
    stale
}

/// Update (or add) `root`'s entry in `roots` after indexing it, keeping the
/// list sorted. `base_url`: `None` keeps the folder's setting.
fn record_root(
    roots: &mut Vec<IndexedRoot>,
    root: &Path,
    base_url: Option<Option<String>>,
    documents: u64,
) {
    let indexed_at = Utc::now();
    match roots.iter_mut().find(|r| r.path == root) {
        Some(r) => {
            r.indexed_at = indexed_at;
            r.documents = documents;
            if let Some(base) = base_url {
                r.base_url = base;
            }
        }
        None => roots.push(IndexedRoot {
            path: root.to_path_buf(),
            base_url: base_url.flatten(),
            indexed_at,
            documents,
        }),
    }
    roots.sort_by(|a, b| a.path.cmp(&b.path));
}

/// Read and extract one file into a document.
fn read_document(fields: &Fields, file: &walk::FoundFile) -> Result<TantivyDocument, String> {
    if file.size > MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes is more than the {MAX_FILE_BYTES}-byte limit",
            file.size
        ));
    }
    let bytes = std::fs::read(&file.path).map_err(|e| format!("cannot read: {e}"))?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err("binary content (NUL bytes), not text".to_string());
    }
    let source = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let extracted = extract::extract(file.kind, &source);
    let title = if extracted.title.is_empty() {
        file.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        extracted.title
    };
    let path = file.path.to_str().ok_or("the path is not valid UTF-8")?;
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, path);
    doc.add_text(fields.title, &title);
    doc.add_text(fields.body, &extracted.body);
    doc.add_i64(fields.mtime, file.mtime_ns);
    doc.add_u64(fields.size, file.size);
    Ok(doc)
}

impl Inner {
    fn err(&self, e: TantivyError) -> LocalIndexError {
        index_err(&self.dir, e)
    }

    fn writer(&self) -> Result<IndexWriter, LocalIndexError> {
        self.index
            .writer_with_num_threads(1, WRITER_BUDGET)
            .map_err(|e| self.err(e))
    }

    fn path_term(&self, path: &Path) -> Term {
        Term::from_field_text(self.fields.path, &path.to_string_lossy())
    }

    /// Every indexed document's path, modification time and size.
    fn indexed_docs(&self) -> Result<HashMap<PathBuf, (i64, u64)>, LocalIndexError> {
        let searcher: Searcher = self.reader.searcher();
        let mut out = HashMap::with_capacity(searcher.num_docs() as usize);
        let mut buf = String::new();
        for segment in searcher.segment_readers() {
            let ff = segment.fast_fields();
            let Some(paths) = ff.str("path").map_err(|e| self.err(e))? else {
                continue;
            };
            let mtimes = ff.i64("mtime_ns").map_err(|e| self.err(e))?;
            let sizes = ff.u64("size").map_err(|e| self.err(e))?;
            for doc in segment.doc_ids_alive() {
                let Some(ord) = paths.term_ords(doc).next() else {
                    continue;
                };
                buf.clear();
                paths
                    .ord_to_str(ord, &mut buf)
                    .map_err(|e| io_err(&self.dir, e))?;
                out.insert(
                    PathBuf::from(&buf),
                    (
                        mtimes.first(doc).unwrap_or(0),
                        sizes.first(doc).unwrap_or(0),
                    ),
                );
            }
        }
        Ok(out)
    }

    /// Commit `writer`'s changes and make them visible to searches.
    fn commit(&self, mut writer: IndexWriter) -> Result<(), LocalIndexError> {
        writer.commit().map_err(|e| self.err(e))?;
        writer.wait_merging_threads().map_err(|e| self.err(e))?;
        self.reader.reload().map_err(|e| self.err(e))
    }

    /// Index the folder `root`. `base_url`: `None` keeps the folder's
    /// setting, `Some(x)` sets it to `x`.
    fn index_root(
        &self,
        root: &Path,
        base_url: Option<Option<String>>,
    ) -> Result<IndexReport, LocalIndexError> {
        let started = Instant::now();
        let mut report = IndexReport::new(root);
        let mut roots = load_roots(&self.dir)?;
        let known = self.indexed_docs()?;
        let found = walk::walk(root);
        report.failed.extend(found.failures);

        let (work, seen) = files_to_read(found.files, &known, &mut report);
        let stale = stale_paths(root, &roots, &known, &seen);
        if !work.is_empty() || !stale.is_empty() {
            self.write_changes(work, stale, &mut report)?;
        }

        let before = known.keys().filter(|p| p.starts_with(root)).count() as u64;
        report.documents =
            (before + report.added.len() as u64).saturating_sub(report.removed.len() as u64);
        record_root(&mut roots, root, base_url, report.documents);
        save_roots(&self.dir, &roots)?;
        *lock(&self.roots) = roots;
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        tracing::info!(root = %root.display(), added = report.added.len(), updated = report.updated.len(),
            unchanged = report.unchanged, removed = report.removed.len(), failed = report.failed.len(),
            "local index updated");
        Ok(report)
    }

    /// Read each file of `work` into the index (replacing its old document)
    /// and delete the `stale` paths, in one commit.
    fn write_changes(
        &self,
        work: Vec<(walk::FoundFile, bool)>,
        stale: Vec<PathBuf>,
        report: &mut IndexReport,
    ) -> Result<(), LocalIndexError> {
        let writer = self.writer()?;
        for (file, is_new) in work {
            match read_document(&self.fields, &file) {
                Ok(doc) => {
                    writer.delete_term(self.path_term(&file.path));
                    writer.add_document(doc).map_err(|e| self.err(e))?;
                    if is_new {
                        report.added.push(file.path);
                    } else {
                        report.updated.push(file.path);
                    }
                }
                Err(reason) => report.failed.push(IndexFailure::new(&file.path, reason)),
            }
        }
        for path in &stale {
            writer.delete_term(self.path_term(path));
        }
        report.removed = stale;
        self.commit(writer)
    }

    /// Remove the documents under `root` that no other indexed folder holds;
    /// forget `root` unless `keep_root`.
    fn remove_docs(&self, root: &Path, keep_root: bool) -> Result<IndexReport, LocalIndexError> {
        let started = Instant::now();
        let mut roots = load_roots(&self.dir)?;
        if !roots.iter().any(|r| r.path == root) {
            return Err(LocalIndexError::NotARoot {
                path: root.to_path_buf(),
                indexed: roots
                    .iter()
                    .map(|r| r.path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let others: Vec<PathBuf> = roots
            .iter()
            .filter(|r| r.path != root && r.path.starts_with(root))
            .map(|r| r.path.clone())
            .collect();
        let known = self.indexed_docs()?;
        let mut doomed: Vec<PathBuf> = known
            .keys()
            .filter(|p| p.starts_with(root) && !others.iter().any(|o| p.starts_with(o)))
            .cloned()
            .collect();
        doomed.sort();
        if !doomed.is_empty() {
            let writer = self.writer()?;
            for p in &doomed {
                writer.delete_term(self.path_term(p));
            }
            self.commit(writer)?;
        }
        let mut report = IndexReport::new(root);
        report.documents =
            known.keys().filter(|p| p.starts_with(root)).count() as u64 - doomed.len() as u64;
        report.removed = doomed;
        if keep_root {
            if let Some(r) = roots.iter_mut().find(|r| r.path == root) {
                r.documents = report.documents;
                r.indexed_at = Utc::now();
            }
        } else {
            roots.retain(|r| r.path != root);
        }
        save_roots(&self.dir, &roots)?;
        *lock(&self.roots) = roots;
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    fn search(
        &self,
        request: &EngineRequest,
        limit: usize,
    ) -> Result<EngineResponse, LocalIndexError> {
        let f = self.fields;
        let searcher = self.reader.searcher();
        let (query, mut warnings) = self.parse_query(request);
        if let Some(site) = &request.site {
            warnings.push(format!(
                "local: site restriction {site} not applied (this engine searches local files)"
            ));
        }
        let top_docs = TopDocs::with_limit(limit).and_offset(request.offset(limit));
        let top = searcher
            .search(&query, &top_docs.order_by_score())
            .map_err(|e| self.err(e))?;
        let mut snippets =
            SnippetGenerator::create(&searcher, &*query, f.body).map_err(|e| self.err(e))?;
        snippets.set_max_num_chars(SNIPPET_CHARS);
        let roots = lock(&self.roots).clone();

        let mut hits = Vec::with_capacity(top.len());
        for (_score, address) in top {
            let doc: TantivyDocument = searcher.doc(address).map_err(|e| self.err(e))?;
            let rank = u32::try_from(hits.len() + 1).unwrap_or(u32::MAX);
            match self.hit_from_doc(&doc, rank, &roots, &snippets) {
                Ok(hit) => hits.push(hit),
                Err(path) => warnings.push(format!(
                    "local: {} has no URL form; skipped",
                    path.display()
                )),
            }
        }
        Ok(EngineResponse {
            hits,
            answer: None,
            warnings,
            provenance: Provenance::public(Runtime::Local),
        })
    }

    /// The request's query over title (boosted) and body — parsed leniently,
    /// with a warning per ignored part — limited to files modified within
    /// its freshness window and its since/until range.
    fn parse_query(&self, request: &EngineRequest) -> (Box<dyn Query>, Vec<String>) {
        let f = self.fields;
        let mut parser = QueryParser::for_index(&self.index, vec![f.title, f.body]);
        parser.set_field_boost(f.title, TITLE_BOOST);
        let (query, errors) = parser.parse_query_lenient(&request.query);
        let warnings = errors
            .iter()
            .map(|e| format!("local: part of the query was ignored: {e}"))
            .collect();
        let query: Box<dyn Query> = match mtime_bounds(request) {
            (Bound::Unbounded, Bound::Unbounded) => query,
            (lower, upper) => {
                let term = |ns| Term::from_field_i64(f.mtime, ns);
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, query),
                    (
                        Occur::Must,
                        Box::new(RangeQuery::new(lower.map(term), upper.map(term))),
                    ),
                ]))
            }
        };
        (query, warnings)
    }

    /// The hit for one matched document, or its path when it has no URL form.
    fn hit_from_doc(
        &self,
        doc: &TantivyDocument,
        rank: u32,
        roots: &[IndexedRoot],
        snippets: &SnippetGenerator,
    ) -> Result<EngineHit, PathBuf> {
        let f = self.fields;
        let text = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let path = PathBuf::from(text(f.path));
        let Some(url) = url_for(roots, &path) else {
            return Err(path);
        };
        let body = text(f.body);
        let fragment = snippets.snippet(&body);
        let mut snippet = lead(fragment.fragment(), SNIPPET_CHARS);
        if snippet.is_empty() {
            snippet = lead(&body, SNIPPET_CHARS);
        }
        let published_at = doc
            .get_first(f.mtime)
            .and_then(|v| v.as_i64())
            .filter(|ns| *ns > 0)
            .map(|ns| {
                DateTime::<Utc>::from_timestamp_nanos(ns).to_rfc3339_opts(SecondsFormat::Secs, true)
            });
        let mut hit = EngineHit::new(rank, url, text(f.title), snippet);
        hit.published_at = published_at;
        Ok(hit)
    }
}

#[async_trait]
impl Engine for LocalIndex {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            max_results: self.max_results,
            ..EngineCapabilities::new(EngineKind::Local).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        if !tokenizer::has_tokens(&request.query) {
            return Err(EngineError::invalid_query(format!(
                "the query {:?} has no letters, digits or CJK characters to search for",
                request.query
            )));
        }
        let inner = self.inner.clone();
        let request = request.clone();
        let limit = request.max_results.min(self.max_results);
        blocking(move || inner.search(&request, limit))
            .await
            .map_err(EngineError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_urls_are_the_absolute_path_under_the_reserved_host() {
        let url = local_url(Path::new("/home/me/notes/a b#1.md")).unwrap();
        assert_eq!(url, "https://local.invalid/home/me/notes/a%20b%231.md");
        let parsed = Url::parse(&url).unwrap();
        assert_eq!(parsed.host_str(), Some(LOCAL_HOST));
        assert!(local_url(Path::new("relative.md")).is_none());
    }

    #[test]
    fn published_urls_join_the_relative_path() {
        let url = published_url(
            "https://docs.example.com/guide/",
            Path::new("/srv/docs"),
            Path::new("/srv/docs/cli/a b.md"),
        )
        .unwrap();
        assert_eq!(url, "https://docs.example.com/guide/cli/a%20b.md");
    }

    #[test]
    fn base_urls_must_be_http_and_end_in_a_slash() {
        let ok = check_base_url(&Url::parse("https://docs.example.com/guide").unwrap()).unwrap();
        assert_eq!(ok, "https://docs.example.com/guide/");
        assert!(check_base_url(&Url::parse("file:///srv/docs/").unwrap()).is_err());
        assert!(check_base_url(&Url::parse("https://x.example/?q=1").unwrap()).is_err());
    }

    #[test]
    fn lead_cuts_at_a_word() {
        assert_eq!(lead("one  two\nthree", 100), "one two three");
        assert_eq!(lead("alpha beta gamma delta", 12), "alpha beta");
    }
}
