//! The servers these tests start: the `tools` binary and the `mcp_fixture` example, in a
//! folder of their own (`buril_test_support::workspace`).

use std::path::PathBuf;

pub use buril_test_support::workspace::Workspace;

/// The `tools` binary.
pub fn tools_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tools"))
}

/// The `mcp_fixture` example binary, built once per test run.
pub fn fixture_binary() -> PathBuf {
    buril_test_support::bin::cargo_example("tools", "mcp_fixture")
}
