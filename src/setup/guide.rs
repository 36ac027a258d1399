//! The user guide (`docs/`), embedded in the crate so that an installed
//! binary seeds its local index from any directory, with no source tree.

use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};

use crate::FerretError;

/// The guide's pages, as they were when this crate was built.
static GUIDE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/docs");

/// The embedded pages: (path inside the guide, contents).
pub fn pages() -> Vec<(&'static Path, &'static [u8])> {
    let mut out = Vec::new();
    collect(&GUIDE, &mut out);
    out.sort_by_key(|(path, _)| *path);
    out
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<(&'static Path, &'static [u8])>) {
    for file in dir.files() {
        out.push((file.path(), file.contents()));
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Write the guide to `<home>/guide` and return that folder. A page whose
/// file already holds the same bytes is left untouched (so the index sees
/// nothing changed); a page that differs is rewritten.
pub fn write_to(home: &Path) -> Result<PathBuf, FerretError> {
    let root = home.join("guide");
    for (path, contents) in pages() {
        let target = root.join(path);
        if std::fs::read(&target).is_ok_and(|old| old == contents) {
            continue;
        }
        write_page(&target, contents)?;
    }
    Ok(root)
}

fn write_page(target: &Path, contents: &[u8]) -> Result<(), FerretError> {
    let io = |e: std::io::Error| FerretError::Io {
        path: target.display().to_string(),
        message: format!("cannot write the user guide: {e}"),
    };
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(target, contents).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_is_embedded_and_written_once() {
        assert!(pages().iter().any(|(p, _)| p.ends_with("README.md")));
        let home = tempfile::tempdir().unwrap();
        let root = write_to(home.path()).unwrap();
        let readme = root.join("README.md");
        let first = std::fs::metadata(&readme).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_to(home.path()).unwrap();
        assert_eq!(
            std::fs::metadata(&readme).unwrap().modified().unwrap(),
            first
        );
    }
}
