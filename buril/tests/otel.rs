//! OTLP export (feature `otel`): a receiver in the test process gets the `tools/call` spans,
//! children of the `traceparent` the client sent, with their attributes, and the
//! `mcp.server.operation.duration` and `buril.tool.calls` metrics. Configured by the standard
//! `OTEL_*` variables, set before anything else runs (its own test binary, one test).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use buril::Dispatcher;
use buril::server::{Server, ServerOptions};
use common::peer::Peer;
use serde_json::{Value, json};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

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

/// What the receiver got: each request's path and JSON body, and a signal for each new one.
type Received = Arc<(Mutex<Vec<(String, Value)>>, Condvar)>;

/// An OTLP/HTTP receiver on loopback, answering every export `{}`.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let received: Received = Arc::default();
    let keep = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let keep = Arc::clone(&keep);
            std::thread::spawn(move || serve(stream, &keep));
        }
    });
    (url, received)
}

/// Answers the requests of one connection (kept alive) until it closes.
fn serve(mut stream: std::net::TcpStream, received: &Received) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
            let lower = header.to_ascii_lowercase();
            if let Some(value) = lower.strip_prefix("content-length:") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (got, arrived) = &**received;
        got.lock().unwrap().push((path, body));
        arrived.notify_all();
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
        );
    }
}

/// The value of an OTLP/JSON attribute list's `key`.
fn attribute<'a>(attributes: &'a Value, key: &str) -> Option<&'a Value> {
    attributes
        .as_array()?
        .iter()
        .find(|attribute| attribute["key"] == key)
        .map(|attribute| &attribute["value"])
}

fn spans(received: &[(String, Value)]) -> Vec<Value> {
    received
        .iter()
        .filter(|(path, _)| path == "/v1/traces")
        .flat_map(|(_, body)| {
            body["resourceSpans"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|resource| {
            resource["scopeSpans"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|scope| scope["spans"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn metrics(received: &[(String, Value)]) -> Vec<Value> {
    received
        .iter()
        .filter(|(path, _)| path == "/v1/metrics")
        .flat_map(|(_, body)| {
            body["resourceMetrics"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|resource| {
            resource["scopeMetrics"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|scope| scope["metrics"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn spans_and_metrics_reach_an_otlp_receiver() {
    let (url, received) = receiver();
    // SAFETY: the first thing the test's one thread does, before any other thread reads the
    // environment.
    unsafe {
        std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", &url);
        std::env::set_var("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
        std::env::set_var("OTEL_SERVICE_NAME", "buril-otel-test");
    }
    let telemetry = buril::telemetry::Telemetry::from_env()
        .expect("valid settings")
        .expect("an endpoint is set");
    let subscriber = tracing_subscriber::registry().with(
        telemetry
            .layer()
            .expect("traces are exported")
            .with_filter(tracing_subscriber::filter::LevelFilter::INFO),
    );
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent_id = "00f067aa0ba902b7";
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = Server::new(Dispatcher::new(), ServerOptions::new().messages(|_| {})).unwrap();
        let mut peer = Peer::connect(server).await;
        let ok = peer
            .request(
                "tools/call",
                json!({"name": "note_read", "arguments": {"id": 1},
                       "_meta": {"traceparent": format!("00-{trace_id}-{parent_id}-01"),
                                 "tracestate": "vendor=1"}}),
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
    });
    telemetry.flush();

    // The batch exporter sends on its own thread: wait for both signals.
    let got = {
        let (got, arrived) = &*received;
        let (got, timeout) = arrived
            .wait_timeout_while(got.lock().unwrap(), Duration::from_secs(20), |got| {
                spans(got).len() < 2 || metrics(got).is_empty()
            })
            .unwrap();
        assert!(!timeout.timed_out(), "nothing arrived: {:?}", *got);
        got.clone()
    };
    let resource = &got.iter().find(|(path, _)| path == "/v1/traces").unwrap().1["resourceSpans"]
        [0]["resource"];
    assert_eq!(
        attribute(&resource["attributes"], "service.name"),
        Some(&json!({"stringValue": "buril-otel-test"}))
    );

    let all = spans(&got);
    let calls: Vec<&Value> = all
        .iter()
        .filter(|span| span["name"] == "tools/call note_read")
        .collect();
    assert_eq!(calls.len(), 2, "{all:#?}");
    let child = calls
        .iter()
        .find(|span| span["traceId"] == trace_id)
        .expect("the client's trace");
    assert_eq!(
        child["parentSpanId"], parent_id,
        "the client's span is the parent"
    );
    assert_eq!(child["kind"], 2, "a server span");
    let attributes = &child["attributes"];
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "note_read"),
        ("gen_ai.operation.name", "execute_tool"),
        ("network.transport", "pipe"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(
            attribute(attributes, key),
            Some(&json!({"stringValue": value})),
            "{key}"
        );
    }
    assert_eq!(attribute(attributes, "error.type"), None);
    let other = calls
        .iter()
        .find(|span| span["traceId"] != trace_id)
        .unwrap();
    assert_eq!(
        attribute(&other["attributes"], "error.type"),
        Some(&json!({"stringValue": "tool_error"}))
    );

    let metrics = metrics(&got);
    let duration = metrics
        .iter()
        .find(|metric| metric["name"] == "mcp.server.operation.duration")
        .expect("the duration histogram");
    assert_eq!(duration["unit"], "s");
    let points = duration["histogram"]["dataPoints"].as_array().unwrap();
    let count: u64 = points
        .iter()
        .map(|point| {
            point["count"]
                .as_str()
                .map_or_else(|| point["count"].as_u64().unwrap(), |c| c.parse().unwrap())
        })
        .sum();
    assert_eq!(count, 2, "{points:#?}");
    let calls = metrics
        .iter()
        .find(|metric| metric["name"] == "buril.tool.calls")
        .expect("the call counter");
    let errors: Vec<&Value> = calls["sum"]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|point| attribute(&point["attributes"], "error.type").is_some())
        .collect();
    assert_eq!(errors.len(), 1, "{calls:#}");
    drop(telemetry);
}
