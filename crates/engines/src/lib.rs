//! # ferret-engines
//!
//! (Being built; see the workspace README.)
