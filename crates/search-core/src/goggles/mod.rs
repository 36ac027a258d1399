//! Brave Goggles: re-ranking rules written in Brave's Goggles language,
//! applied to fused results, and the **FinalScore** ordering (domain
//! goggles plus source tiers).
//!
//! ```
//! use ferret_core::goggles::{Goggle, Subject, Verdict};
//!
//! let goggle = Goggle::parse(
//!     "! name: demo\n! description: d\n! public: false\n! author: me\n\
//!      $boost=3,site=docs.rs\n/ads/$discard\n",
//! )
//! .unwrap();
//! let verdict = goggle.verdict(&Subject::new("https://docs.rs/tokio", "tokio", ""));
//! assert!(matches!(verdict, Verdict::Boost { strength: 3, .. }));
//! assert!(Goggle::builtin("general-tech").is_some());
//! ```
//!
//! The pieces:
//!
//! - [`Goggle::parse`] / [`Goggle::from_file`] / [`Goggle::builtin`] /
//!   [`Goggle::resolve`] (`ferret search --goggle FILE|NAME`): the language,
//!   as Brave documents it; every
//!   problem is a typed [`GoggleError`] with its line, and all are
//!   collected ([`GoggleErrors`]).
//! - [`Pattern`]: `*`, `^` and `|` anchors compiled to a matcher that is
//!   linear per segment by construction ([`pattern`] explains why).
//! - [`Goggle::verdict`]: what the goggle does to one result
//!   ([`Verdict`]), with Brave's precedence.
//! - [`apply`] ([`final_score`]): FinalScore ordering, discards kept aside
//!   ([`Discarded`]), conflict flags ([`conflict`]).
//! - [`presets`]: the five built-in goggles (general-tech, academic,
//!   product-research, security, zh-tech), written in the language under
//!   `crates/search-core/data/goggles/`.
//!
//! ## The language (as parsed here)
//!
//! - A line is empty (ignored), a comment (`! …`), metadata (`! key: value`
//!   before the first instruction, for a known key), or an instruction.
//!   A `! key: value` line with an unknown key, or after the first
//!   instruction, is an ordinary comment (not documented; our choice).
//! - Metadata: `name`, `description`, `public` (`true`/`false`), `author`
//!   are required ([`GoggleErrorKind::MissingMetadata`]); `homepage` and
//!   `issues` must be http(s) URLs, `avatar` a `#rgb`/`#rrggbb` colour,
//!   `transferred_to` and `license` are free text. A key given twice and an
//!   empty value are errors (not documented; our choice).
//! - Instruction: `pattern? ($ option (, option)*)?`. The options start at
//!   the **last** `$` of the line (how a `$` in a pattern is handled is not
//!   documented: here a pattern may hold `$` only on a line that also has
//!   options). The pattern is not trimmed. Options, in any order, are
//!   case-sensitive: `site=DOMAIN`, one target (`inurl` — the default —,
//!   `intitle`, `indescription`, `incontent`), one action (`boost[=N]`,
//!   `downrank[=N]`, `discard`; none means `boost`). N is 1–10 and
//!   defaults to 1 (the docs only give the maximum; 0 is rejected since it
//!   would do nothing). An unknown option, a second action / target /
//!   `site=`, an empty option, a value on an option that takes none, a
//!   target without a pattern and an invalid `site=` domain are errors
//!   (our choices; unknown options are rejected as the test material
//!   expects).
//! - Limits ([`GoggleErrorKind`]): file ≤ [`MAX_FILE_BYTES`] (2 MB read as
//!   2 MiB), ≤ [`MAX_INSTRUCTIONS`] instructions, ≤ [`MAX_INSTRUCTION_CHARS`]
//!   characters per instruction, ≤ [`MAX_WILDCARDS`] `*` and ≤
//!   [`MAX_CARETS`] `^` per instruction, strength ≤ [`MAX_STRENGTH`].
//!   [`Goggle::from_file`] reads only regular files, incrementally and never
//!   past the byte limit ([`GoggleLoadError::NotAFile`],
//!   [`GoggleLoadError::TooLarge`]): `/dev/zero` or a FIFO given as a
//!   goggle is refused, not read.
//!
//! ## What a goggle does to a result ([`Goggle::verdict`])
//!
//! - An instruction matches when its `site=` (if any) is a host suffix of
//!   the result on a label boundary (`site=github.io` covers
//!   `me.github.io`, `site=rs` covers `docs.rs`; a leading `www.` is
//!   ignored) **and** its pattern (if any) matches its target: `inurl` the
//!   URL (the engine's and the canonical one, see [`Subject`]), `intitle`
//!   the title, `indescription` the snippet, `incontent` the page text when
//!   known, else the snippet. An instruction with neither pattern nor site
//!   matches every result.
//! - Several matches: a (non-generic) `discard` wins; else the strongest
//!   `boost`; else the weakest `downrank` (a boost always beats a
//!   downrank); equal strengths go to the instruction written first.
//! - The generic `$discard` (no pattern, no site) drops the results that
//!   no other instruction matches (an allow-list).

