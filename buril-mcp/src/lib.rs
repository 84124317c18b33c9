//! buril's MCP side, over [`buril_core`]: the server ([`server`]: stdio and Streamable HTTP,
//! the 2025-11-25 and 2026-07-28 revisions, tasks, questions to the caller, authorization, the
//! studio), the hub of other MCP servers' tools ([`hub`], feature `hub`), the Redis task store
//! ([`RedisStore`], feature `redis`), OTLP export ([`telemetry`], feature `otel`) and the
//! in-memory test client ([`testing`], feature `testing`).
//!
//! Users depend on `buril`, which re-exports this crate's modules behind its features of the
//! same names; depend on this crate directly only to leave the rest of buril out.

#![warn(missing_docs)]

#[cfg(feature = "hub")]
pub mod hub;
#[cfg(feature = "redis")]
mod redis;
pub mod server;
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(feature = "redis")]
pub use crate::redis::RedisStore;

/// The core, for the expansions of this crate's macros (`hub_tools!`). Not public API.
#[doc(hidden)]
pub use buril_core as __core;
