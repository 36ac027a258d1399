//! The built-in packages: every folder under `crates/site-skills/sites/`,
//! embedded in the binary at build time and validated by the same rules as
//! a package on disk when a [`crate::Registry`] is built.

use std::collections::BTreeMap;

use include_dir::{Dir, include_dir};

use crate::package::{Package, load_embedded};
use crate::violation::ValidationError;

static SITES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/sites");

/// The ids (folder names) of the embedded packages, sorted.
pub fn builtin_ids() -> Vec<String> {
    let mut ids: Vec<String> = SITES
        .dirs()
        .filter_map(|d| d.path().file_name()?.to_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// Validate and load every embedded package, by folder name.
pub fn load_builtins() -> BTreeMap<String, Result<Package, ValidationError>> {
    let mut out = BTreeMap::new();
    for dir in SITES.dirs() {
        let Some(folder) = dir.path().file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let mut files = BTreeMap::new();
        collect(dir, dir, &mut files);
        out.insert(folder.to_string(), load_embedded(folder, &files));
    }
    out
}

fn collect(
    root: &'static Dir<'static>,
    dir: &'static Dir<'static>,
    files: &mut BTreeMap<String, &'static [u8]>,
) {
    for file in dir.files() {
        if let Ok(rel) = file.path().strip_prefix(root.path())
            && let Some(rel) = rel.to_str()
        {
            files.insert(rel.replace('\\', "/"), file.contents());
        }
    }
    for sub in dir.dirs() {
        collect(root, sub, files);
    }
}
