//! `mcp-client startup KIND`: start-up time and memory (see the binary's documentation).

use std::io::{BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::server::{read_answer, resident_kib, send, server_binary, server_command};

/// `mcp-client startup KIND`: see the binary's documentation.
pub(crate) fn run(kind: &str) -> ExitCode {
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
