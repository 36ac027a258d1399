//! # ferret-evidence
//!
//! (Being built; see the workspace README.)
