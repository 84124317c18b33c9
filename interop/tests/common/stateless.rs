//! A small client of one MCP server over Streamable HTTP: stateless 2026-07-28 requests, a
//! connection each (`Connection: close`), with the protocol headers, `Mcp-Method`, `Mcp-Name`
//! and the client's capabilities in `_meta`. What the tasks tests and the tasks benchmark
//! (`bench/src/bin/tasks-client.rs`) send.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

/// MCP's tasks extension.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One JSON-RPC request from a client that declares the tasks extension (`follows`) or
/// declares nothing; answers the JSON-RPC response.
pub fn rpc_as(url: &str, method: &str, params: Value, follows: bool) -> Value {
    try_rpc_as(url, method, params, follows).unwrap_or_else(|error| panic!("{error}"))
}

/// [`rpc_as`], answering what went wrong instead of panicking: a connection refused or cut,
/// an answer that is not JSON-RPC (a load balancer's own 502 page, say).
pub fn try_rpc_as(
    url: &str,
    method: &str,
    mut params: Value,
    follows: bool,
) -> Result<Value, String> {
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL");
    params["_meta"] = json!({
        "io.modelcontextprotocol/clientCapabilities":
            if follows { json!({"extensions": {TASKS: {}}}) } else { json!({}) },
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    });
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .map(|name| format!("Mcp-Name: {name}\r\n"))
        .unwrap_or_default();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut stream = TcpStream::connect(address)
        .map_err(|error| format!("{method}: cannot connect to {address}: {error}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    let mut raw = Vec::new();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: \
         {method}\r\n{name}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .and_then(|()| stream.read_to_end(&mut raw))
    .map_err(|error| format!("{method}: no answer from {address}: {error}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{method}: not an HTTP answer: {text:?}"))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    // JSON, or one Server-Sent Event whose data is the answer.
    let json_text = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|data| !data.is_empty())
        .map_or(body.trim().to_owned(), str::to_owned);
    serde_json::from_str(&json_text)
        .map_err(|error| format!("{method}: not JSON ({error}): {head}\n{body}"))
}

/// Whether `task` (a `tasks/get` result) has ended: completed, failed or cancelled.
pub fn has_ended(task: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or(""))
}

/// One request of a client that declares the tasks extension: its result, or what went wrong
/// (a JSON-RPC error included).
pub fn try_result(url: &str, method: &str, params: Value) -> Result<Value, String> {
    let answer = try_rpc_as(url, method, params, true)?;
    match answer.get("error") {
        Some(error) => Err(format!("{method}: {error}")),
        None => Ok(answer["result"].clone()),
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || tail.len() < size {
            break;
        }
        body.push_str(&tail[..size]);
        rest = tail[size..].trim_start_matches("\r\n");
    }
    body
}
