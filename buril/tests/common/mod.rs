//! Helpers shared by buril's integration tests: `mod common;` at the top of a test binary
//! (`#[path = "../common/mod.rs"] mod common;` from a binary's folder), then `use crate::common`
//! or `use common::...` for what it needs.
//!
//! - [`peer`]: an MCP client over an in-memory stream (newline-delimited JSON-RPC).
//! - [`servers`]: a `buril::server::Server` on a loopback port, run by a runtime of its own.
//! - [`http`]: raw requests to the Streamable HTTP endpoint, their answers, and sessions.
//! - [`bearer`]: the same requests presenting a bearer token, and the challenges refused ones
//!   get.
//! - [`gates`]: events that tools record and tests wait for, and gates that hold a tool until
//!   the test lets it go.
//!
//! None of these modules defines a tool: a `#[buril::tool]` is registered in every test binary
//! that compiles it, and some tests check the exact list of their binary's tools. Tools shared
//! by the files of one binary live in that binary's folder, declared once by its `main.rs`
//! (`runtime/gated_tools.rs`, `profiles/profile_tools.rs`, `auth/auth_tools.rs`).

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use buril_test_support::{bearer, gates, http, peer, servers};
