//! Layers: engines that wrap an engine.
//!
//! A layer holds an inner [`Engine`] and is an [`Engine`] itself, so stacks
//! compose by nesting (the `object_store` / OpenDAL shape). Each layer
//! forwards `name` and `capabilities` explicitly and changes only what it is
//! for. Build stacks with [`EngineExt::layer`]:
//!
//! ```
//! use std::time::Duration;
//! use ferret_core::layer::{EngineExt, TimeoutLayer};
//! use ferret_core::testing::StaticEngine;
//!
//! let engine = StaticEngine::new("demo", 3).layer(TimeoutLayer::new(Duration::from_secs(8)));
//! ```
//!
//! Ordering matters: a timeout outside a retry bounds the whole retried
//! call; a timeout inside it bounds each attempt.

mod timeout;

pub use timeout::{Timeout, TimeoutLayer};

use crate::engine::Engine;

/// Something that wraps an engine into another engine.
pub trait Layer<E: Engine> {
    /// The wrapped engine's type.
    type Engine: Engine;

    /// Wrap `inner`.
    fn layer(&self, inner: E) -> Self::Engine;
}

/// Builder-style helpers for every [`Engine`].
pub trait EngineExt: Engine + Sized {
    /// Wrap this engine in `layer`.
    fn layer<L: Layer<Self>>(self, layer: L) -> L::Engine {
        layer.layer(self)
    }
}

impl<E: Engine + Sized> EngineExt for E {}