pub mod conflict;
mod error;
pub mod final_score;
mod parse;
pub mod pattern;
mod prefilter;
pub mod presets;
mod rules;

use prefilter::Prefilter;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use error::{GoggleError, GoggleErrorKind, GoggleErrors, GoggleLoadError};
pub use final_score::{
    Applied, BOOST_WEIGHT_PER_STRENGTH, DOWNRANK_WEIGHT_PER_STRENGTH, Discarded, FLAG_CONFLICT,
    FLAG_LOW_SOURCE_QUALITY, FLAG_T1_VS_COMMUNITY, SourceTier, apply, apply_until, goggle_weight,
};
pub use parse::{OPTIONAL_METADATA, REQUIRED_METADATA};
pub use pattern::Pattern;
pub use rules::{Action, Instruction, Subject, Target, Verdict};

use rules::{Precedence, host_on_site};

/// The largest goggle file, in bytes (Brave's limit of 2 MB, read as 2 MiB).
pub const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// The most instructions a goggle may hold.
pub const MAX_INSTRUCTIONS: usize = 100_000;
/// The most characters one instruction may have.
pub const MAX_INSTRUCTION_CHARS: usize = 500;
/// The most `*` wildcards one instruction may have.
pub const MAX_WILDCARDS: usize = 2;
/// The most `^` separators one instruction may have.
pub const MAX_CARETS: usize = 2;
/// The largest `boost=N` / `downrank=N` strength.
pub const MAX_STRENGTH: u8 = 10;

/// A goggle's `! key: value` metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// `name` (required).
    pub name: String,
    /// `description` (required).
    pub description: String,
    /// `public` (required): listed on Brave's discovery page or not.
    pub public: bool,
    /// `author` (required).
    pub author: String,
    /// `homepage`, an http(s) URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// `issues`, an http(s) URL for bug reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<String>,
    /// `transferred_to`: ownership transfer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transferred_to: Option<String>,
    /// `avatar`, a hex colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// `license` of the instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
}

/// A parsed, validated goggle, indexed for matching: `site=`-only
/// instructions (97 % of real goggles) are looked up by host suffix; the
/// others go through one automaton of their required literals
/// (the prefilter), and only those whose literal occurs are matched in
/// full.
#[derive(Clone)]
pub struct Goggle {
    metadata: Metadata,
    instructions: Vec<Instruction>,
    /// The first generic `$discard`, if any.
    generic_discard: Option<usize>,
    /// `site=` instructions without a pattern, by site.
    by_site: HashMap<String, Vec<usize>>,
    /// Which of the other instructions (all but the generic `$discard`) can
    /// match a subject.
    prefilter: Prefilter,
}

impl PartialEq for Goggle {
    /// Two goggles are equal when their metadata and instructions are (the
    /// indexes are derived from them).
    fn eq(&self, other: &Goggle) -> bool {
        self.metadata == other.metadata && self.instructions == other.instructions
    }
}

impl fmt::Debug for Goggle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Goggle")
            .field("name", &self.metadata.name)
            .field("instructions", &self.instructions.len())
            .field("generic_discard", &self.generic_discard)
            .finish_non_exhaustive()
    }
}

impl Goggle {
    /// Parse goggle text. Every problem is reported, in line order.
    pub fn parse(text: &str) -> Result<Goggle, GoggleErrors> {
        let parsed = parse::parse_text(text)?;
        Ok(Goggle::index(parsed.metadata, parsed.instructions))
    }

