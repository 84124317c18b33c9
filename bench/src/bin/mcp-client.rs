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

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const IN_FLIGHT: usize = 32;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    let calls: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(20_000);
    // The server to start, and the tool to call on it.
    let (server_kind, tool) = match kind.as_str() {
        "buril" => ("buril", "bench_spawn"),
        "buril-inline" => ("buril", "bench_spawn_inline"),
        "rmcp" => ("rmcp", "bench_spawn"),
        _ => {
            eprintln!("usage: mcp-client (buril|buril-inline|rmcp) [CALLS]");
            return ExitCode::from(2);
        }
    };
    let server = std::env::current_exe()
        .expect("this binary's path")
        .with_file_name("mcp-server");
    let mut child = Command::new(server)
        .arg(server_kind)
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
