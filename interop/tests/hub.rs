//! The hub against MCP servers no one here wrote: `buril::hub` with the Python SDK's server and
//! a hand-written one (`buril_hub`), the `tools` binary as a hub of npm's servers, the Python
//! SDK's and another `tools serve`, called by the SDK clients and the command line
//! (`tools_hub`), and bindings generated for npm's servers and called through them
//! (`foreign`).

mod common;

#[path = "hub/buril_hub.rs"]
mod buril_hub;
#[path = "hub/foreign.rs"]
mod foreign;
#[path = "hub/tools_hub.rs"]
mod tools_hub;

// The example tools, and with them the `mcp_` family (`buril::hub_tools!` in the `tools`
// library), which `buril_hub`'s registries serve beside its own `local_hello`.
use tools as _;
