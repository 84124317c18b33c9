//! What buril's own tests share, so that no test crate writes it again:
//!
//! - [`peer`]: the MCP test client for protocol-level tests: newline-delimited JSON-RPC to a
//!   [`Server`](buril_mcp::server::Server) in memory or to a process over its stdio, both
//!   revisions. Tests of tools as a client sees them use `buril_core::testing::TestClient` (rmcp's
//!   client), which is the public kit; this one writes any frame, good or bad.
//! - [`http`]: raw requests to a Streamable HTTP endpoint and their answers, sessions, and
//!   [`bearer`] the same with a bearer token.
//! - [`servers`]: a server on a loopback port, run by a runtime of its own.
//! - [`gates`]: events tools record and tests wait for, and gates that hold a tool until the
//!   test lets it go: what timeout and cancellation tests wait on instead of sleeping.
//! - [`envelope`]: a call's envelope in one line ([`call`]).
//! - [`capture`]: the `tracing` spans and events a test's code emits.
//! - [`bin`]: a binary of the workspace, built as the test runs.
//! - [`workspace`]: a folder for one server process (its sample project, config file), and the
//!   server started there over Streamable HTTP.
//! - [`model`]: an OpenAI-compatible model server that answers from a script.
//!
//! No module defines a tool: a `#[buril_core::tool]` is registered in every test binary that links
//! it, and some tests check the exact list of their binary's tools.

pub mod bearer;
pub mod bin;
pub mod capture;
pub mod envelope;
pub mod gates;
pub mod http;
pub mod model;
pub mod peer;
pub mod poll;
pub mod process;
pub mod scoped;
pub mod servers;
pub mod workspace;

pub use crate::envelope::{call, call_on};

/// How long a test waits for something that must happen: far past what it takes, so that only
/// a fault reaches it.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Waits, at most [`WAIT`], until `condition` holds, looking every millisecond; panics naming
/// `what` when it never does. For conditions no channel or event reports (a file written by
/// another process, a count in a static).
pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let until = std::time::Instant::now() + WAIT;
    while !condition() {
        assert!(
            std::time::Instant::now() < until,
            "waited {WAIT:?} for {what}"
        );
        std::thread::yield_now();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// [`wait_until`], for async tests: yields to the runtime between looks.
pub async fn wait_until_async(what: &str, mut condition: impl FnMut() -> bool) {
    let until = tokio::time::Instant::now() + WAIT;
    while !condition() {
        assert!(
            tokio::time::Instant::now() < until,
            "waited {WAIT:?} for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}
