//! The MCP server's integration tests, in one binary (feature `server`): rules and config
//! files, stdio, Streamable HTTP and its limits, notifications, stopping, `off_thread` over
//! MCP, and the testing kit (feature `testing`).
//!
//! The tools of every file are registered in this binary: `server.rs`, whose tests assert the
//! exact set of tools a server serves, serves a registry of its own file's tools. Each file's
//! gates use tags of its own.

#[path = "../common/mod.rs"]
mod common;

mod http;
mod http_limits;
mod notifications;
mod off_thread;
mod server;
mod shutdown;
mod stdio;
#[cfg(feature = "testing")]
mod testing_kit;
