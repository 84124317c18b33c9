//! `mcp-client slow KIND` (`buril-http` or `rmcp-http`): other clients' calls while slow
//! clients hold connections.
//!
//! Four callers, each on a kept-alive connection of its own, make stateless (2026-07-28) calls
//! of `bench_spawn` one after another, BENCH_SLOW_CALLS (default 2,000) in all: first alone,
//! then while SLOW (BENCH_SLOW, default 256) connections of each kind hold the server:
//! - **headers** that trickle (slowloris): a request line, then a header line a second;
//! - **bodies** that trickle: whole headers announcing 1,000 bytes, then a byte a second;
//! - **readers** that read one byte at a time: a `tools/list`, its answer read a byte every
//!   10 ms.
//!
//! Each slow connection starts again when the server ends it (a 408, a closed connection), so
//! that SLOW of each kind stay open throughout. Prints one JSON line: the calls' p50 and p99
//! alone and with the slow clients, and how many slow connections the server ended.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::load::{Connection, spawn_call};
use crate::server::{client_runtime, env_number, quantile_us, start_http_server};

const CALLERS: usize = 4;

pub(crate) fn run(kind: &str) -> ExitCode {
    if !matches!(kind, "buril-http" | "rmcp-http") {
        eprintln!("usage: mcp-client slow (buril-http|rmcp-http)");
        return ExitCode::from(2);
    }
    let calls = env_number("BENCH_SLOW_CALLS", 2_000);
    let slow = env_number("BENCH_SLOW", 256);
    let (mut child, authority, path) = start_http_server(kind);
    let runtime = client_runtime();
    let (alone, with, ended, open_then) = runtime.block_on(async {
        // Warm-up, then the calls alone.
        calls_of(&authority, &path, calls / 10).await;
        let alone = calls_of(&authority, &path, calls).await;
        let stop = Arc::new(AtomicBool::new(false));
        let ended = Arc::new(AtomicUsize::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let mut holders = Vec::new();
        for way in [Way::Headers, Way::Body, Way::Reader] {
            for _ in 0..slow {
                let (authority, path) = (authority.clone(), path.clone());
                let (stop, ended, open) = (stop.clone(), ended.clone(), open.clone());
                holders.push(tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        hold(way, &authority, &path, &stop, &open).await;
                        ended.fetch_add(1, Ordering::Relaxed);
                    }
                }));
            }
        }
        // Every slow connection open and begun before the calls (or 30 s passed).
        let until = tokio::time::Instant::now() + Duration::from_secs(30);
        while open.load(Ordering::Relaxed) < 3 * slow && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let ended_before = ended.load(Ordering::Relaxed);
        let open_then = open.load(Ordering::Relaxed);
        let with = calls_of(&authority, &path, calls).await;
        let ended = ended.load(Ordering::Relaxed) - ended_before;
        stop.store(true, Ordering::Relaxed);
        for holder in holders {
            holder.abort();
        }
        (alone, with, ended, open_then)
    });
    println!(
        "{}",
        json!({
            "server": kind,
            "slow_each": slow,
            "calls": calls,
            "alone_p50_us": quantile_us(&alone, 0.50),
            "alone_p99_us": quantile_us(&alone, 0.99),
            "with_p50_us": quantile_us(&with, 0.50),
            "with_p99_us": quantile_us(&with, 0.99),
            "slow_ended": ended,
            "slow_open": open_then,
        })
    );
    drop(runtime);
    drop(child.stdin.take());
    let _ = child.wait();
    ExitCode::SUCCESS
}

/// `calls` checked calls by CALLERS callers on connections of their own: their latencies,
/// sorted.
async fn calls_of(authority: &str, path: &str, calls: usize) -> Vec<Duration> {
    let mut callers = Vec::new();
    for caller in 0..CALLERS {
        let (authority, path) = (authority.to_owned(), path.to_owned());
        let share = calls / CALLERS + usize::from(caller < calls % CALLERS);
        callers.push(tokio::spawn(async move {
            let mut connection = Connection::open(&authority, &path).await;
            let mut took = Vec::with_capacity(share);
            for n in 0..share {
                took.push(connection.call(None, &spawn_call(n, true)).await);
            }
            took
        }));
    }
    let mut latencies = Vec::with_capacity(calls);
    for caller in callers {
        latencies.extend(caller.await.expect("a caller"));
    }
    latencies.sort();
    latencies
}

#[derive(Clone, Copy)]
enum Way {
    Headers,
    Body,
    Reader,
}

/// One slow connection, held until the server ends it or `stop`.
async fn hold(way: Way, authority: &str, path: &str, stop: &AtomicBool, open: &AtomicUsize) {
    let Ok(mut stream) = TcpStream::connect(authority).await else {
        tokio::time::sleep(Duration::from_millis(100)).await;
        return;
    };
    let begun = match way {
        Way::Headers => format!("POST {path} HTTP/1.1\r\nhost: {authority}\r\n"),
        Way::Body => format!(
            "POST {path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{{"
        ),
        Way::Reader => {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "buril-bench", "version": "0"},
                }
            }})
            .to_string();
            format!(
                "POST {path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
                 accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
                 mcp-method: tools/list\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    if stream.write_all(begun.as_bytes()).await.is_err() {
        return;
    }
    open.fetch_add(1, Ordering::Relaxed);
    let mut byte = [0u8; 1];
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let going = match way {
            Way::Headers => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                stream.write_all(b"x-slow: 1\r\n").await.is_ok() && !answered(&mut stream).await
            }
            Way::Body => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                stream.write_all(b" ").await.is_ok() && !answered(&mut stream).await
            }
            Way::Reader => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                matches!(stream.read(&mut byte).await, Ok(1))
            }
        };
        if !going {
            break;
        }
    }
    open.fetch_sub(1, Ordering::Relaxed);
}

/// Whether the server has answered (or closed) a connection that has not finished its request.
async fn answered(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    tokio::time::timeout(Duration::ZERO, stream.read(&mut byte))
        .await
        .is_ok()
}
