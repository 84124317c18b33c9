//! The span of every `tools/call`, as OpenTelemetry's semantic conventions for MCP name it,
//! captured by a `tracing` subscriber of the test's own (its own test binary: the subscriber is
//! the process's global one).

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use buril::Dispatcher;
use buril::server::{Server, ServerOptions};
use common::peer::Peer;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

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

/// The spans seen: name and fields, by span id.
type Seen = Arc<Mutex<BTreeMap<u64, (String, BTreeMap<String, String>)>>>;

struct Capture(Seen);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let name = attrs.metadata().name().to_owned();
        self.0.lock().unwrap().insert(id.into_u64(), (name, fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some((_, fields)) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
}

fn seen() -> &'static Seen {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    SEEN.get_or_init(|| {
        let seen: Seen = Arc::default();
        let subscriber = tracing_subscriber::registry().with(Capture(Arc::clone(&seen)));
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
        seen
    })
}

/// The fields of the `tools/call` span whose `otel.name` is `name` and request id `id`.
fn span_of(name: &str, id: &str) -> BTreeMap<String, String> {
    let spans = seen().lock().unwrap();
    spans
        .values()
        .find(|(span, fields)| {
            span == "tools/call"
                && fields.get("otel.name").map(String::as_str) == Some(name)
                && fields.get("jsonrpc.request.id").map(String::as_str) == Some(id)
        })
        .map(|(_, fields)| fields.clone())
        .unwrap_or_else(|| panic!("no span {name} for request {id}: {spans:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_has_a_span_named_and_attributed_as_the_mcp_conventions_say() {
    seen();
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
    let spans = seen().lock().unwrap();
    let recorded = spans
        .values()
        .find(|(_, fields)| {
            fields.get("gen_ai.tool.call.arguments").map(String::as_str) == Some(r#"{"id":77}"#)
        })
        .map(|(_, fields)| fields.clone())
        .unwrap_or_else(|| panic!("no span recorded the arguments: {spans:?}"));
    assert_eq!(
        recorded.get("gen_ai.tool.call.result").map(String::as_str),
        Some(r#"{"result":"note 77"}"#)
    );
}
