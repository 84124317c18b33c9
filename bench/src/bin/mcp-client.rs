//! The MCP benchmark's client (goal 6): starts a server (`mcp-server buril` or
//! `mcp-server rmcp`, beside this binary) and drives it over stdio with newline-delimited
//! JSON-RPC, the same client for both:
//!
//! - latency: `tools/call` one at a time, each answer awaited; p50 and p99;
//! - throughput: `tools/call` pipelined with 32 requests in flight; requests per second.
//!
//! ```text
//! mcp-client buril [CALLS]          # prints one JSON line of figures
//! mcp-client buril-inline [CALLS]   # the buril server, calling the tool's `inline` twin
//! mcp-client rmcp [CALLS]
//! ```
//!
//! Over Streamable HTTP (`mcp-server buril-http` or `mcp-server rmcp-http`), one kept-alive
//! HTTP/1.1 connection (hyper's client, `TCP_NODELAY` set): `initialize`, then `CALLS`
//! `tools/call` one at a time, each answer (an SSE stream) read to its end; p50, p99, and
//! requests per second over those sequential calls.
//!
//! ```text
//! mcp-client buril-http [CALLS]     # default 2,000 calls
//! mcp-client buril-inline-http [CALLS]
//! mcp-client rmcp-http [CALLS]
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const IN_FLIGHT: usize = 32;

/// `mcp-server`, beside this binary.
fn server_binary() -> std::path::PathBuf {
    std::env::current_exe()
        .expect("this binary's path")
        .with_file_name("mcp-server")
}

