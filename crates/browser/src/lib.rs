//! # ferret-browser
//!
//! A real Chromium for the parts of the web plain HTTP cannot reach: pages
//! whose text JavaScript inserts, result pages of search engines, login
//! walls, challenge pages, infinite scroll, same-origin JSON APIs.
//!
//! - [`runtime`]: the [`BrowserRuntime`] trait the evidence and site-skills
//!   crates code against, and its types (task spaces, waits, targets,
//!   snapshots).
//! - [`error`]: [`BrowserError`], typed, with messages that say what to do.
//! - [`config`]: [`ChromiumConfig`] (managed / attached / auto, profile,
//!   timeouts, guard); the environment is read only by `from_env`.
//! - [`chromium`]: [`ChromiumRuntime`], the implementation on a managed or
//!   attached Chromium.
//! - [`pro_mode`]: the gate in front of the login partition.
//! - [`modes`]: `search`, `fetch`, `act`, `api` (and `status`)
//!   over any runtime, returning serde envelopes (`ferret.browser.search.v1`,
//!   `ferret.browser.fetch.v1`, `ferret.browser.act.v1`, `ferret.browser.api.v1`,
//!   `ferret.browser.status.v1`).
//! - [`serp`]: the engine table (Bing, DuckDuckGo, Baidu, Google), time
//!   windows, date parsing, row clean-up, block / no-results detection.
//! - [`login`]: a visible window on the persistent profile for a person to
//!   sign in.
//! - [`merge`]: the public + login merge (`ferret.merge.v1`): both
//!   sides' results matched by canonical URL, kept side by side with their
//!   provenance, `dual_sourced` marks, title `conflicts` and `isolation`.
//! - [`procs`]: browser processes and their memory, read from `/proc`.
//! - [`content`]: focus paragraphs, size caps; [`quality`]: thin / login
//!   wall / challenge signals.
//! - [`egress`]: the managed browser's forward proxy, where the URL guard
//!   judges every connection.
//!
//! ## Partitions and safety
//!
//! An ephemeral profile (a fresh temporary folder per launch, each task space
//! in its own browser context) is the public partition. A persistent profile
//! (`<FERRET_HOME>/browser-profile`) or an attached browser is the login
//! partition: refused unless pro mode is on, and every output says so in its
//! provenance (`cache_eligible: false`).
//!
//! Every navigation, API call and subrequest goes through the
//! [`ferret_core::guard::UrlGuard`]. URLs are checked before navigating;
//! each tab pauses its requests (CDP `Fetch` domain) so that redirect hops,
//! images, scripts and `fetch()` calls to private addresses are failed and
//! reported. Underneath, a managed Chromium has one way out ([`egress`]): a
//! forward proxy on loopback inside this process that every connection
//! goes through — documents, sub-resources, WebSockets, EventSource,
//! workers, preconnects — judged by the same guard, with strict mode's
//! checking resolver and address pinning, while Chromium itself resolves no
//! name at all. A browser Ferret attached to cannot be put behind the proxy:
//! the user's own browser keeps its own network, and in strict mode a public
//! pool is refused unless its egress is declared controlled.

pub mod chromium;
pub mod config;
pub mod content;
pub mod egress;
pub mod error;
pub mod login;
pub mod merge;
pub mod modes;
pub mod pro_mode;
pub mod procs;
pub mod quality;
pub mod runtime;
pub(crate) mod scripts;
pub mod serp;

pub use chromium::ChromiumRuntime;
pub use config::{ChromiumConfig, Profile, RuntimeChoice};
pub use error::BrowserError;
pub use merge::{MergeError, MergeInput, MergeReport};
pub use modes::{
    ActOutput, ActRequest, ApiOutput, ApiRequest, FetchOutput, FetchRequest, SearchOutput,
    SearchRequest, StatusOutput,
};
pub use quality::Quality;
pub use runtime::{
    BlockedRequest, BrowserRuntime, PageInfo, RenderOptions, RenderedPage, RuntimeKind,
    RuntimeStatus, ScrollOptions, ScrollReport, ScrollStop, Snapshot, SnapshotRef, Target,
    TaskSpaceInfo, TaskSpaceSpec, WaitFor,
};
pub use serp::{SerpEngine, SerpRow, SerpStatus, TimeWindow};
