//! [`Registry`]: the installed packages, discovered by id or by hostname.
//!
//! Built-in packages come first; a whole package can then be replaced by id
//! at run time from two override roots, lowest precedence first:
//!
//! 1. `$FERRET_HOME/site-skills/<id>`
//! 2. `$FERRET_SITE_SKILLS_DIR/<id>`
//!
//! For each id the highest root that has a folder of that name decides. A
//! valid folder replaces (or adds) the package; an invalid one removes the id
//! altogether — fail closed, never falling back to an older version — and
//! the reason is kept in [`Registry::issues`]. A root holding more than
//! [`MAX_OVERRIDE_ENTRIES`] entries is not applied at all (an issue says
//! so; the built-in packages stay). The library takes the roots as
//! parameters ([`OverrideRoots`]); only [`Registry::from_env`] reads the
//! environment.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::domain::{host_of_url, normalize_host};
use crate::embedded::load_builtins;
use crate::manifest::{id_problem_message, is_valid_id};
use crate::package::{Origin, Package, load_dir};
use crate::violation::{Rule, Violation};

/// The environment variable naming the highest-precedence override root.
pub const SITE_SKILLS_DIR_ENV: &str = "FERRET_SITE_SKILLS_DIR";
/// The environment variable naming Ferret's data folder.
pub const HOME_ENV: &str = "FERRET_HOME";
/// The override folder's name under the Ferret home.
pub const HOME_SUBDIR: &str = "site-skills";
/// The most entries an override root may hold. A root with more is not
/// applied at all (an issue says why): the listing stops one entry past the
/// limit, so a folder of millions of entries costs nothing, and which
/// packages load never depends on the order the file system lists them in.
pub const MAX_OVERRIDE_ENTRIES: usize = 256;

/// Where override packages are looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OverrideRoots {
    /// `$FERRET_SITE_SKILLS_DIR`: packages here win over everything.
    pub site_skills_dir: Option<PathBuf>,
    /// `$FERRET_HOME`: packages in its `site-skills/` folder win over the
    /// built-in ones.
    pub home: Option<PathBuf>,
}

impl OverrideRoots {
    /// No overrides: built-in packages only.
    pub fn none() -> Self {
        OverrideRoots::default()
    }

    /// Set the `$FERRET_SITE_SKILLS_DIR` root.
    pub fn site_skills_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.site_skills_dir = Some(dir.into());
        self
    }

    /// Set the Ferret home (its `site-skills/` folder is the root).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// Roots from an environment lookup: `FERRET_SITE_SKILLS_DIR`,
    /// `FERRET_HOME` (else `$HOME/.local/share/ferret`). Empty values count
    /// as unset.
    pub fn from_env_with(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let non_empty = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        OverrideRoots {
            site_skills_dir: non_empty(SITE_SKILLS_DIR_ENV).map(PathBuf::from),
            home: non_empty(HOME_ENV).map(PathBuf::from).or_else(|| {
                non_empty("HOME").map(|h| PathBuf::from(h).join(".local/share/ferret"))
            }),
        }
    }
}

/// Something the registry skipped or removed while loading, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryIssue {
    /// The package id concerned, when the folder is named like one.
    pub id: Option<String>,
    /// Where (`built-in:<id>` or a folder).
    pub source: String,
    /// Whether the id was removed from the registry because of it.
    pub removed: bool,
    /// Every rule broken.
    pub violations: Vec<Violation>,
}

/// The installed packages.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    packages: BTreeMap<String, Arc<Package>>,
    issues: Vec<RegistryIssue>,
}

impl Registry {
    /// The built-in packages only.
    pub fn builtin() -> Self {
        Self::load(&OverrideRoots::none())
    }

    /// Built-in packages with the overrides under `roots` applied.
    pub fn load(roots: &OverrideRoots) -> Self {
        let mut registry = Registry::default();
        for (folder, loaded) in load_builtins() {
            match loaded {
                Ok(p) => {
                    registry.packages.insert(folder, Arc::new(p));
                }
                Err(e) => registry.issues.push(RegistryIssue {
                    id: Some(folder),
                    source: e.package,
                    removed: true,
                    violations: e.violations,
                }),
            }
        }
        if let Some(home) = &roots.home {
            registry.apply_root(&home.join(HOME_SUBDIR), Origin::Home);
        }
        if let Some(dir) = &roots.site_skills_dir {
            registry.apply_root(dir, Origin::SiteSkillsDir);
        }
        registry
    }

    /// Built-in packages with the overrides named by the environment
    /// (`FERRET_SITE_SKILLS_DIR`, `FERRET_HOME`). For the edges of a program.
    pub fn from_env() -> Self {
        Self::load(&OverrideRoots::from_env_with(|n| std::env::var(n).ok()))
    }

    /// A registry holding exactly `packages` (later ones with the same id
    /// win), for hosts that assemble packages themselves.
    pub fn from_packages(packages: impl IntoIterator<Item = Package>) -> Self {
        let mut registry = Registry::default();
        for p in packages {
            registry.packages.insert(p.id().to_string(), Arc::new(p));
        }
        registry
    }

