//! Over stdio: latency one call at a time, then throughput with 32 requests in flight, then the
//! server's CPU time a call.

use std::io::{BufReader, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use serde_json::{Value, json};

use crate::server::{children_cpu, micros, quantile_us, read_answer, send, start_server};

const IN_FLIGHT: usize = 32;

pub(crate) fn run(kind: &str, server_kind: &str, tool: &str, calls: usize) -> ExitCode {
    let mut child = start_server(server_kind);
    let mut input = std::io::BufWriter::new(child.stdin.take().expect("stdin"));
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));

    let mut read = move || read_answer(&mut output);

    // The stateless revision (`BENCH_REVISION=2026-07-28`): no `initialize`; each request
    // carries its version, capabilities and client in `_meta`.
    let stateless = std::env::var("BENCH_REVISION").is_ok_and(|revision| revision == "2026-07-28");
    if !stateless {
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
    }

    let request = |id: usize| {
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": tool,
            "arguments": {"name": "crate_01", "x": 12.5, "tag": "props"}
        }});
        if stateless {
            request["params"]["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "buril-bench", "version": "0"},
            });
        }
        request
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
            "p50_us": quantile_us(&latencies, 0.50),
            "p99_us": quantile_us(&latencies, 0.99),
            "latency_calls": latency_calls,
            "server_cpu_us_per_call": server_cpu,
        })
    );
    ExitCode::SUCCESS
}
