//! The floor server: the least a server can do to answer a tool call over a transport. It reads
//! a JSON-RPC request, parses it, calls the same Rust function as the benchmarked servers
//! (`work::spawn`, through [`floor::spawn`](crate::floor::spawn)), serializes the answer and
//! writes it: no MCP machinery (no sessions, no validation beyond serde's, no cancellation, no
//! notifications). `initialize` gets a fixed answer, so that the benchmark's client (which
//! speaks MCP) can drive it; notifications are read and dropped.
//!
//! `mcp-server floor` serves it over stdio (a line in, a line out, one thread, output flushed
//! when no more input is waiting); `mcp-server floor-http` over HTTP/1.1 with hyper (a POST in,
//! an `application/json` body out).

use serde_json::{Map, Value, json};

/// The answer to one JSON-RPC message, as the bytes of a JSON object; `None` for a
/// notification (or anything without an `id`).
pub fn answer(message: &[u8]) -> Option<Vec<u8>> {
    let request: Value = match serde_json::from_slice(message) {
        Ok(request) => request,
        Err(error) => {
            return Some(error_answer(
                &Value::Null,
                -32700,
                &format!("not JSON: {error}"),
            ));
        }
    };
    let id = request.get("id")?;
    let answer = match request.get("method").and_then(Value::as_str) {
        Some("tools/call") => {
            let params = request.get("params");
            let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            match name {
                Some("bench_spawn" | "bench_spawn_inline") => {
                    result(id, call_result(crate::floor::spawn(arguments)))
                }
                _ => return Some(error_answer(id, -32602, "no such tool")),
            }
        }
        Some("initialize") => {
            let version = request
                .pointer("/params/protocolVersion")
                .cloned()
                .unwrap_or_else(|| Value::from("2025-11-25"));
            result(
                id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "floor", "version": "1"},
                }),
            )
        }
        Some("ping") => result(id, json!({})),
        _ => return Some(error_answer(id, -32601, "method not found")),
    };
    Some(answer)
}

/// The envelope as MCP's `CallToolResult`: its data as structured content and as the one text
/// block, as the benchmarked servers answer.
fn call_result(envelope: Value) -> Value {
    let ok = envelope.get("ok") == Some(&Value::Bool(true));
    let data = if ok {
        envelope.get("data").cloned().unwrap_or(Value::Null)
    } else {
        envelope
    };
    let text = data.to_string();
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": data,
        "isError": !ok,
    })
}

fn result(id: &Value, result: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default()
}

fn error_answer(id: &Value, code: i64, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_answered_as_the_benchmarked_servers_answer_it() {
        let request = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bench_spawn","arguments":{"name":"a","x":1.5}}}"#;
        let answered: Value = serde_json::from_slice(&answer(request).unwrap()).unwrap();
        assert_eq!(answered["id"], 7);
        assert_eq!(
            answered["result"]["structuredContent"],
            json!({"name": "a", "x": 3.0, "tagged": false})
        );
        assert_eq!(answered["result"]["isError"], false);
        let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(answer(notification).is_none());
        let wrong = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bench_spawn","arguments":{"x":"no"}}}"#;
        let wrong: Value = serde_json::from_slice(&answer(wrong).unwrap()).unwrap();
        assert_eq!(wrong["result"]["isError"], true);
    }
}