    /// Parse goggle bytes (a file's content): like [`Self::parse`], with
    /// [`GoggleErrorKind::InvalidUtf8`] for bytes that are not UTF-8 and
    /// the size limit checked before decoding.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Goggle, GoggleErrors> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(GoggleErrors(vec![GoggleError::new(
                0,
                GoggleErrorKind::FileTooLarge,
                format!(
                    "the file has {} bytes; a goggle may have at most {MAX_FILE_BYTES} (2 MiB) — \
                     split it or remove instructions",
                    bytes.len()
                ),
            )]));
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Goggle::parse(text),
            Err(e) => Err(GoggleErrors(vec![GoggleError::new(
                0,
                GoggleErrorKind::InvalidUtf8,
                format!("the file is not UTF-8 ({e}); save it as UTF-8"),
            )])),
        }
    }

    /// Read and parse a `.goggle` file. Only a regular file is read
    /// ([`GoggleLoadError::NotAFile`] for a folder, a FIFO or a device), and
    /// at most [`MAX_FILE_BYTES`] of it: the read stops one byte past the
    /// limit ([`GoggleLoadError::TooLarge`]), so a file that grows while it
    /// is read, or a special file behind a link, cannot fill memory.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Goggle, GoggleLoadError> {
        let path = path.as_ref();
        let bytes = read_bounded(path)?;
        Goggle::parse_bytes(&bytes).map_err(|errors| GoggleLoadError::Invalid {
            path: path.to_path_buf(),
            errors,
        })
    }

    /// A built-in goggle by name (see [`presets::BUILTIN_NAMES`]), e.g.
    /// `Goggle::builtin("general-tech")`.
    pub fn builtin(name: &str) -> Option<Goggle> {
        presets::builtin(name).cloned()
    }

    /// What `ferret search --goggle FILE|NAME` loads: the built-in goggle
    /// of that name if there is one, else the file at that path. A name
    /// that is neither gives [`GoggleLoadError::UnknownName`] (when no such
    /// file exists) so the message lists the built-ins.
    pub fn resolve(name_or_path: &str) -> Result<Goggle, GoggleLoadError> {
        if let Some(goggle) = Goggle::builtin(name_or_path) {
            return Ok(goggle);
        }
        let path = Path::new(name_or_path);
        if !path.exists()
            && !name_or_path.contains(['/', '\\'])
            && !name_or_path.ends_with(".goggle")
        {
            return Err(GoggleLoadError::UnknownName {
                name: name_or_path.to_string(),
            });
        }
        Goggle::from_file(path)
    }

    fn index(metadata: Metadata, instructions: Vec<Instruction>) -> Goggle {
        let mut by_site: HashMap<String, Vec<usize>> = HashMap::new();
        let mut scanned = Vec::new();
        let mut generic_discard = None;
        for (i, instruction) in instructions.iter().enumerate() {
            if instruction.is_generic_discard() {
                generic_discard = generic_discard.or(Some(i));
            } else if let (None, Some(site)) = (&instruction.pattern, &instruction.site) {
                by_site.entry(site.clone()).or_default().push(i);
            } else {
                scanned.push(i);
            }
        }
        let prefilter = Prefilter::build(&instructions, &scanned);
        Goggle {
            metadata,
            instructions,
            generic_discard,
            by_site,
            prefilter,
        }
    }

    /// The metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The `name` metadata.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The instructions, in file order.
    pub fn instructions(&self) -> &[Instruction] {
        &self.instructions
    }

    /// Whether the goggle has a generic `$discard` (an allow-list).
    pub fn has_generic_discard(&self) -> bool {
        self.generic_discard.is_some()
    }

    /// What the goggle does to `subject`; see the [module docs](self).
    /// Equal to [`Goggle::verdict_trying_every_instruction`], at the cost of
    /// one automaton pass per text plus the instructions that can match.
    pub fn verdict(&self, subject: &Subject) -> Verdict {
        let mut precedence = self.site_rules(subject);
        for i in self.prefilter.candidates(subject) {
            let instruction = &self.instructions[i];
            if instruction.matches(subject) {
                precedence.add(i, instruction.action);
            }
        }
        precedence.verdict(self.generic_discard)
    }

    /// The plain definition of [`Goggle::verdict`]: every instruction tried
    /// in file order (the reference the prefilter is tested against).
    pub fn verdict_trying_every_instruction(&self, subject: &Subject) -> Verdict {
        let mut precedence = Precedence::default();
        for (i, instruction) in self.instructions.iter().enumerate() {
            if Some(i) != self.generic_discard && instruction.matches(subject) {
                precedence.add(i, instruction.action);
            }
        }
        precedence.verdict(self.generic_discard)
    }

    /// The `site=`-only instructions that apply: every label-boundary
    /// suffix of every host (and of the host without `www.`) looked up.
    fn site_rules(&self, subject: &Subject) -> Precedence {
        let mut precedence = Precedence::default();
        let mut tried: Vec<&str> = Vec::new();
        for host in subject.hosts() {
            let mut candidate = host.as_str();
            loop {
                if !tried.contains(&candidate) {
                    tried.push(candidate);
                    if let Some(rules) = self.by_site.get(candidate) {
                        for &i in rules {
                            debug_assert!(host_on_site(host, candidate));
                            precedence.add(i, self.instructions[i].action);
                        }
                    }
                }
                match candidate.split_once('.') {
                    Some((_, rest)) if !rest.is_empty() => candidate = rest,
                    _ => break,
                }
            }
        }
        precedence
    }

    /// What the goggle does to a fused search result
    /// ([`Subject::of_result`]).
    pub fn verdict_for_result(&self, result: &crate::result::SearchResult) -> Verdict {
        self.verdict(&Subject::of_result(result))
    }
}

/// The bytes of the goggle file at `path`: a regular file (links followed),
/// read incrementally and never past [`MAX_FILE_BYTES`] + 1 bytes.
fn read_bounded(path: &Path) -> Result<Vec<u8>, GoggleLoadError> {
    use std::io::Read;
    let io = |source: std::io::Error| GoggleLoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = || GoggleLoadError::NotAFile {
        path: path.to_path_buf(),
    };
    // Judge the path before opening it (opening a FIFO waits for a writer),
    // then the opened file itself (no swap between the check and the read).
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(not_a_file());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(not_a_file());
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(GoggleLoadError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(bytes)
}