    /// Apply every package folder of one override root, in name order.
    fn apply_root(&mut self, root: &Path, origin: fn(PathBuf) -> Origin) {
        let Some(names) = self.list_root(root) else {
            return;
        };
        for (name, path) in names {
            if !is_valid_id(&name) {
                self.issues.push(not_a_package(&name, &path));
                continue;
            }
            match load_dir(&path, origin(path.clone())) {
                Ok(package) => {
                    self.packages.insert(name, Arc::new(package));
                }
                Err(e) => {
                    self.packages.remove(&name);
                    tracing::warn!(
                        target: "ferret_site_skills",
                        id = %name,
                        error = %e,
                        "invalid site-skill override; the id is removed"
                    );
                    self.issues.push(RegistryIssue {
                        id: Some(name),
                        source: e.package,
                        removed: true,
                        violations: e.violations,
                    });
                }
            }
        }
    }

    /// The entries of an override root (UTF-8 names, sorted), `None` when
    /// there is nothing to apply: no such folder, an unreadable one, or one
    /// with more than [`MAX_OVERRIDE_ENTRIES`] entries (the issue is kept).
    fn list_root(&mut self, root: &Path) -> Option<Vec<(String, PathBuf)>> {
        let entries = match fs::read_dir(root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.issues.push(RegistryIssue {
                    id: None,
                    source: root.display().to_string(),
                    removed: false,
                    violations: vec![Violation::new(
                        ".",
                        "",
                        Rule::Unreadable,
                        format!("cannot list the override folder: {e}"),
                    )],
                });
                return None;
            }
        };
        let mut names: Vec<(String, PathBuf)> = Vec::new();
        for (listed, entry) in entries.flatten().enumerate() {
            if listed == MAX_OVERRIDE_ENTRIES {
                self.issues.push(crowded_root(root));
                return None;
            }
            let path = entry.path();
            match entry.file_name().into_string() {
                Ok(name) => names.push((name, path)),
                Err(_) => self.issues.push(RegistryIssue {
                    id: None,
                    source: path.display().to_string(),
                    removed: false,
                    violations: vec![Violation::new(
                        ".",
                        "",
                        Rule::FolderName,
                        "the folder name is not UTF-8, so it cannot be a package id; skipped",
                    )],
                }),
            }
        }
        names.sort();
        Some(names)
    }

    /// The package with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<Package>> {
        self.packages.get(id)
    }

    /// Every package, by id.
    pub fn packages(&self) -> impl Iterator<Item = &Arc<Package>> {
        self.packages.values()
    }

    /// The ids, sorted.
    pub fn ids(&self) -> Vec<&str> {
        self.packages.keys().map(String::as_str).collect()
    }

    /// How many packages are installed.
    pub fn len(&self) -> usize {
        self.packages.len()
    }

    /// Whether no package is installed.
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
    }

    /// What was skipped or removed while loading, with reasons.
    pub fn issues(&self) -> &[RegistryIssue] {
        &self.issues
    }

    /// The packages covering a hostname (any spelling: case, trailing dot,
    /// Unicode or punycode), by id.
    pub fn for_host(&self, host: &str) -> Vec<Arc<Package>> {
        match normalize_host(host) {
            Some(h) => self
                .packages
                .values()
                .filter(|p| p.covers_normalized(&h))
                .cloned()
                .collect(),
            None => Vec::new(),
        }
    }

    /// The packages covering an absolute URL's hostname.
    pub fn for_url(&self, url: &str) -> Vec<Arc<Package>> {
        host_of_url(url)
            .map(|h| self.for_host(&h))
            .unwrap_or_default()
    }
}

/// The issue of an override root with more than [`MAX_OVERRIDE_ENTRIES`]
/// entries (none of its packages is applied).
fn crowded_root(root: &Path) -> RegistryIssue {
    RegistryIssue {
        id: None,
        source: root.display().to_string(),
        removed: false,
        violations: vec![Violation::new(
            ".",
            "",
            Rule::TooLarge,
            format!(
                "the override folder holds more than {MAX_OVERRIDE_ENTRIES} entries; none of its \
                 packages was applied — keep only package folders there"
            ),
        )],
    }
}

/// The issue of an entry whose name cannot be a package id (a plain file,
/// a folder named otherwise); it is skipped.
fn not_a_package(name: &str, path: &Path) -> RegistryIssue {
    let is_plain_file = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let message = if is_plain_file {
        format!("{name:?} is a file, not a package folder; skipped")
    } else {
        format!(
            "{name:?} cannot be a package id ({}); skipped",
            id_problem_message(name)
        )
    };
    RegistryIssue {
        id: None,
        source: path.display().to_string(),
        removed: false,
        violations: vec![Violation::new(".", "", Rule::FolderName, message)],
    }
}
