//! The MCP benchmark's client: starts a server (`mcp-server buril` or
//! `mcp-server rmcp`, beside this binary) and drives it over stdio with newline-delimited
//! JSON-RPC, the same client for both:
//!
//! - latency: `tools/call` one at a time, each answer awaited; p50 and p99;
//! - throughput: `tools/call` pipelined with 32 requests in flight; requests per second;
//! - the server's CPU time (user and system, all its threads, from `getrusage` once it has
//!   exited) over every call it answered: what a call costs the machine, kernel included, which
//!   varies far less from run to run than the timings above on a machine of two cores.
//!
//! ```text
//! mcp-client buril [CALLS]          # prints one JSON line of figures
//! mcp-client buril-inline [CALLS]   # the buril server, calling the tool's `inline` twin
//! mcp-client buril-main [CALLS]     # the buril server, calling the tool's main-thread twin
//! mcp-client buril-cli [CALLS]      # the same tools served by the CLI's `serve` subcommand
//! mcp-client rmcp [CALLS]
//! mcp-client hub [CALLS]            # `mcp-server buril`'s tool, forwarded by a buril server's hub
//! mcp-client hub-rmcp [CALLS]       # `mcp-server rmcp`'s tool, forwarded by a buril server's hub
//! ```
//!
//! Over Streamable HTTP (`mcp-server buril-http` or `mcp-server rmcp-http`), one kept-alive
//! HTTP/1.1 connection (hyper's client, `TCP_NODELAY` set): `initialize`, then `CALLS`
//! `tools/call` one at a time, each answer (an SSE stream) read to its end; p50, p99, and
//! requests per second over those sequential calls.
//!
//! With `BENCH_REVISION=2026-07-28` the HTTP client speaks the stateless revision instead: no
//! `initialize` and no session; each request carries its version, capabilities and client in
//! `_meta`, and `Mcp-Method`/`Mcp-Name` headers.
//!
//! ```text
//! mcp-client buril-http [CALLS]     # default 2,000 calls
//! mcp-client buril-inline-http [CALLS]
//! mcp-client buril-main-http [CALLS]
//! mcp-client rmcp-http [CALLS]
//! ```
//!
//! Start-up and memory: `mcp-client startup KIND` starts `mcp-server buril|rmcp|buril-many|
//! rmcp-many` (or, for `tools`, the `tools` binary beside this one: `tools serve`) and prints,
//! as one JSON line, the time from the launch to the first `tools/call` answer (`initialize`,
//! `notifications/initialized`, the call), the server's resident set once idle after it, the time
//! to list every tool (`tools/list`, following `nextCursor`) and the resident set after.
//!
//! ```text
//! mcp-client startup buril-many     # BENCH_TOOLS synthetic tools (default 10,000)
//! ```
//!
//! Memory under sessions and calls: `mcp-client memory buril-http|rmcp-http` (`memory.rs`): the
//! server's resident set idle, with 500 legacy sessions open, and with 200 calls in flight; the
//! cost of one session and of one call in flight.
//!
//! Many clients at once: `mcp-client load buril-http|rmcp-http` (`load.rs`): 10, 100 and 1,000
//! legacy sessions calling at once beside stateless callers; each level's p50 and p99, and the
//! server's resident set before, with the sessions open, and once they are closed.

use std::process::ExitCode;

mod http;
mod load;
mod memory;
mod server;
mod slow;
mod startup;
mod stdio;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    if kind == "startup" {
        return startup::run(&args.next().unwrap_or_default());
    }
    if kind == "memory" {
        return memory::run(&args.next().unwrap_or_default());
    }
    if kind == "load" {
        return load::run(&args.next().unwrap_or_default());
    }
    if kind == "slow" {
        return slow::run(&args.next().unwrap_or_default());
    }
    let calls: Option<usize> = args.next().and_then(|n| n.parse().ok());
    // The server to start, and the tool to call on it.
    let (server_kind, tool) = match kind.as_str() {
        "buril" => ("buril", "bench_spawn"),
        "buril-inline" => ("buril", "bench_spawn_inline"),
        // The same tool on the dispatcher's main thread (no `off_thread`: the default).
        "buril-main" => ("buril", "bench_spawn_main"),
        // The same tool served as a tools binary serves it: the CLI's `serve` subcommand.
        "buril-cli" => ("serve", "bench_spawn"),
        "rmcp" => ("rmcp", "bench_spawn"),
        // The same function behind the least a server can do (`buril_bench::floor_server`).
        "floor" => ("floor", "bench_spawn"),
        "floor-http" => ("floor-http", "bench_spawn"),
        // The same tool of `mcp-server buril` (or `rmcp`), forwarded by a buril server's hub.
        "hub" => ("hub", "ext_bench_spawn"),
        "hub-rmcp" => ("hub-rmcp", "ext_bench_spawn"),
        "buril-http" => ("buril-http", "bench_spawn"),
        "buril-inline-http" => ("buril-http", "bench_spawn_inline"),
        "buril-main-http" => ("buril-http", "bench_spawn_main"),
        "rmcp-http" => ("rmcp-http", "bench_spawn"),
        _ => {
            eprintln!(
                "usage: mcp-client (buril|buril-inline|buril-main|buril-cli|rmcp|floor|hub|hub-rmcp|buril-http|buril-inline-http|buril-main-http|rmcp-http|floor-http) \
                 [CALLS]"
            );
            return ExitCode::from(2);
        }
    };
    if server_kind.ends_with("-http") {
        return http::run(&kind, server_kind, tool, calls.unwrap_or(2_000));
    }
    stdio::run(&kind, server_kind, tool, calls.unwrap_or(20_000))
}
