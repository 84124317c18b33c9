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

mod http;
mod startup;

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
        return startup::run(&args.next().unwrap_or_default());
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
