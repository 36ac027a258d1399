//! HTTP plumbing shared by every network adapter.
//!
//! - [`HttpClient`]: one reqwest client setup (rustls, gzip/brotli, a
//!   User-Agent, connect and total timeouts, a same-site redirect policy)
//!   whose [`HttpClient::send`] reads the body incrementally under a size
//!   cap, so a 20 MB answer is cut off at the cap instead of being buffered.
//! - [`Fetched`]: a finished exchange (status, headers, capped body).
//! - [`status`]: the status → [`EngineError`](ferret_core::EngineError)
//!   mapping every adapter shares ([`status::check`]).
//! - [`markers`]: the challenge-page and quota word tables.
//! - [`ServiceConfig`]: the base URL / API key / client options each
//!   adapter's builder holds.
//! - [`collect`]: [`HitCollector`], which turns parsed rows into ranked
//!   hits and reports every row it drops; [`inline_html`]: snippet markup
//!   (`<strong>`, `<span class="searchmatch">`, entities) to plain text.
//! - [`controls`]: pushing search controls down (`site:` operators, date
//!   ranges with both ends).
//! - [`clock`]: an injectable clock and the small calendar arithmetic the
//!   adapters need (ISO dates, "May 1, 2023").
//!
//! # Error policy
//!
//! | What happened | Error |
//! |---|---|
//! | connect refused / DNS failure | temporary [`Transport`](ferret_core::EngineError::Transport) |
//! | total time budget ran out (headers or a dripping body) | [`Timeout`](ferret_core::EngineError::Timeout) |
//! | connection broke mid-body (fewer bytes than `Content-Length`) | temporary `Transport`: the bytes never arrived, so trying again may work |
//! | body larger than the cap | JSON adapters: [`Parse`](ferret_core::EngineError::Parse) naming the cap; HTML adapters parse the prefix and add a warning |
//! | complete body that does not parse | `Parse` |
//! | HTTP statuses | see [`status::check`] |

pub mod clock;
pub mod collect;
pub mod controls;
pub mod inline_html;
pub mod markers;
pub mod status;

mod client;
pub(crate) mod config;
pub(crate) mod json_api;

pub use client::{Fetched, HttpClient, HttpClientBuilder};
pub use clock::{Clock, FixedClock, SharedClock, SystemClock};
pub use collect::HitCollector;
pub use config::{ConfigError, ServiceConfig};
pub use status::Service;
