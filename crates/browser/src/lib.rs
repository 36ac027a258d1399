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

pub mod chromium;
pub mod config;
pub mod error;
pub mod pro_mode;
pub mod runtime;
pub(crate) mod scripts;

pub use chromium::ChromiumRuntime;
pub use config::{ChromiumConfig, Profile, RuntimeChoice};
pub use error::BrowserError;
pub use runtime::{
    BlockedRequest, BrowserRuntime, PageInfo, RenderOptions, RenderedPage, RuntimeKind, RuntimeStatus,
    ScrollOptions, ScrollReport, ScrollStop, Snapshot, SnapshotRef, Target, TaskSpaceInfo,
    TaskSpaceSpec, WaitFor,
};
