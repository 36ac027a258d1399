//! A validated package ([`Package`]) and the two ways to load one: from a
//! folder on disk ([`load_dir`], the file-system rules: no symlink leading
//! out, regular files, size limits) and from files embedded at build time
//! ([`load_embedded`]). Both apply the same manifest rules and read every
//! resource once, at load: what runs later is what was checked.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::domain::{DomainPattern, normalize_host};
use crate::manifest::{
    BrowserTool, MANIFEST_FILE, MAX_MANIFEST_BYTES, MAX_PACKAGE_BYTES, MAX_RESOURCE_BYTES,
    Manifest, parse_manifest, path_problem,
};
use crate::violation::{Rule, ValidationError, Violation};

/// Where a package came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum Origin {
    /// Embedded in the binary at build time (`crates/site-skills/sites/<id>`).
    BuiltIn,
    /// `$FERRET_SITE_SKILLS_DIR/<id>`.
    SiteSkillsDir(PathBuf),
    /// `$FERRET_HOME/site-skills/<id>`.
    Home(PathBuf),
    /// A folder loaded directly (`ferret skills validate <dir>`).
    Directory(PathBuf),
}

impl Origin {
    /// `built_in`, `site_skills_dir`, `home` or `directory`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::BuiltIn => "built_in",
            Origin::SiteSkillsDir(_) => "site_skills_dir",
            Origin::Home(_) => "home",
            Origin::Directory(_) => "directory",
        }
    }

    /// The folder, for packages loaded from disk.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Origin::BuiltIn => None,
            Origin::SiteSkillsDir(p) | Origin::Home(p) | Origin::Directory(p) => Some(p),
        }
    }
}

/// A Markdown note as handed to an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// Its path in the package.
    pub path: String,
    /// Its text.
    pub content: String,
}

/// A validated package: its manifest, parsed domains and every resource's
/// text.
#[derive(Debug, Clone)]
pub struct Package {
    manifest: Manifest,
    patterns: Vec<DomainPattern>,
    resources: BTreeMap<String, String>,
    origin: Origin,
}

impl Package {
    /// The id.
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// The display name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The parsed domain patterns.
    pub fn patterns(&self) -> &[DomainPattern] {
        &self.patterns
    }

    /// Where it came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// A declared browser tool.
    pub fn tool(&self, name: &str) -> Option<&BrowserTool> {
        self.manifest.browser_tools.get(name)
    }

    /// The text of a resource the manifest names.
    pub fn resource(&self, path: &str) -> Option<&str> {
        self.resources.get(path).map(String::as_str)
    }

    /// The notes, in manifest order.
    pub fn notes(&self) -> Vec<Note> {
        self.manifest
            .notes
            .iter()
            .map(|path| Note {
                path: path.clone(),
                content: self.resources.get(path).cloned().unwrap_or_default(),
            })
            .collect()
    }

    /// Whether a hostname (any spelling: case, trailing dot, Unicode or
    /// punycode) is covered by one of the domains.
    pub fn covers_host(&self, host: &str) -> bool {
        normalize_host(host).is_some_and(|h| self.covers_normalized(&h))
    }

    pub(crate) fn covers_normalized(&self, host: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(host))
    }
}

