//! Many clients of one Streamable HTTP server at once, at a scale that fits the test command
//! (`bash scripts/bench.sh load` runs 1,000 sessions against rmcp): 200 legacy (2025-11-25)
//! sessions and a stream of stateless (2026-07-28) calls beside them, every answer checked;
//! then the sessions close, and the process's resident memory returns near where it was before
//! they opened (the server gives the allocator's free pages back once a burst ends,
//! `server/trim.rs`).
//!
//! One test in this file, so that the process's memory is this test's.

// The memory a process gives back is measured on Linux with glibc only (`server/trim.rs`).
#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use buril::server::ServerOptions;
use buril_test_support::wait_until;
use common::http::{open, post, post_stateless};
use common::servers::serve_http;
use serde_json::json;

const SESSIONS: usize = 200;
const CALLS: usize = 5;
const THREADS: usize = 8;

/// Adds two numbers.
#[buril::tool(off_thread, read_only)]
fn many_add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> i64 {
    a + b
}

fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

fn call(addr: SocketAddr, session: Option<&str>, n: usize) {
    let params = json!({"name": "many_add", "arguments": {"a": n, "b": 1}});
    let answer = match session {
        Some(session) => {
            let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params});
            post(addr, Some(session), &[], &body.to_string())
        }
        None => post_stateless(addr, &[], json!({}), params),
    };
    assert_eq!(answer.status, 200, "{answer:?}");
    let result = &answer.message()["result"];
    assert_eq!(result["structuredContent"]["result"], n + 1, "{answer:?}");
}

fn close(addr: SocketAddr, session: &str) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent
        .delete(format!("http://{addr}/mcp"))
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .call()
        .unwrap();
    assert!(response.status().is_success(), "{:?}", response.status());
}

#[test]
fn many_sessions_and_stateless_calls_are_answered_and_their_memory_given_back() {
    let addr = serve_http(ServerOptions::new());
    // What every session and call allocates once (validators, the first session).
    let warm = open(addr, json!({}));
    call(addr, Some(&warm), 0);
    call(addr, None, 0);
    close(addr, &warm);
    let gone = post(
        addr,
        Some(&warm),
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(),
    );
    assert_eq!(gone.status, 404, "{gone:?}");
    // The allocator's free pages given back now, as the server gives them back once a burst
    // has ended: what the process holds with no session open.
    // SAFETY: `malloc_trim` only releases the allocator's own free memory; it is safe to call
    // at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
    let before = resident_kib();

    // The sessions open, each calls CALLS times; a stateless caller for every ten sessions
    // calls as often beside them.
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let next = Arc::clone(&next);
            std::thread::spawn(move || {
                let mut sessions = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= SESSIONS {
                        return sessions;
                    }
                    let session = open(addr, json!({}));
                    for k in 0..CALLS {
                        call(addr, Some(&session), n * CALLS + k);
                        if n.is_multiple_of(10) {
                            call(addr, None, n * CALLS + k);
                        }
                    }
                    sessions.push(session);
                }
            })
        })
        .collect();
    let sessions: Vec<String> = workers
        .into_iter()
        .flat_map(|worker| worker.join().expect("a client"))
        .collect();
    assert_eq!(sessions.len(), SESSIONS);
    let open_kib = resident_kib();
    let grew = open_kib.saturating_sub(before);
    assert!(
        grew >= 2_048,
        "{SESSIONS} open sessions should take memory: {before} KiB before, {open_kib} KiB open"
    );

    for session in &sessions {
        close(addr, session);
    }
    // A closed session is gone: its next request is answered 404.
    let gone = post(
        addr,
        Some(&sessions[0]),
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(),
    );
    assert_eq!(gone.status, 404, "{gone:?}");
    // Memory returns near where it was: at most half of what the sessions took stays.
    let what = format!(
        "the sessions' memory given back ({before} KiB before they opened, {open_kib} KiB with \
         them open)"
    );
    wait_until(&what, || resident_kib().saturating_sub(before) <= grew / 2);
}
