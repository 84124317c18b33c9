//! The runtime's integration tests, in one binary: dispatch (threading, load and faults,
//! panics, timeouts, cancellation), validation, the envelope and tool errors, the context and
//! a tool asking its caller, layers, tasks of a host's own, tools provided at run time, and the
//! security model. None needs a feature.
//!
//! The tools of every file are registered in this binary, so no test here asserts the binary's
//! whole set of tools (`registry.rs` and `schema_derivation.rs` do, each in a binary of its
//! own), and each file's gates use tags of its own.

#[path = "../common/mod.rs"]
mod common;
mod gated_tools;

mod asking;
mod background;
mod cancellation;
mod context;
mod editor;
mod envelope;
mod middleware;
mod panics;
mod provided;
mod security;
mod stress;
mod threading;
mod timeouts;
mod tool_errors;
mod validation;
