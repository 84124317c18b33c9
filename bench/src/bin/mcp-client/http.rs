//! The client over Streamable HTTP.

use std::io::{BufRead, BufReader};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

const PROTOCOL_VERSION: &str = "2025-06-18";

/// The stateless revision: no session; each request names its version, capabilities and client
/// in `_meta`, and its method (and tool) in `Mcp-Method` and `Mcp-Name` headers.
const STATELESS_VERSION: &str = "2026-07-28";

/// Whether the client speaks the stateless revision (`BENCH_REVISION=2026-07-28`) instead of
/// 2025-06-18 sessions.
fn stateless() -> bool {
    std::env::var("BENCH_REVISION").is_ok_and(|revision| revision == STATELESS_VERSION)
}

/// One MCP session over one kept-alive connection (or, stateless, the connection alone).
struct Session {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    path: String,
    session_id: Option<String>,
    stateless: bool,
}

impl Session {
    /// POSTs `message`; answers the status and the JSON-RPC answer with `id`, if any (the
    /// body read to its end, so the connection is free for the next request).
    async fn post(&mut self, message: &Value) -> (StatusCode, Option<Value>) {
        let mut request = Request::post(&self.path)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        let mut message = message.clone();
        if self.stateless {
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            request = request
                .header("mcp-protocol-version", STATELESS_VERSION)
                .header("mcp-method", &method);
            if let Some(name) = message.pointer("/params/name").and_then(Value::as_str) {
                request = request.header("mcp-name", name);
            }
            if message.get("id").is_some() {
                message["params"]["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "buril-bench", "version": "0"},
                });
            }
        }
        let message = &message;
        if let Some(id) = &self.session_id {
            request = request
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", PROTOCOL_VERSION);
        }
        let body = Full::new(Bytes::from(serde_json::to_vec(message).expect("json")));
        self.sender
            .ready()
            .await
            .expect("the connection is ready for a request");
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
        let body = body_of(response).await;
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

/// A kept-alive HTTP/1.1 connection to `authority`, with `TCP_NODELAY` (only the server's
/// writes are under test: the client sends each request at once).
pub(crate) async fn connect(authority: &str) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect to the server");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    sender
}

/// The whole body of an answer.
pub(crate) async fn body_of(response: hyper::Response<hyper::body::Incoming>) -> Bytes {
    response
        .into_body()
        .collect()
        .await
        .expect("the answer's body")
        .to_bytes()
}

pub(crate) fn run(kind: &str, server_kind: &str, tool: &str, calls: usize) -> ExitCode {
    let mut child = crate::server::start_server(server_kind);
    let pid = child.id();
    // Its endpoint, on its first line.
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the server's URL");
    let url = url.trim();
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_at(rest.find('/').expect("a path"));
    // One thread for the calls one at a time (no hop between threads in the client's
    // latency), two for the concurrent runs, whose clients are many.
    let (latencies, elapsed) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(measure(authority, path, tool, calls));
    let idle_kib = crate::server::resident_kib(pid);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // 32 requests in flight (an HTTP/1.1 connection carries one at a time), then 100
    // clients at once, the server's memory read while the 100 are connected.
    let (in_flight, open) = runtime.block_on(concurrently(authority, path, tool, 32, calls * 4));
    drop(open);
    let (hundred, open) = runtime.block_on(concurrently(authority, path, tool, 100, calls * 4));
    let hundred_kib = crate::server::resident_kib(pid);
    drop(open);
    drop(runtime);
    drop(child.stdin.take());
    let _ = child.wait();
    let rate = |d: Duration, n: usize| n as f64 / d.as_secs_f64();
    println!(
        "{}",
        json!({
            "server": kind,
            "transport": "http",
            "calls": calls,
            "requests_per_second": calls as f64 / elapsed.as_secs_f64(),
            "p50_us": crate::server::quantile_us(&latencies, 0.50),
            "p99_us": crate::server::quantile_us(&latencies, 0.99),
            "in_flight_32_requests_per_second": rate(in_flight, 32 * (calls * 4).div_ceil(32)),
            "connections_100_requests_per_second": rate(hundred, 100 * (calls * 4).div_ceil(100)),
            "server_idle_kib": idle_kib,
            "server_100_connections_kib": hundred_kib,
        })
    );
    ExitCode::SUCCESS
}

/// A connection with an initialized session.
async fn open(authority: &str, path: &str) -> Session {
    let mut session = Session {
        sender: connect(authority).await,
        authority: authority.to_owned(),
        path: path.to_owned(),
        session_id: None,
        stateless: stateless(),
    };
    if session.stateless {
        return session;
    }
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
    session
}

fn request(tool: &str, id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool,
        "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
    }})
}

fn check(answer: Option<Value>) {
    let answer = answer.expect("an answer to the call");
    let result = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
    assert_ne!(result.get("isError"), Some(&Value::Bool(true)), "{answer}");
}

/// Initializes a session and makes `calls` calls one at a time: their latencies, sorted,
/// and the time they took together.
async fn measure(
    authority: &str,
    path: &str,
    tool: &str,
    calls: usize,
) -> (Vec<Duration>, Duration) {
    let mut session = open(authority, path).await;
    // Warm up.
    for id in 1..=(calls / 10).clamp(10, 200) {
        check(session.post(&request(tool, id)).await.1);
    }
    let mut latencies = Vec::with_capacity(calls);
    let start = Instant::now();
    for k in 0..calls {
        let sent = Instant::now();
        check(session.post(&request(tool, 1_000 + k)).await.1);
        latencies.push(sent.elapsed());
    }
    let elapsed = start.elapsed();
    latencies.sort();
    (latencies, elapsed)
}

/// `connections` clients at once, each its own connection and session, each making
/// `calls / connections` calls one after the other: the time they took together, and the
/// sessions, still connected.
async fn concurrently(
    authority: &str,
    path: &str,
    tool: &str,
    connections: usize,
    calls: usize,
) -> (Duration, Vec<Session>) {
    let mut sessions = Vec::with_capacity(connections);
    for _ in 0..connections {
        let mut session = open(authority, path).await;
        for id in 1..=5 {
            check(session.post(&request(tool, id)).await.1);
        }
        sessions.push(session);
    }
    let each = calls.div_ceil(connections);
    let start = Instant::now();
    let tasks: Vec<_> = sessions
        .into_iter()
        .map(|mut session| {
            let tool = tool.to_owned();
            tokio::spawn(async move {
                for k in 0..each {
                    check(session.post(&request(&tool, 1_000 + k)).await.1);
                }
                session
            })
        })
        .collect();
    let mut open = Vec::with_capacity(connections);
    for task in tasks {
        open.push(task.await.expect("a client"));
    }
    (start.elapsed(), open)
}
