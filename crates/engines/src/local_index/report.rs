//! What indexing a folder did ([`IndexReport`]), the folders an index holds
//! ([`IndexedRoot`]) and how a folder's hits are addressed ([`RootOptions`]).

use std::fmt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use url::Url;

/// A file or folder that could not be indexed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexFailure {
    /// The file or folder.
    pub path: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl IndexFailure {
    /// A failure of `path`.
    pub fn new(path: impl AsRef<Path>, reason: impl Into<String>) -> Self {
        IndexFailure {
            path: path.as_ref().to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// What one [`LocalIndex::add_dir`](super::LocalIndex::add_dir) (or
/// refresh, or removal) did to one folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexReport {
    /// The folder (absolute, symlinks resolved).
    pub root: PathBuf,
    /// Files indexed for the first time.
    pub added: Vec<PathBuf>,
    /// Files re-indexed because their size or modification time changed.
    pub updated: Vec<PathBuf>,
    /// Files skipped because nothing changed.
    pub unchanged: usize,
    /// Files dropped from the index (deleted, moved away, or the folder was
    /// removed).
    pub removed: Vec<PathBuf>,
    /// Files or folders that could not be read, with reasons. A file that
    /// was indexed before and fails now keeps its previous version.
    pub failed: Vec<IndexFailure>,
    /// Documents from this folder in the index afterwards.
    pub documents: u64,
    /// How long it took, in milliseconds.
    pub elapsed_ms: u64,
}

impl IndexReport {
    pub(crate) fn new(root: &Path) -> Self {
        IndexReport {
            root: root.to_path_buf(),
            added: Vec::new(),
            updated: Vec::new(),
            unchanged: 0,
            removed: Vec::new(),
            failed: Vec::new(),
            documents: 0,
            elapsed_ms: 0,
        }
    }

    /// Whether the index changed.
    pub fn changed(&self) -> bool {
        !(self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty())
    }
}

impl fmt::Display for IndexReport {
    /// One line: `<root>: 3 added, 1 updated, 10 unchanged, 0 removed, 1 failed (14 documents)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} added, {} updated, {} unchanged, {} removed, {} failed ({} documents)",
            self.root.display(),
            self.added.len(),
            self.updated.len(),
            self.unchanged,
            self.removed.len(),
            self.failed.len(),
            self.documents
        )
    }
}

/// How hits from one indexed folder are addressed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootOptions {
    /// Where the folder is published, e.g. `https://docs.example.com/guide/`:
    /// a hit for `<folder>/a/b.md` then links to `<base_url>a/b.md`.
    /// Without one, hits use the local address
    /// `https://local.invalid/<absolute path>` (see the module docs).
    pub base_url: Option<Url>,
}

impl RootOptions {
    /// Options with hits addressed under `base_url`.
    pub fn with_base_url(base_url: Url) -> Self {
        RootOptions {
            base_url: Some(base_url),
        }
    }
}

/// A folder the index holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedRoot {
    /// The folder (absolute, symlinks resolved).
    pub path: PathBuf,
    /// Where it is published, if set (an absolute http(s) URL ending in `/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// When it was last indexed.
    pub indexed_at: DateTime<Utc>,
    /// Documents from it after that run.
    pub documents: u64,
}
