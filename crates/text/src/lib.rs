//! # ferret-text
//!
//! How Ferret reads text: pure functions of strings, with no I/O and no
//! async runtime. Every other Ferret crate reads words, sentences, facts and
//! dates through this one.
//!
//! - [`tokenize`]: the one tokenizer. Lowercased words (`c++`, `node.js`
//!   stay whole) and CJK character bigrams, each with a 64-bit hash; an
//!   ASCII fast path proptested against the definition.
//! - [`analyzer`]: the terms of a text for one purpose, as named presets
//!   composed from the tokenizer, stopwords and stemmer
//!   ([`Analyzer::KEYWORD`], [`Analyzer::HIGHLIGHT`], [`Analyzer::CLAIM`],
//!   [`Analyzer::CONSTRAINT`]).
//! - [`sentences`]: the one sentence splitter (abbreviations, closing
//!   quotes, CJK and full-width ends) and the clauses of a sentence.
//! - [`stem`]: the one stemmer (irregular forms, Snowball English, synonym
//!   groups).
//! - [`words`]: words with their spans, stems and stopword flags, as the
//!   judgement reads a page.
//! - [`stopwords`]: the English and CJK stopword and particle tables, and
//!   cutting CJK function words out of a text.
//! - [`facts`]: numbers, quantities, dates, times and names as written, and
//!   the negation tables that give a sentence its polarity.
//! - [`dates`]: the one date parser (ISO 8601, RFC 2822, written dates,
//!   relative ages).
//! - [`json`]: JSON values named in words for messages.
//! - [`quality`]: the marker-word tables (captcha, challenge, login wall,
//!   paywall) and the page-quality assessment built on them.

pub mod analyzer;
pub mod dates;
pub mod facts;
pub mod json;
pub mod quality;
pub mod sentences;
pub mod stem;
pub mod stopwords;
pub mod tokenize;
pub mod words;

pub use analyzer::Analyzer;
