//! Why a goggle was rejected: one [`GoggleError`] per broken rule or limit,
//! all of them collected in [`GoggleErrors`], and [`GoggleLoadError`] for
//! files and built-in names.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The rule or limit a goggle line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GoggleErrorKind {
    /// The file is larger than [`super::MAX_FILE_BYTES`].
    FileTooLarge,
    /// The file is not UTF-8.
    InvalidUtf8,
    /// More than [`super::MAX_INSTRUCTIONS`] instructions.
    TooManyInstructions,
    /// An instruction longer than [`super::MAX_INSTRUCTION_CHARS`] characters.
    InstructionTooLong,
    /// More than [`super::MAX_WILDCARDS`] `*` in one instruction.
    TooManyWildcards,
    /// More than [`super::MAX_CARETS`] `^` in one instruction.
    TooManyCarets,
    /// A `boost=N` / `downrank=N` strength outside 1–[`super::MAX_STRENGTH`].
    StrengthOutOfRange,
    /// A strength that is not a whole number (`boost=high`, `boost=`).
    InvalidStrength,
    /// An option that is not `site=`, a target or an action.
    UnknownOption,
    /// A value given to an option that takes none (`discard=1`, `inurl=x`).
    UnexpectedValue,
    /// An empty option (`$boost,,site=x`, a trailing comma, a bare `$`).
    EmptyOption,
    /// Two actions, two targets or two `site=` in one instruction.
    DuplicateOption,
    /// A `site=` whose domain is empty or not a host name.
    InvalidSite,
    /// A target (`inurl`, `intitle`, …) on an instruction with no pattern.
    TargetWithoutPattern,
    /// A pattern made only of `|` anchors.
    EmptyPattern,
    /// A required metadata key (`name`, `description`, `public`, `author`)
    /// is missing.
    MissingMetadata,
    /// A metadata value that is empty or malformed (`public: maybe`,
    /// `avatar: red`, `homepage: not a url`).
    InvalidMetadata,
    /// A metadata key given twice.
    DuplicateMetadata,
}

impl GoggleErrorKind {
    /// The kind's name, as in JSON (`strength_out_of_range`).
    pub fn as_str(self) -> &'static str {
        match self {
            GoggleErrorKind::FileTooLarge => "file_too_large",
            GoggleErrorKind::InvalidUtf8 => "invalid_utf8",
            GoggleErrorKind::TooManyInstructions => "too_many_instructions",
            GoggleErrorKind::InstructionTooLong => "instruction_too_long",
            GoggleErrorKind::TooManyWildcards => "too_many_wildcards",
            GoggleErrorKind::TooManyCarets => "too_many_carets",
            GoggleErrorKind::StrengthOutOfRange => "strength_out_of_range",
            GoggleErrorKind::InvalidStrength => "invalid_strength",
            GoggleErrorKind::UnknownOption => "unknown_option",
            GoggleErrorKind::UnexpectedValue => "unexpected_value",
            GoggleErrorKind::EmptyOption => "empty_option",
            GoggleErrorKind::DuplicateOption => "duplicate_option",
            GoggleErrorKind::InvalidSite => "invalid_site",
            GoggleErrorKind::TargetWithoutPattern => "target_without_pattern",
            GoggleErrorKind::EmptyPattern => "empty_pattern",
            GoggleErrorKind::MissingMetadata => "missing_metadata",
            GoggleErrorKind::InvalidMetadata => "invalid_metadata",
            GoggleErrorKind::DuplicateMetadata => "duplicate_metadata",
        }
    }
}

impl fmt::Display for GoggleErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem in a goggle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}: {kind}: {message}", line_label(*line))]
pub struct GoggleError {
    /// 1-based line number; 0 for a problem of the whole file (its size,
    /// its encoding, a missing metadata key).
    pub line: usize,
    /// The rule or limit broken.
    pub kind: GoggleErrorKind,
    /// What is wrong and what to do about it.
    pub message: String,
}

fn line_label(line: usize) -> String {
    if line == 0 {
        "file".to_string()
    } else {
        format!("line {line}")
    }
}

impl GoggleError {
    pub(crate) fn new(line: usize, kind: GoggleErrorKind, message: impl Into<String>) -> Self {
        GoggleError {
            line,
            kind,
            message: message.into(),
        }
    }
}

/// Every problem found in a goggle (never empty), in line order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct GoggleErrors(pub Vec<GoggleError>);

impl GoggleErrors {
    /// The problems, in line order (file-level problems, line 0, first).
    pub fn errors(&self) -> &[GoggleError] {
        &self.0
    }

    /// The distinct kinds of problem found.
    pub fn kinds(&self) -> Vec<GoggleErrorKind> {
        let mut kinds: Vec<GoggleErrorKind> = Vec::new();
        for e in &self.0 {
            if !kinds.contains(&e.kind) {
                kinds.push(e.kind);
            }
        }
        kinds
    }
}

impl fmt::Display for GoggleErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "the goggle has {n} problem{}",
            if n == 1 { "" } else { "s" }
        )?;
        for e in &self.0 {
            write!(f, "; {e}")?;
        }
        Ok(())
    }
}

/// Why a goggle could not be loaded by [`super::Goggle::from_file`] or
/// [`super::Goggle::resolve`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GoggleLoadError {
    /// The file could not be read.
    #[error("cannot read goggle file {}: {source}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a valid goggle.
    #[error("invalid goggle file {}: {errors}", path.display())]
    Invalid {
        /// The path given.
        path: PathBuf,
        /// Every problem found.
        errors: GoggleErrors,
    },
    /// The path names a folder, a FIFO, a device or another special file:
    /// only a regular file is read as a goggle.
    #[error(
        "cannot read goggle file {}: it is not a regular file (a folder, a FIFO or a device); \
         pass the path of a .goggle file",
        path.display()
    )]
    NotAFile {
        /// The path given.
        path: PathBuf,
    },
    /// The file is larger than [`super::MAX_FILE_BYTES`]; the read stopped
    /// one byte past the limit.
    #[error(
        "goggle file {} is larger than the {limit}-byte limit (2 MiB); split it or remove \
         instructions",
        path.display()
    )]
    TooLarge {
        /// The path given.
        path: PathBuf,
        /// The limit, in bytes ([`super::MAX_FILE_BYTES`]).
        limit: usize,
    },
    /// Neither a built-in goggle name nor a readable file.
    #[error(
        "no goggle named {name:?}: use a built-in ({}) or the path of a .goggle file",
        super::presets::BUILTIN_NAMES.join(", ")
    )]
    UnknownName {
        /// The name given.
        name: String,
    },
}

impl GoggleLoadError {
    /// A short snake_case code for the kind of failure (`io`, `invalid`,
    /// `not_a_file`, `too_large`, `unknown_name`).
    pub fn code(&self) -> &'static str {
        match self {
            GoggleLoadError::Io { .. } => "io",
            GoggleLoadError::Invalid { .. } => "invalid",
            GoggleLoadError::NotAFile { .. } => "not_a_file",
            GoggleLoadError::TooLarge { .. } => "too_large",
            GoggleLoadError::UnknownName { .. } => "unknown_name",
        }
    }

    /// The parse errors, when the file was read but was invalid.
    pub fn goggle_errors(&self) -> Option<&GoggleErrors> {
        match self {
            GoggleLoadError::Invalid { errors, .. } => Some(errors),
            _ => None,
        }
    }
}