/// `mcp-server KIND`, under `taskset -c CPUS` when `BENCH_SERVER_CPUS` says so (the script runs
/// the client on the other CPUs, so that where the scheduler puts the server varies less).
fn server_command(kind: &str) -> Command {
    match std::env::var("BENCH_SERVER_CPUS") {
        Ok(cpus) if !cpus.is_empty() => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpus).arg(server_binary()).arg(kind);
            command
        }
        _ => {
            let mut command = Command::new(server_binary());
            command.arg(kind);
            command
        }
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    let calls: Option<usize> = args.next().and_then(|n| n.parse().ok());
    // The server to start, and the tool to call on it.
    let (server_kind, tool) = match kind.as_str() {
        "buril" => ("buril", "bench_spawn"),
        "buril-inline" => ("buril", "bench_spawn_inline"),
        "rmcp" => ("rmcp", "bench_spawn"),
        "buril-http" => ("buril-http", "bench_spawn"),
        "buril-inline-http" => ("buril-http", "bench_spawn_inline"),
        "rmcp-http" => ("rmcp-http", "bench_spawn"),
        _ => {
            eprintln!(
                "usage: mcp-client (buril|buril-inline|rmcp|buril-http|buril-inline-http|rmcp-http) \
                 [CALLS]"
            );
            return ExitCode::from(2);
        }
    };
    if server_kind.ends_with("-http") {
        return http::run(&kind, server_kind, tool, calls.unwrap_or(2_000));
    }
    let calls = calls.unwrap_or(20_000);
    let mut child = server_command(server_kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start mcp-server");
    let mut input = std::io::BufWriter::new(child.stdin.take().expect("stdin"));
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));

    let send = |input: &mut dyn Write, message: &Value| {
        let mut line = serde_json::to_vec(message).expect("json");
        line.push(b'\n');
        input.write_all(&line).expect("write to the server");
    };
    let mut read = move || -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            let n = output.read_line(&mut line).expect("read from the server");
            assert!(n > 0, "the server closed its output");
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
            // Skip notifications (logging, list changes).
            if message.get("id").is_some() {
                return message;
            }
        }
    };

    send(
        &mut input,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "buril-bench", "version": "0"}
        }}),
    );
    input.flush().expect("flush");
    let initialized = read();
    assert!(initialized.get("result").is_some(), "{initialized}");
    send(
        &mut input,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );

    let request = |id: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": tool,
            "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
        }})
    };
    let check = |answer: &Value| {
        let result = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
        assert_ne!(result.get("isError"), Some(&Value::Bool(true)), "{answer}");
    };

    // Warm up.
    for id in 1..=200 {
        send(&mut input, &request(id));
        input.flush().expect("flush");
        check(&read());
    }

    // Latency: one at a time.
    let latency_calls = (calls / 4).max(100);
    let mut latencies = Vec::with_capacity(latency_calls);
    for k in 0..latency_calls {
        let start = Instant::now();
        send(&mut input, &request(1_000 + k));
        input.flush().expect("flush");
        check(&read());
        latencies.push(start.elapsed());
    }
    latencies.sort();
    let percentile = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];

    // Throughput: 32 in flight. A reader thread returns a credit per answer.
    let (credits, credit) = mpsc::channel::<()>();
    let reader = std::thread::spawn(move || {
        for _ in 0..calls {
            check(&read());
            if credits.send(()).is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    let mut in_flight = 0usize;
    for k in 0..calls {
        if in_flight == IN_FLIGHT {
            input.flush().expect("flush");
            credit.recv().expect("the reader stopped");
            in_flight -= 1;
            while credit.try_recv().is_ok() {
                in_flight -= 1;
            }
        }
        send(&mut input, &request(1_000_000 + k));
        in_flight += 1;
    }
    input.flush().expect("flush");
    reader.join().expect("reader");
    let elapsed = start.elapsed();
    drop(input);
    let _ = child.wait();

    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{}",
        json!({
            "server": kind,
            "calls": calls,
            "requests_per_second": calls as f64 / elapsed.as_secs_f64(),
            "p50_us": micros(percentile(0.50)),
            "p99_us": micros(percentile(0.99)),
            "latency_calls": latency_calls,
        })
    );
    ExitCode::SUCCESS
}

/// The client over Streamable HTTP.
mod http {
    use std::io::{BufRead, BufReader};
    use std::process::{ExitCode, Stdio};
    use std::time::{Duration, Instant};

    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use hyper::client::conn::http1::SendRequest;
    use hyper::{Request, StatusCode};
    use hyper_util::rt::TokioIo;
    use serde_json::{Value, json};

    const PROTOCOL_VERSION: &str = "2025-06-18";

    /// One MCP session over one kept-alive connection.
    struct Session {
        sender: SendRequest<Full<Bytes>>,
        authority: String,
        path: String,
        session_id: Option<String>,
    }

    impl Session {
        /// POSTs `message`; answers the status and the JSON-RPC answer with `id`, if any (the
        /// body read to its end, so the connection is free for the next request).
        async fn post(&mut self, message: &Value) -> (StatusCode, Option<Value>) {
            let mut request = Request::post(&self.path)
                .header("host", &self.authority)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
            if let Some(id) = &self.session_id {
                request = request
                    .header("mcp-session-id", id)
                    .header("mcp-protocol-version", PROTOCOL_VERSION);
            }
            let body = Full::new(Bytes::from(serde_json::to_vec(message).expect("json")));
            let response = self
                .sender
                .send_request(request.body(body).expect("a request"))
                .await
                .expect("an answer from the server");
            let status = response.status();
            if let Some(id) = response.headers().get("mcp-session-id") {
                self.session_id = Some(id.to_str().expect("a session id").to_owned());
            }
            let is_sse = response
                .headers()
                .get("content-type")
                .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
            let body = response
                .into_body()
                .collect()
                .await
                .expect("the answer's body")
                .to_bytes();
            let want = message.get("id");
            let answer = if is_sse {
                // `data:` lines of the events; the answer is the one with the request's id.
                String::from_utf8_lossy(&body)
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                    .find(|event| want.is_some() && event.get("id") == want)
            } else {
                serde_json::from_slice(&body).ok()
            };
            (status, answer)
        }
    }

    pub(super) fn run(kind: &str, server_kind: &str, tool: &str, calls: usize) -> ExitCode {
        let mut child = super::server_command(server_kind)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mcp-server");
        // Its endpoint, on its first line.
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("the server's URL");
        let url = url.trim();
        let rest = url.strip_prefix("http://").expect("an http URL");
        let (authority, path) = rest.split_at(rest.find('/').expect("a path"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let figures = runtime.block_on(measure(authority, path, tool, calls));
        drop(child.stdin.take());
        let _ = child.wait();
        let (latencies, elapsed) = figures;
        let percentile = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{}",
            json!({
                "server": kind,
                "transport": "http",
                "calls": calls,
                "requests_per_second": calls as f64 / elapsed.as_secs_f64(),
                "p50_us": micros(percentile(0.50)),
                "p99_us": micros(percentile(0.99)),
            })
        );
        ExitCode::SUCCESS
    }

    /// Initializes a session and makes `calls` calls one at a time: their latencies, sorted,
    /// and the time they took together.
    async fn measure(
        authority: &str,
        path: &str,
        tool: &str,
        calls: usize,
    ) -> (Vec<Duration>, Duration) {
        let stream = tokio::net::TcpStream::connect(authority)
            .await
            .expect("connect to the server");
        // Only the server's writes are under test: the client sends each request at once.
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("an HTTP/1.1 connection");
        tokio::spawn(connection);
        let mut session = Session {
            sender,
            authority: authority.to_owned(),
            path: path.to_owned(),
            session_id: None,
        };
        let (status, answer) = session
            .post(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "buril-bench", "version": "0"}
                }}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "initialize: {answer:?}");
        assert!(
            answer.is_some_and(|a| a.get("result").is_some()),
            "initialize"
        );
        let (status, _) = session
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert!(status.is_success(), "notifications/initialized: {status}");

        let request = |id: usize| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": tool,
                "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
            }})
        };
        let check = |answer: Option<Value>| {
            let answer = answer.expect("an answer to the call");
            let result = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
            assert_ne!(result.get("isError"), Some(&Value::Bool(true)), "{answer}");
        };
        // Warm up.
        for id in 1..=(calls / 10).clamp(10, 200) {
            check(session.post(&request(id)).await.1);
        }
        let mut latencies = Vec::with_capacity(calls);
        let start = Instant::now();
        for k in 0..calls {
            let sent = Instant::now();
            check(session.post(&request(1_000 + k)).await.1);
            latencies.push(sent.elapsed());
        }
        let elapsed = start.elapsed();
        latencies.sort();
        (latencies, elapsed)
    }
}
