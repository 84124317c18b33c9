//! `mcp-client load KIND` (`buril-http` or `rmcp-http`): many HTTP clients at once.
//!
//! For each of 10, 100, 1,000 and again 1,000 legacy (2025-06-18) sessions (BENCH_LOAD_LEVELS;
//! a level run again shows whether what the first run left grows), each session
//! on a kept-alive connection of its own makes CALLS (BENCH_LOAD_CALLS, default 20) calls of
//! `bench_spawn` one after another, while stateless (2026-07-28) callers, one for every ten
//! sessions and each on a connection of its own, make as many calls alongside. Every answer is
//! checked. Then every session is closed (`DELETE`) and the server left to settle.
//!
//! Prints one JSON line a level: the calls' p50 and p99 (sessions' and stateless together), the
//! server's resident set before the sessions were opened, with them open after their calls, and
//! after they were closed, in KiB.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request};
use serde_json::{Value, json};

use crate::server::{client_runtime, env_number, quantile_us, resident_kib, start_http_server};

pub(crate) fn run(kind: &str) -> ExitCode {
    if !matches!(kind, "buril-http" | "rmcp-http") {
        eprintln!("usage: mcp-client load (buril-http|rmcp-http)");
        return ExitCode::from(2);
    }
    let levels: Vec<usize> = std::env::var("BENCH_LOAD_LEVELS")
        .ok()
        .map(|levels| levels.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 100, 1000, 1000]);
    let calls = env_number("BENCH_LOAD_CALLS", 20);
    let (mut child, authority, path) = start_http_server(kind);
    let pid = child.id();
    let runtime = client_runtime();
    let settle = || std::thread::sleep(Duration::from_millis(500));
    // What every server allocates once: one session's first call.
    runtime.block_on(async {
        let mut connection = Connection::open(&authority, &path).await;
        let id = connection.open_session().await;
        connection.call(Some(&id), &spawn_call(1, false)).await;
        connection.close_session(&id).await;
    });
    let mut seen = Vec::new();
    for level in levels {
        let again = seen.contains(&level);
        seen.push(level);
        settle();
        let before_kib = resident_kib(pid);
        let (mut latencies, ids) = runtime.block_on(async {
            // The sessions, opened one after another.
            let mut sessions = Vec::with_capacity(level);
            for _ in 0..level {
                let mut connection = Connection::open(&authority, &path).await;
                let id = connection.open_session().await;
                sessions.push((connection, id));
            }
            let mut tasks = Vec::new();
            for (mut connection, id) in sessions {
                tasks.push(tokio::spawn(async move {
                    let mut took = Vec::with_capacity(calls);
                    for n in 0..calls {
                        took.push(connection.call(Some(&id), &spawn_call(n, false)).await);
                    }
                    (took, Some((connection, id)))
                }));
            }
            for _ in 0..level.div_ceil(10) {
                let (authority, path) = (authority.clone(), path.clone());
                tasks.push(tokio::spawn(async move {
                    let mut took = Vec::with_capacity(calls);
                    for n in 0..calls {
                        let mut connection = Connection::open(&authority, &path).await;
                        took.push(connection.call(None, &spawn_call(n, true)).await);
                    }
                    (took, None)
                }));
            }
            let mut latencies = Vec::new();
            let mut open = Vec::new();
            for task in tasks {
                let (took, session) = task.await.expect("a client");
                latencies.extend(took);
                open.extend(session);
            }
            (latencies, open)
        });
        let open_kib = resident_kib(pid);
        runtime.block_on(async {
            for (mut connection, id) in ids {
                connection.close_session(&id).await;
            }
        });
        settle();
        let closed_kib = resident_kib(pid);
        latencies.sort();
        println!(
            "{}",
            json!({
                "server": kind,
                "sessions": level,
                "again": again,
                "calls": latencies.len(),
                "p50_us": quantile_us(&latencies, 0.50),
                "p99_us": quantile_us(&latencies, 0.99),
                "before_kib": before_kib,
                "open_kib": open_kib,
                "closed_kib": closed_kib,
            })
        );
    }
    drop(runtime);
    drop(child.stdin.take());
    let _ = child.wait();
    ExitCode::SUCCESS
}

pub(crate) fn spawn_call(id: usize, stateless: bool) -> Value {
    let mut call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "bench_spawn", "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
    }});
    if stateless {
        call["params"]["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-bench", "version": "0"},
        });
    }
    call
}

/// A kept-alive HTTP/1.1 connection to the server's endpoint.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    path: String,
}

impl Connection {
    pub(crate) async fn open(authority: &str, path: &str) -> Connection {
        Connection {
            sender: crate::http::connect(authority).await,
            authority: authority.to_owned(),
            path: path.to_owned(),
        }
    }

    /// A 2025-06-18 session, initialized: its id.
    async fn open_session(&mut self) -> String {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "buril-bench", "version": "0"}
        }});
        let (id, answer) = self.send(Method::POST, None, Some(&initialize)).await;
        assert!(answer.contains("protocolVersion"), "{answer}");
        let id = id.expect("a session id");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.send(Method::POST, Some(&id), Some(&initialized)).await;
        id
    }

    /// A call, checked: how long it took.
    pub(crate) async fn call(&mut self, session: Option<&str>, call: &Value) -> Duration {
        let start = Instant::now();
        let (_, answer) = self.send(Method::POST, session, Some(call)).await;
        let took = start.elapsed();
        assert!(answer.contains("\"x\":25.0"), "{answer}");
        took
    }

    async fn close_session(&mut self, session: &str) {
        self.send(Method::DELETE, Some(session), None).await;
    }

    /// Sends `message` (`None`: an empty body), with the session's headers, or a stateless
    /// call's (`Mcp-Method`, `Mcp-Name`) when its `_meta` names the revision: the session id the
    /// server gave, and the answer's body.
    pub(crate) async fn send(
        &mut self,
        method: Method,
        session: Option<&str>,
        message: Option<&Value>,
    ) -> (Option<String>, String) {
        let mut request = Request::builder()
            .method(method)
            .uri(&self.path)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        if let Some(message) = message
            && let Some(version) =
                message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        {
            let name = message
                .pointer("/params/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            request = request
                .header("mcp-protocol-version", version.as_str().unwrap_or_default())
                .header("mcp-method", "tools/call")
                .header("mcp-name", name);
        }
        let body = match message {
            Some(message) => Bytes::from(serde_json::to_vec(message).expect("json")),
            None => Bytes::new(),
        };
        self.sender.ready().await.expect("the connection is open");
        let response = self
            .sender
            .send_request(request.body(Full::new(body)).expect("a request"))
            .await
            .expect("an answer from the server");
        let id = response
            .headers()
            .get("mcp-session-id")
            .map(|id| id.to_str().expect("a session id").to_owned());
        let body = crate::http::body_of(response).await;
        (id, String::from_utf8_lossy(&body).into_owned())
    }
}
