//! # ferret-site-skills
//!
//! (Being built; see the workspace README.)
