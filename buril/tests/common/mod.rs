//! Helpers shared by buril's integration tests: `mod common;` at the top of a test file, then
//! `use common::...` for what it needs.
//!
//! - [`peer`]: an MCP client over an in-memory stream (newline-delimited JSON-RPC).
//! - [`servers`]: a `buril::server::Server` on a loopback port, run by a runtime of its own.
//! - [`http`]: raw requests to the Streamable HTTP endpoint, their answers, and sessions.
//! - [`bearer`]: the same requests presenting a bearer token, and the challenges refused ones
//!   get.
//! - [`jwks`]: signing keys, JWT access tokens, and an issuer that serves its metadata and keys.
//! - [`gates`]: events that tools record and tests wait for, and gates that hold a tool until
//!   the test lets it go.
//! - [`externals`]: the external MCP servers the hub's tests serve, as the test script installs
//!   them.
//!
//! None of these modules defines a tool: a `#[buril::tool]` is registered in every test binary
//! that compiles it, and some tests check the exact list of their binary's tools. Tools shared
//! by a few test files live next to this module and are included only by those files, with
//! `#[path = "common/<file>.rs"] mod <file>;` (`auth_tools.rs`, `profile_tools.rs`,
//! `gated_tools.rs`).

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

#[cfg(feature = "hub")]
pub mod externals;
#[cfg(feature = "oauth")]
pub mod jwks;

#[allow(unused_imports)]
pub use buril_test_support::{bearer, gates, http, peer, servers};
