//! The span of every `tools/call`, as OpenTelemetry's semantic conventions for MCP name it,
//! captured by a `tracing` subscriber of the test's own (its own test binary: the subscriber is
//! the process's global one).

mod common;

use std::collections::BTreeMap;

use buril::Dispatcher;
use buril::server::{Server, ServerOptions};
use buril_test_support::capture::Captured;
use common::peer::Peer;
use serde_json::json;

/// Reads a note.
#[buril::tool(off_thread, read_only)]
fn note_read(
    /// The note's number.
    id: u32,
) -> Result<String, String> {
    if id == 0 {
        return Err("there is no note 0".into());
    }
    Ok(format!("note {id}"))
}

/// The fields of the `tools/call` span whose `otel.name` is `name` and request id `id`.
fn span_of(name: &str, id: &str) -> BTreeMap<String, String> {
    Captured::global()
        .span(
            "tools/call",
            &[("otel.name", name), ("jsonrpc.request.id", id)],
        )
        .fields
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_has_a_span_named_and_attributed_as_the_mcp_conventions_say() {
    Captured::global();
    let server = Server::new(Dispatcher::new(), ServerOptions::new().messages(|_| {})).unwrap();
    let mut peer = Peer::connect(server).await;
    let ok = peer
        .request(
            "tools/call",
            json!({"name": "note_read", "arguments": {"id": 4}}),
        )
        .await;
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    let failed = peer
        .request(
            "tools/call",
            json!({"name": "note_read", "arguments": {"id": 0}}),
        )
        .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let unknown = peer
        .request("tools/call", json!({"name": "note_lost", "arguments": {}}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let id = |answer: &serde_json::Value| answer["id"].to_string();
    let span = span_of("tools/call note_read", &id(&ok));
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "note_read"),
        ("gen_ai.operation.name", "execute_tool"),
        ("network.transport", "pipe"),
        ("otel.kind", "server"),
    ] {
        assert_eq!(
            span.get(key).map(String::as_str),
            Some(value),
            "{key}: {span:?}"
        );
    }
    assert!(span.contains_key("mcp.protocol.version"), "{span:?}");
    assert!(
        !span.contains_key("error.type"),
        "a success has no error.type: {span:?}"
    );
    let span = span_of("tools/call note_read", &id(&failed));
    assert_eq!(
        span.get("error.type").map(String::as_str),
        Some("tool_error")
    );
    let span = span_of("tools/call note_lost", &id(&unknown));
    assert_eq!(span.get("error.type").map(String::as_str), Some("-32602"));
    // Arguments and results are left out unless the host opts in.
    let span = span_of("tools/call note_read", &id(&ok));
    assert!(!span.contains_key("gen_ai.tool.call.arguments"), "{span:?}");
    assert!(!span.contains_key("gen_ai.tool.call.result"), "{span:?}");

    let opted = Server::new(
        Dispatcher::new(),
        ServerOptions::new().messages(|_| {}).trace_content(true),
    )
    .unwrap();
    let mut peer = Peer::connect(opted).await;
    let answer = peer
        .request(
            "tools/call",
            json!({"name": "note_read", "arguments": {"id": 77}}),
        )
        .await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let recorded = Captured::global()
        .spans_named(
            "tools/call",
            &[("gen_ai.tool.call.arguments", r#"{"id":77}"#)],
        )
        .pop()
        .map(|(_, seen)| seen.fields)
        .unwrap_or_else(|| {
            panic!(
                "no span recorded the arguments: {:?}",
                Captured::global().spans.lock().unwrap()
            )
        });
    assert_eq!(
        recorded.get("gen_ai.tool.call.result").map(String::as_str),
        Some(r#"{"result":"note 77"}"#)
    );
}
