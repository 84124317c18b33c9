//! The fixture tools of the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! as ordinary `#[buril::tool]` functions, served by buril's CLI:
//!
//! ```sh
//! cargo run -q -p buril-conformance-server -- serve --http 127.0.0.1:8080
//! ```
//!
//! The suite calls tools by fixed names and checks what they answer; each tool below says which
//! scenario calls it. `tests/suite.rs` runs the suite against this server and against the
//! example tools' `tools serve --http`. The fixtures that need what buril cannot do yet (rich
//! results, asking the client mid-call) are not here yet; their
//! scenarios are in the baseline, `interop/conformance/conformance-server.yml`.

use buril::{Context, LogLevel};

/// Returns a short text: what `tools-call-simple-text` reads back.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, with a message: what `tools-call-error` expects (`isError` with text).
#[buril::tool(read_only, idempotent, off_thread)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress three times (0, 50 and 100 of 100), 60 ms apart (the server sends at most
/// one progress notification per 50 ms of a call, the newest), then answers: what
/// `tools-call-with-progress` counts.
#[buril::tool(read_only, idempotent, off_thread)]
fn test_tool_with_progress(ctx: &Context) -> String {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), Some(&format!("{step} of 100")));
        std::thread::sleep(std::time::Duration::from_millis(60));
    }
    "Progress test completed".to_owned()
}

/// Logs three messages at `info`, 50 ms apart, then answers: what `tools-call-with-logging`
/// counts (after `logging/setLevel`).
#[buril::tool(read_only, idempotent, off_thread)]
fn test_tool_with_logging(ctx: &Context) -> String {
    ctx.log(LogLevel::Info, "Tool execution started");
    std::thread::sleep(std::time::Duration::from_millis(50));
    ctx.log(LogLevel::Info, "Tool processing data");
    std::thread::sleep(std::time::Duration::from_millis(50));
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed".to_owned()
}

fn main() -> std::process::ExitCode {
    buril::cli::Cli::new()
        .extend(buril::server::extension())
        .run()
}
