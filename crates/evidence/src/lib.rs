//! # ferret-evidence
//!
//! Turns a URL into trustworthy text: fetched safely, extracted well, judged
//! honestly.
//!
//! - [`extract`]: main-content extraction from HTML (title, byline, date,
//!   main text with paragraph structure, language, links, JSON-LD; text and
//!   Markdown output).
//! - [`fetch`]: the adaptive fetch ladder — public endpoints (GitHub,
//!   Wikipedia, arXiv, HN, Reddit, npm, PyPI, crates.io), plain HTTP behind
//!   the URL guard (manual redirects, 1 MiB cap, charset), then a browser
//!   when the page needs one; `ferret.fetch.v1` ([`fetch::FetchedPage`]).
//! - [`verify`]: agbrowse's verdicts and score (`strong_ok` … `error`) and
//!   the `ferret.verify.v1` report ([`verify::VerifyReport`]).
//! - [`safety`]: content-safety flags — prompt injection aimed at agents,
//!   hidden text, link farms, invisible characters.
//! - [`highlights`]: BM25 passage selection within a token budget, the
//!   `--focus` keyword filter and the top-20-paragraph trim; every highlight
//!   is a verbatim slice of the extracted text.
//! - [`structured`]: fail-closed extraction to a JSON Schema from JSON-LD
//!   and HTML tables (`ferret.extract.v1`).
//! - [`refs`]: typed references of a GitHub issue or pull request (issues,
//!   PRs, commits, duplicates, related, URLs) from its API JSON or page
//!   HTML (`ferret.refs.v1`).

pub mod extract;
pub mod fetch;
pub mod highlights;
pub mod refs;
pub mod safety;
pub mod structured;
pub mod verify;
