//! The MCP server driven by clients that are not its own code: the Python and TypeScript SDKs'
//! clients over stdio and Streamable HTTP (`mcp`), the same with a bearer token (`mcp_auth`),
//! and the generated TypeScript bindings' transports, one of them over the TypeScript SDK's
//! client (`transports`). The servers are the `tools` binary and the `mcp_fixture` example.
//!
//! This binary's tools are the `tools` binary's and no others: the listings and the metadata
//! hash these tests expect of the server are the registry's.

mod common;

#[path = "sdk_clients/mcp.rs"]
mod mcp;
#[path = "sdk_clients/mcp_auth.rs"]
mod mcp_auth;
#[path = "sdk_clients/transports.rs"]
mod transports;

// Links the library, and with it the tools of the `tools` binary, for the expected listings.
use tools as _;
