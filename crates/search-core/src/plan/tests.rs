//! Tests of planning.
use super::*;

#[test]
fn placeholder_compiles() {
    let plan = HeuristicPlanner
        .plan_sync("Bun vs Deno", &PlanOptions::default())
        .unwrap();
    assert_eq!(plan.intent, Intent::Comparison);
}
