//! Tests of intent classification.
use super::*;

#[test]
fn placeholder_compiles() {
    assert_eq!(classify("Bun vs Deno").intent, Intent::Comparison);
}
