//! Finding the files of an indexed folder.
//!
//! Recursive, in sorted order. Hidden entries (a name starting with `.`,
//! which covers `.git/`) and build or dependency folders
//! ([`SKIPPED_DIRS`]) are skipped. Symbolic links to files are indexed;
//! links to folders are not followed (no loops, no escaping the folder).
//! A folder or file that cannot be read is reported, not skipped silently.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::extract::DocKind;
use super::report::IndexFailure;

/// Folder names never descended into.
pub const SKIPPED_DIRS: &[&str] = &["target", "node_modules"];

/// A file to index, with what change detection compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Its path (under the walked folder).
    pub path: PathBuf,
    /// Its kind.
    pub kind: DocKind,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Size in bytes.
    pub size: u64,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Indexable files.
    pub files: Vec<FoundFile>,
    /// Entries that could not be read.
    pub failures: Vec<IndexFailure>,
}

fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

/// Modification time in nanoseconds since the epoch (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The kind of the file at `path`, if it is one the index reads (by
/// extension; hidden files are not).
pub fn indexable_kind(path: &Path) -> Option<DocKind> {
    let name = path.file_name()?.to_str()?;
    if is_hidden(name) {
        return None;
    }
    DocKind::from_extension(path.extension()?.to_str()?)
}

/// Walk `root` (a directory).
pub fn walk(root: &Path) -> Walk {
    let mut out = Walk::default();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Some(entries) = out.sorted_entries(&dir) else {
            continue;
        };
        let mut subdirs = Vec::new();
        for entry in entries {
            if let Some(subdir) = out.visit(entry) {
                subdirs.push(subdir);
            }
        }
        // Depth-first, in name order.
        stack.extend(subdirs.into_iter().rev());
    }
    out
}

impl Walk {
    /// The entries of `dir` in name order, recording what cannot be read;
    /// `None` when the folder itself cannot.
    fn sorted_entries(&mut self, dir: &Path) -> Option<Vec<std::fs::DirEntry>> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.failures.push(IndexFailure::new(
                    dir,
                    format!("cannot read the folder: {e}"),
                ));
                return None;
            }
        };
        let mut entries: Vec<_> = entries
            .filter_map(|e| match e {
                Ok(e) => Some(e),
                Err(err) => {
                    self.failures.push(IndexFailure::new(
                        dir,
                        format!("cannot list an entry: {err}"),
                    ));
                    None
                }
            })
            .collect();
        entries.sort_by_key(|e| e.file_name());
        Some(entries)
    }

    /// Record one entry: a file to index, a failure, or nothing; returns the
    /// path of a folder to descend into.
    fn visit(&mut self, entry: std::fs::DirEntry) -> Option<PathBuf> {
        let path = entry.path();
        let name = entry.file_name();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                self.failures
                    .push(IndexFailure::new(&path, format!("cannot stat: {e}")));
                return None;
            }
        };
        let Some(name) = name.to_str() else {
            self.non_utf8_name(&path, &name, file_type.is_dir());
            return None;
        };
        if is_hidden(name) {
            return None;
        }
        if file_type.is_dir() {
            return (!SKIPPED_DIRS.contains(&name)).then_some(path);
        }
        let kind = indexable_kind(&path)?;
        self.add_file(path, kind);
        None
    }

    /// Paths are stored and put in URLs as UTF-8: a folder or indexable file
    /// whose name is not is reported and skipped.
    fn non_utf8_name(&mut self, path: &Path, name: &std::ffi::OsStr, is_dir: bool) {
        let indexable = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .and_then(DocKind::from_extension)
            .is_some();
        if is_dir || indexable {
            self.failures.push(IndexFailure::new(
                path,
                "the name is not valid UTF-8; skipped (rename it to index it)",
            ));
        }
    }

    /// Record an indexable file with its change-detection stamps.
    fn add_file(&mut self, path: PathBuf, kind: DocKind) {
        // Follows a symlink to its file; a link to a folder is not a file.
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => self.files.push(FoundFile {
                mtime_ns: mtime_ns(&meta),
                size: meta.len(),
                path,
                kind,
            }),
            Ok(_) => {}
            Err(e) => self
                .failures
                .push(IndexFailure::new(&path, format!("cannot stat: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_hidden_build_and_unknown_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for p in [
            "a.md",
            "b.TXT",
            "c.rs",
            ".hidden.md",
            "sub/d.html",
            "sub/deeper/e.htm",
            ".git/f.md",
            "target/g.md",
            "node_modules/x/h.md",
            ".config/i.md",
        ] {
            let path = root.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
        }
        let w = walk(root);
        let names: Vec<String> = w
            .files
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(
            names,
            vec!["a.md", "b.TXT", "sub/d.html", "sub/deeper/e.htm"]
        );
        assert!(w.failures.is_empty());
        assert!(w.files.iter().all(|f| f.size == 1 && f.mtime_ns > 0));
    }
}
