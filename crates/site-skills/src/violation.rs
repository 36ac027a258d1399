//! What is wrong with a package: every broken rule is one [`Violation`]
//! naming the file, the field and the rule, and validation collects all of
//! them ([`ValidationError`]) instead of stopping at the first.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The rule a package broke. Serialised as its snake_case code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The file is not valid JSON (or not UTF-8).
    InvalidJson,
    /// A file is larger than its limit (manifest 256 KiB, resource 1 MiB).
    TooLarge,
    /// A required field is missing.
    Required,
    /// A field has the wrong JSON type.
    WrongType,
    /// A field the contract does not define.
    UnknownField,
    /// A text field that must say something is empty.
    Empty,
    /// `id` is not `[a-z0-9-]+`.
    IdFormat,
    /// `id` is longer than 64 characters.
    IdLength,
    /// `id` differs from the package folder's name.
    IdFolderMismatch,
    /// `domains` is empty.
    DomainsEmpty,
    /// A domain is not a hostname (or `*.` + hostname).
    DomainFormat,
    /// A domain has uppercase letters.
    DomainUppercase,
    /// A domain label is longer than 63 characters.
    DomainLabelLength,
    /// A domain is longer than 253 characters.
    DomainLength,
    /// A wildcard covers a whole public suffix (`*.com`, `*.co.uk`).
    DomainPublicSuffix,
    /// A domain can never be a public site: a local, metadata, cluster or
    /// special-use name (`localhost`, `metadata.google.internal`, `*.test`,
    /// `*.onion`, `*.svc` …), the same names the URL guard refuses.
    DomainNotPublic,
    /// The same domain is declared twice.
    DomainDuplicate,
    /// A note is not a Markdown (`.md`) file.
    NoteNotMarkdown,
    /// A resource path is empty.
    PathEmpty,
    /// A resource path is absolute.
    PathAbsolute,
    /// A resource path contains a backslash.
    PathBackslash,
    /// A resource path contains `..`.
    PathParent,
    /// A resource path has `.` or empty segments or control characters.
    PathNotNormal,
    /// A symbolic link leads outside the package.
    SymlinkEscape,
    /// The package folder itself is a symbolic link.
    PackageSymlink,
    /// The package path is not a folder.
    PackageNotDirectory,
    /// A file the manifest names does not exist.
    MissingFile,
    /// A resource is a folder or a special file, not a regular file.
    NotAFile,
    /// A resource is not UTF-8 text.
    NotUtf8,
    /// A file could not be read.
    Unreadable,
    /// `binding` is declared without `callable`.
    BindingWithoutCallable,
    /// `callable` is declared without `binding`.
    CallableWithoutBinding,
    /// `binding` is not a dotted JavaScript path or `callable` not an
    /// identifier.
    JsIdentifier,
    /// A browser tool or argument name is not `[A-Za-z0-9_-]{1,128}`.
    ToolName,
    /// An argument or return type is not one of string, number, integer,
    /// boolean, array, object.
    UnknownType,
    /// A paginated tool is declared inconsistently (scroll tool missing,
    /// returns not an array, no integer `limit`).
    Pagination,
    /// A folder in an override root is not named like a package id.
    FolderName,
}

impl Rule {
    /// The snake_case code (`path_parent`, `symlink_escape` …).
    pub fn code(self) -> &'static str {
        match self {
            Rule::InvalidJson => "invalid_json",
            Rule::TooLarge => "too_large",
            Rule::Required => "required",
            Rule::WrongType => "wrong_type",
            Rule::UnknownField => "unknown_field",
            Rule::Empty => "empty",
            Rule::IdFormat => "id_format",
            Rule::IdLength => "id_length",
            Rule::IdFolderMismatch => "id_folder_mismatch",
            Rule::DomainsEmpty => "domains_empty",
            Rule::DomainFormat => "domain_format",
            Rule::DomainUppercase => "domain_uppercase",
            Rule::DomainLabelLength => "domain_label_length",
            Rule::DomainLength => "domain_length",
            Rule::DomainPublicSuffix => "domain_public_suffix",
            Rule::DomainNotPublic => "domain_not_public",
            Rule::DomainDuplicate => "domain_duplicate",
            Rule::NoteNotMarkdown => "note_not_markdown",
            Rule::PathEmpty => "path_empty",
            Rule::PathAbsolute => "path_absolute",
            Rule::PathBackslash => "path_backslash",
            Rule::PathParent => "path_parent",
            Rule::PathNotNormal => "path_not_normal",
            Rule::SymlinkEscape => "symlink_escape",
            Rule::PackageSymlink => "package_symlink",
            Rule::PackageNotDirectory => "package_not_directory",
            Rule::MissingFile => "missing_file",
            Rule::NotAFile => "not_a_file",
            Rule::NotUtf8 => "not_utf8",
            Rule::Unreadable => "unreadable",
            Rule::BindingWithoutCallable => "binding_without_callable",
            Rule::CallableWithoutBinding => "callable_without_binding",
            Rule::JsIdentifier => "js_identifier",
            Rule::ToolName => "tool_name",
            Rule::UnknownType => "unknown_type",
            Rule::Pagination => "pagination",
            Rule::FolderName => "folder_name",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One broken rule: which file, which field, which rule, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The file, relative to the package (`manifest.json`, `tools.js`), or
    /// `.` for the package folder itself.
    pub file: String,
    /// The field as a JSON path (`browserTools.readPage.binding`), empty for
    /// the whole file.
    pub field: String,
    /// The rule.
    pub rule: Rule,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Violation {
    /// A violation of `rule` in `file` at `field`.
    pub fn new(
        file: impl Into<String>,
        field: impl Into<String>,
        rule: Rule,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            file: file.into(),
            field: field.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {} [{}]", self.file, self.message, self.rule)
        } else {
            write!(
                f,
                "{}: {}: {} [{}]",
                self.file, self.field, self.message, self.rule
            )
        }
    }
}

/// A package that failed validation, with every violation found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("site-skill package {package} is invalid: {}", join(.violations))]
pub struct ValidationError {
    /// The package (its folder, or `built-in:<id>`).
    pub package: String,
    /// Every violation, in the order found.
    pub violations: Vec<Violation>,
}

impl ValidationError {
    /// Whether any violation is of `rule`.
    pub fn has(&self, rule: Rule) -> bool {
        self.violations.iter().any(|v| v.rule == rule)
    }

    /// The violations of `rule`.
    pub fn of(&self, rule: Rule) -> Vec<&Violation> {
        self.violations.iter().filter(|v| v.rule == rule).collect()
    }
}

fn join(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
