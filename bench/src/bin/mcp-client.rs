//! The MCP benchmark's client (goal 6): starts a server (`mcp-server buril` or
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

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const IN_FLIGHT: usize = 32;

/// `mcp-server`, beside this binary, or the one `BENCH_MCP_SERVER` names (the cost benchmark
/// measures an older commit's server with today's client).
fn server_binary() -> std::path::PathBuf {
    match std::env::var_os("BENCH_MCP_SERVER") {
        Some(path) if !path.is_empty() => path.into(),
        _ => std::env::current_exe()
            .expect("this binary's path")
            .with_file_name("mcp-server"),
    }
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

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The CPU time, user and system, of the children this process has waited for (here, the
/// server: `taskset` execs it).
#[cfg(unix)]
fn children_cpu() -> Option<Duration> {
    // SAFETY: `getrusage` writes the struct it is given, which is plain data.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        if libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) != 0 {
            return None;
        }
        usage
    };
    let of = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.try_into().unwrap_or(0))
            + Duration::from_micros(t.tv_usec.try_into().unwrap_or(0))
    };
    Some(of(usage.ru_utime) + of(usage.ru_stime))
}

#[cfg(not(unix))]
fn children_cpu() -> Option<Duration> {
    None
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    if kind == "startup" {
        return startup(&args.next().unwrap_or_default());
    }
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

    let mut read = move || read_answer(&mut output);

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
    // Every call the server answered: warm-up, latency and throughput (its start is a few
    // milliseconds of the whole).
    let answered = 200 + latency_calls + calls;
    let server_cpu = children_cpu().map(|cpu| micros(cpu) / answered as f64);

    println!(
        "{}",
        json!({
            "server": kind,
            "calls": calls,
            "requests_per_second": calls as f64 / elapsed.as_secs_f64(),
            "p50_us": micros(percentile(0.50)),
            "p99_us": micros(percentile(0.99)),
            "latency_calls": latency_calls,
            "server_cpu_us_per_call": server_cpu,
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
        let idle_kib = super::resident_kib(pid);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        // 32 requests in flight (an HTTP/1.1 connection carries one at a time), then 100
        // clients at once, the server's memory read while the 100 are connected.
        let (in_flight, open) =
            runtime.block_on(concurrently(authority, path, tool, 32, calls * 4));
        drop(open);
        let (hundred, open) = runtime.block_on(concurrently(authority, path, tool, 100, calls * 4));
        let hundred_kib = super::resident_kib(pid);
        drop(open);
        drop(runtime);
        drop(child.stdin.take());
        let _ = child.wait();
        let percentile = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];
        let micros = super::micros;
        let rate = |d: Duration, n: usize| n as f64 / d.as_secs_f64();
        println!(
            "{}",
            json!({
                "server": kind,
                "transport": "http",
                "calls": calls,
                "requests_per_second": calls as f64 / elapsed.as_secs_f64(),
                "p50_us": micros(percentile(0.50)),
                "p99_us": micros(percentile(0.99)),
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
}

/// `mcp-client startup KIND`: see the module's documentation.
fn startup(kind: &str) -> ExitCode {
    let (mut command, tool, arguments) = match kind {
        "buril" | "rmcp" => (
            server_command(kind),
            "bench_spawn".to_owned(),
            json!({"name": "crate_01", "x": 12.5, "tag": "props"}),
        ),
        "buril-many" | "rmcp-many" => (
            server_command(kind),
            // The first tool `buril_bench::synthetic` makes.
            "fam000_run_tool00000".to_owned(),
            json!({"text": "measure me"}),
        ),
        "tools" => {
            // In a project folder of its own, made on first use.
            let project = std::env::temp_dir().join("buril-startup-project");
            std::fs::create_dir_all(&project).expect("a project folder");
            let mut command = Command::new(server_binary().with_file_name("tools"));
            command.arg("serve").current_dir(&project);
            (command, "console_read".to_owned(), json!({}))
        }
        _ => {
            eprintln!("usage: mcp-client startup (buril|rmcp|buril-many|rmcp-many|tools)");
            return ExitCode::from(2);
        }
    };
    let launched = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let pid = child.id();
    let mut input = std::io::BufWriter::new(child.stdin.take().expect("stdin"));
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut post = |message: &Value| {
        send(&mut input, message);
        input.flush().expect("flush");
    };
    let mut read = || read_answer(&mut output);
    post(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "buril-bench", "version": "0"}
        }}),
    );
    let initialized = read();
    assert!(initialized.get("result").is_some(), "{initialized}");
    post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    post(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": tool, "arguments": arguments
        }}),
    );
    let answer = read();
    let first_call = launched.elapsed();
    let result = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
    assert_ne!(result.get("isError"), Some(&Value::Bool(true)), "{answer}");
    // Idle: whatever the server does after its first answer has settled.
    std::thread::sleep(Duration::from_millis(300));
    let idle_kib = resident_kib(pid);
    let listing = Instant::now();
    let mut listed = 0usize;
    let mut cursor: Option<Value> = None;
    for id in 2.. {
        let mut params = json!({});
        if let Some(cursor) = cursor.take() {
            params["cursor"] = cursor;
        }
        post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
        let page = read();
        let result = page.get("result").unwrap_or_else(|| panic!("{page}"));
        listed += result["tools"].as_array().map_or(0, Vec::len);
        match result.get("nextCursor") {
            Some(next) if !next.is_null() => cursor = Some(next.clone()),
            _ => break,
        }
    }
    let list_time = listing.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let listed_kib = resident_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    println!(
        "{}",
        json!({
            "startup": kind,
            "first_call_ms": first_call.as_secs_f64() * 1e3,
            "idle_kib": idle_kib,
            "tools": listed,
            "list_ms": list_time.as_secs_f64() * 1e3,
            "listed_kib": listed_kib,
        })
    );
    ExitCode::SUCCESS
}

/// The resident set of process `pid`, in KiB (Linux; 0 elsewhere).
fn resident_kib(pid: u32) -> u64 {
    buril_bench::resident_kib(&format!("/proc/{pid}/status"))
}

/// Writes `message` to the server as one line (unflushed).
fn send(input: &mut dyn Write, message: &Value) {
    let mut line = serde_json::to_vec(message).expect("json");
    line.push(b'\n');
    input.write_all(&line).expect("write to the server");
}

/// The server's next answer: the next message with an id, notifications (logging, list
/// changes) skipped.
fn read_answer(output: &mut impl BufRead) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let n = output.read_line(&mut line).expect("read from the server");
        assert!(n > 0, "the server closed its output");
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        if message.get("id").is_some() {
            return message;
        }
    }
}