/// Load and validate the package in folder `dir` (the folder's name must be
/// the id), reading it from the real file system.
pub fn load_dir(dir: &Path, origin: Origin) -> Result<Package, ValidationError> {
    let label = dir.display().to_string();
    let fail = |v: Vec<Violation>| ValidationError {
        package: label.clone(),
        violations: v,
    };
    let folder = dir.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let meta = match fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) => {
            return Err(fail(vec![Violation::new(
                ".",
                "",
                Rule::MissingFile,
                format!("cannot read the package folder: {e}"),
            )]));
        }
    };
    if meta.file_type().is_symlink() {
        return Err(fail(vec![Violation::new(
            ".",
            "",
            Rule::PackageSymlink,
            "the package folder is a symbolic link; put the real folder there",
        )]));
    }
    if !meta.is_dir() {
        return Err(fail(vec![Violation::new(
            ".",
            "",
            Rule::PackageNotDirectory,
            "a package is a folder holding manifest.json",
        )]));
    }
    let root = match fs::canonicalize(dir) {
        Ok(r) => r,
        Err(e) => {
            return Err(fail(vec![Violation::new(
                ".",
                "",
                Rule::Unreadable,
                format!("cannot resolve the package folder: {e}"),
            )]));
        }
    };
    let manifest_bytes = match read_inside(&root, MANIFEST_FILE, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(v) => return Err(fail(vec![v])),
    };
    let parsed = parse_manifest(&manifest_bytes, folder.as_deref()).map_err(&fail)?;
    let mut violations = Vec::new();
    let mut resources = BTreeMap::new();
    let mut budget = PackageBudget::default();
    for path in parsed.manifest.resource_paths() {
        // Once the budget is spent (and reported), the other files are not read.
        let Some(left) = budget.left() else { break };
        let limit = left.min(MAX_RESOURCE_BYTES);
        let read = read_inside(&root, &path, limit)
            .map_err(|v| budget.explain(v, limit))
            .and_then(|b| budget.take(&path, b))
            .and_then(|b| utf8(&path, b));
        match read {
            Ok(text) => {
                resources.insert(path, text);
            }
            Err(v) => violations.push(v),
        }
    }
    if !violations.is_empty() {
        return Err(fail(violations));
    }
    Ok(Package {
        manifest: parsed.manifest,
        patterns: parsed.patterns,
        resources,
        origin,
    })
}

/// Validate an embedded package: `files` maps each path in the package to
/// its bytes; `folder` is the package folder's name.
pub fn load_embedded(
    folder: &str,
    files: &BTreeMap<String, &[u8]>,
) -> Result<Package, ValidationError> {
    let fail = |v: Vec<Violation>| ValidationError {
        package: format!("built-in:{folder}"),
        violations: v,
    };
    let Some(manifest_bytes) = files.get(MANIFEST_FILE) else {
        return Err(fail(vec![Violation::new(
            MANIFEST_FILE,
            "",
            Rule::MissingFile,
            "the package has no manifest.json",
        )]));
    };
    let parsed = parse_manifest(manifest_bytes, Some(folder)).map_err(&fail)?;
    let mut violations = Vec::new();
    let mut resources = BTreeMap::new();
    let mut budget = PackageBudget::default();
    for path in parsed.manifest.resource_paths() {
        // Once the budget is spent (and reported), the other files are not read.
        if budget.left().is_none() {
            break;
        }
        let result = match files.get(&path) {
            None => Err(Violation::new(
                path.clone(),
                "",
                Rule::MissingFile,
                format!("{path:?} is named by the manifest but is not in the package"),
            )),
            Some(bytes) if bytes.len() as u64 > MAX_RESOURCE_BYTES => {
                Err(too_large(&path, bytes.len() as u64, MAX_RESOURCE_BYTES))
            }
            Some(bytes) => budget
                .take(&path, bytes.to_vec())
                .and_then(|b| utf8(&path, b)),
        };
        match result {
            Ok(text) => {
                resources.insert(path, text);
            }
            Err(v) => violations.push(v),
        }
    }
    if !violations.is_empty() {
        return Err(fail(violations));
    }
    Ok(Package {
        manifest: parsed.manifest,
        patterns: parsed.patterns,
        resources,
        origin: Origin::BuiltIn,
    })
}

/// The bytes a package's notes and scripts may still take before they reach
/// [`MAX_PACKAGE_BYTES`] together.
#[derive(Default)]
struct PackageBudget {
    used: u64,
    over: bool,
}

impl PackageBudget {
    /// The bytes left, `None` once the budget is exhausted (nothing more is
    /// read).
    fn left(&self) -> Option<u64> {
        (!self.over).then(|| MAX_PACKAGE_BYTES - self.used)
    }

    /// Count `bytes` of `path` against the budget; past it the file is
    /// refused and nothing more is read.
    fn take(&mut self, path: &str, bytes: Vec<u8>) -> Result<Vec<u8>, Violation> {
        let size = bytes.len() as u64;
        if self.used + size > MAX_PACKAGE_BYTES {
            self.over = true;
            return Err(package_too_large(path));
        }
        self.used += size;
        Ok(bytes)
    }

