//! # ferret-evidence
//!
//! Turns a URL into trustworthy text: fetched safely, extracted well, judged
//! honestly.
//!
//! - [`extract`]: main-content extraction from HTML (title, byline, date,
//!   main text with paragraph structure, language, links, JSON-LD; text and
//!   Markdown output).

pub mod extract;
