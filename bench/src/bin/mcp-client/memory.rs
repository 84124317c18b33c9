//! `mcp-client memory KIND` (`buril-http` or `rmcp-http`): the server's resident memory a legacy
//! session and a call in flight cost, over Streamable HTTP.
//!
//! After one session's first call, the server's resident set once idle; then `SESSIONS`
//! (BENCH_MEMORY_SESSIONS, default 500) 2025-06-18 sessions opened (`initialize` and
//! `notifications/initialized`, each over a connection closed once it is open: the session
//! lives on in the server) and the resident set again; then `CALLS` (BENCH_MEMORY_CALLS,
//! default 200) stateless (2026-07-28) calls of `bench_hold` in flight at once, each on its own
//! connection, and the resident set while they wait. Prints one JSON line: the three readings
//! and the cost of a session and of a call in flight, in KiB.

use std::process::ExitCode;
use std::time::Duration;

use hyper::Method;
use serde_json::{Value, json};

use crate::load::Connection;
use crate::server::{client_runtime, env_number, resident_kib, start_http_server};

/// How long the held calls wait before they answer.
const HOLD_MS: u64 = 3_000;

pub(crate) fn run(kind: &str) -> ExitCode {
    if !matches!(kind, "buril-http" | "rmcp-http") {
        eprintln!("usage: mcp-client memory (buril-http|rmcp-http)");
        return ExitCode::from(2);
    }
    let (sessions, calls) = (
        env_number("BENCH_MEMORY_SESSIONS", 500),
        env_number("BENCH_MEMORY_CALLS", 200),
    );
    let (mut child, authority, path) = start_http_server(kind);
    let (authority, path) = (authority.as_str(), path.as_str());
    let pid = child.id();
    let runtime = client_runtime();
    let settle = || std::thread::sleep(Duration::from_millis(500));
    // One session and its first call, so that what every server allocates once is in the
    // baseline.
    runtime.block_on(async {
        let id = open_session(authority, path).await;
        let answer = post(authority, path, Some(&id), &spawn_call()).await;
        assert!(answer.contains("crate_01"), "{answer}");
    });
    settle();
    let idle_kib = resident_kib(pid);
    runtime.block_on(async {
        for _ in 0..sessions {
            open_session(authority, path).await;
        }
    });
    settle();
    let sessions_kib = resident_kib(pid);
    let held = runtime.spawn({
        let (authority, path) = (authority.to_owned(), path.to_owned());
        async move {
            let mut handles = Vec::with_capacity(calls);
            for id in 0..calls {
                let (authority, path) = (authority.clone(), path.clone());
                handles.push(tokio::spawn(async move {
                    post(&authority, &path, None, &hold_call(id)).await
                }));
            }
            for handle in handles {
                let answer = handle.await.expect("a held call");
                assert!(answer.contains(&HOLD_MS.to_string()), "{answer}");
            }
        }
    });
    // The calls are all in flight well before they answer.
    std::thread::sleep(Duration::from_millis(HOLD_MS / 2));
    let in_flight_kib = resident_kib(pid);
    runtime.block_on(held).expect("the held calls");
    drop(runtime);
    drop(child.stdin.take());
    let _ = child.wait();
    let per = |after: u64, before: u64, n: usize| after.saturating_sub(before) as f64 / n as f64;
    println!(
        "{}",
        json!({
            "server": kind,
            "sessions": sessions,
            "calls_in_flight": calls,
            "idle_kib": idle_kib,
            "sessions_kib": sessions_kib,
            "in_flight_kib": in_flight_kib,
            "kib_per_session": per(sessions_kib, idle_kib, sessions),
            "kib_per_call_in_flight": per(in_flight_kib, sessions_kib, calls),
        })
    );
    ExitCode::SUCCESS
}

fn spawn_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "bench_spawn", "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
    }})
}

/// A stateless call of `bench_hold`.
fn hold_call(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "bench_hold", "arguments": {"ms": HOLD_MS},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-bench", "version": "0"},
        }
    }})
}

/// A 2025-06-18 session, initialized: its id.
async fn open_session(authority: &str, path: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "buril-bench", "version": "0"}
    }});
    let (id, answer) = exchange(authority, path, None, &initialize).await;
    assert!(answer.contains("protocolVersion"), "{answer}");
    let id = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    exchange(authority, path, Some(&id), &initialized).await;
    id
}

/// POSTs `message` on a connection of its own: the answer's body.
async fn post(authority: &str, path: &str, session: Option<&str>, message: &Value) -> String {
    exchange(authority, path, session, message).await.1
}

/// POSTs `message` on a connection of its own (closed after): the session id the server
/// gave, and the answer's body.
async fn exchange(
    authority: &str,
    path: &str,
    session: Option<&str>,
    message: &Value,
) -> (Option<String>, String) {
    let mut connection = Connection::open(authority, path).await;
    connection.send(Method::POST, session, Some(message)).await
}