    /// A file refused for being over `limit` when `limit` was the budget
    /// left, not the per-file limit, is the package's fault, not the file's.
    fn explain(&mut self, v: Violation, limit: u64) -> Violation {
        if v.rule == Rule::TooLarge && limit < MAX_RESOURCE_BYTES {
            self.over = true;
            return package_too_large(&v.file);
        }
        v
    }
}

fn package_too_large(path: &str) -> Violation {
    Violation::new(
        path,
        "",
        Rule::TooLarge,
        format!(
            "the package's notes and scripts hold more than {MAX_PACKAGE_BYTES} bytes (8 MiB) \
             together, counting {path:?}; shorten them or split the package"
        ),
    )
}

fn utf8(path: &str, bytes: Vec<u8>) -> Result<String, Violation> {
    String::from_utf8(bytes).map_err(|e| {
        Violation::new(
            path,
            "",
            Rule::NotUtf8,
            format!("the file is not UTF-8 text: {e}"),
        )
    })
}

fn too_large(path: &str, size: u64, limit: u64) -> Violation {
    let what = if limit == MAX_MANIFEST_BYTES {
        "256 KiB"
    } else {
        "1 MiB"
    };
    Violation::new(
        path,
        "",
        Rule::TooLarge,
        format!("the file is {size} bytes; at most {limit} ({what}) are allowed"),
    )
}

/// Read `relative` inside the canonical package folder `root`: the path must
/// pass the lexical rules, every symbolic link on the way must resolve inside
/// `root`, the target must be a regular file of at most `limit` bytes.
fn read_inside(root: &Path, relative: &str, limit: u64) -> Result<Vec<u8>, Violation> {
    if let Some((rule, message)) = path_problem(relative) {
        return Err(Violation::new(relative, "", rule, message));
    }
    let target = resolve_inside(root, relative)?;
    let meta = fs::metadata(&target).map_err(|e| unreadable(relative, e))?;
    if !meta.is_file() {
        return Err(Violation::new(
            relative,
            "",
            Rule::NotAFile,
            format!("{relative:?} is not a regular file"),
        ));
    }
    if meta.len() > limit {
        return Err(too_large(relative, meta.len(), limit));
    }
    read_capped(&target, relative, limit)
}

/// The real path of `relative` under `root`, following symbolic links on the
/// way; an error when it does not exist or a link leads out of `root`.
fn resolve_inside(root: &Path, relative: &str) -> Result<PathBuf, Violation> {
    let (current, through_link) = walk_segments(root, relative)?;
    let target = if through_link {
        fs::canonicalize(&current).map_err(|e| {
            Violation::new(
                relative,
                "",
                Rule::MissingFile,
                format!("{relative:?} is a symbolic link that leads nowhere: {e}"),
            )
        })?
    } else {
        current
    };
    if !target.starts_with(root) {
        return Err(Violation::new(
            relative,
            "",
            Rule::SymlinkEscape,
            format!(
                "{relative:?} is a symbolic link to {} outside the package; copy the file into \
                 the package instead",
                target.display()
            ),
        ));
    }
    Ok(target)
}

/// Join `relative` onto `root` one segment at a time, noting whether any
/// segment is a symbolic link. A missing segment is an error unless a link
/// came first (canonicalising then reports where the link leads).
fn walk_segments(root: &Path, relative: &str) -> Result<(PathBuf, bool), Violation> {
    let mut current = root.to_path_buf();
    let mut through_link = false;
    for segment in relative.split('/') {
        current.push(segment);
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => through_link = true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !through_link => {
                return Err(Violation::new(
                    relative,
                    "",
                    Rule::MissingFile,
                    format!("{relative:?} is named by the manifest but does not exist"),
                ));
            }
            Err(_) => break,
        }
    }
    Ok((current, through_link))
}

/// Read at most `limit` bytes of `target`: a file that grew past the limit
/// since it was measured is still refused.
fn read_capped(target: &Path, relative: &str, limit: u64) -> Result<Vec<u8>, Violation> {
    let file = fs::File::open(target).map_err(|e| unreadable(relative, e))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(relative, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(relative, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

fn unreadable(relative: &str, e: std::io::Error) -> Violation {
    Violation::new(
        relative,
        "",
        Rule::Unreadable,
        format!("cannot read {relative:?}: {e}"),
    )
}
