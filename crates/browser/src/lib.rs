//! # ferret-browser
//!
//! (Being built; see the workspace README.)
