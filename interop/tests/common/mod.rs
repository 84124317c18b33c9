//! What the interop tests share: `mod common;` at the top of a test binary.
//!
//! - [`sdk`]: the official SDKs' clients (Python and TypeScript) run against a server, and the
//!   servers (stdio and Streamable HTTP) they are run against.
//! - [`tools_server`]: `tools serve --http` (or any binary's `serve --http`), its address and
//!   what it logs.
//! - [`externals`]: the external MCP servers the hub's tests serve, as the test script
//!   installs them.
//! - [`redis`]: a `redis-server` of a test's own; [`stateless`]: stateless 2026-07-28 requests,
//!   a connection each.
//! - [`poll`], [`poll_async`]: waits for what only a look at another process tells.
//!
//! None of these modules defines a tool: a `#[buril::tool]` is registered in every test binary
//! that compiles it, and some of these binaries check the exact list of their tools. The
//! codegen tests' tools (`buril-codegen/tests/common/zoo.rs`) are declared by the binaries that want them.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

pub mod externals;
pub mod redis;
pub mod sdk;
pub mod stateless;
pub mod tools_server;

use std::fmt::Debug;
use std::time::{Duration, Instant};

/// Looks with `look` until it finds what it looks for (`Ok`), `every` apart, for at most
/// `within`; panics naming `what`, with what the last look saw (`Err`), when it never does. For
/// what only a look at another process tells (a task's status, a server's state), where
/// `buril_test_support::wait_until`'s look every millisecond would load the processes under
/// test, and for waits longer than its bound.
pub fn poll<T, E: Debug>(
    what: &str,
    every: Duration,
    within: Duration,
    mut look: impl FnMut() -> Result<T, E>,
) -> T {
    let until = Instant::now() + within;
    loop {
        let seen = match look() {
            Ok(found) => return found,
            Err(seen) => seen,
        };
        assert!(
            Instant::now() < until,
            "waited {within:?} for {what}; the last look saw {seen:?}"
        );
        std::thread::sleep(every);
    }
}

/// [`poll`], for async tests whose look is async (a call through a client): yields to the
/// runtime between looks.
pub async fn poll_async<T, E: Debug>(
    what: &str,
    every: Duration,
    within: Duration,
    mut look: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let until = Instant::now() + within;
    loop {
        let seen = match look().await {
            Ok(found) => return found,
            Err(seen) => seen,
        };
        assert!(
            Instant::now() < until,
            "waited {within:?} for {what}; the last look saw {seen:?}"
        );
        tokio::time::sleep(every).await;
    }
}
