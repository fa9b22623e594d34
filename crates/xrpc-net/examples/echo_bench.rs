//! Echo benchmark harness (placeholder).
fn main() {}
