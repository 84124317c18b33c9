//! Slow, idle and surplus HTTP clients (`server/http_limits.rs`): headers and bodies that
//! trickle are answered 408 and their connection closed, clients that do not read their
//! answers hold only their own connections, an idle connection is closed without an answer,
//! a connection past the cap is answered 503 with `Retry-After`, other clients are served
//! meanwhile, and a stateless client that goes away in the middle of an event stream frees its
//! call.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use buril::server::{HttpLimits, ServerOptions};
use buril_test_support::wait_until;
use common::gates::{self, Event};
use common::http::initialize;
use common::servers::serve_http;
use serde_json::json;

/// Greets someone.
#[buril::tool(off_thread, read_only)]
fn limits_greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("hello, {name}")
}

/// Reports progress, then waits until the call is cancelled.
#[buril::tool(off_thread, read_only)]
async fn limits_wait(
    ctx: &buril::Context,
    /// The tag its events are recorded under.
    tag: String,
) -> Result<String, buril::ToolError> {
    ctx.report_progress(0.0, None, Some("waiting"));
    gates::saw_cancel_async(&tag, ctx).await;
    ctx.check_cancelled()?;
    Ok("never".into())
}

/// Answers `kib` KiB of text.
#[buril::tool(off_thread, read_only)]
fn limits_big(
    /// How many KiB.
    kib: usize,
) -> String {
    "x".repeat(kib * 1024)
}

fn serve(limits: HttpLimits) -> SocketAddr {
    serve_http(ServerOptions::new().http_limits(limits))
}

/// Everything the server sends on `stream` until it closes it (within 10 s).
fn read_all(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut text = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&buf[..n]),
            Err(error) => panic!("the server neither answered nor closed: {error}"),
        }
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// Reads what the server sends on `stream` until it closes it: a `408` saying that `what` did
/// not arrive in time, and the connection closed.
fn answered_late(stream: &mut TcpStream, what: &str) {
    let answer = read_all(stream);
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer:?}"
    );
    assert!(answer.contains("connection: close"), "{answer:?}");
    assert!(
        answer.contains(&format!("{what} did not arrive in time")),
        "{answer:?}"
    );
}

/// A stateless call of `limits_greet` on a connection of its own: the tool's text.
fn greet(addr: SocketAddr) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "limits_greet",
        "arguments": {"name": "ada"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"}
        }
    }});
    let answer = common::http::post(
        addr,
        None,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "limits_greet"),
        ],
        &body.to_string(),
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.message()["result"]["structuredContent"]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer:?}"))
        .to_owned()
}

#[test]
fn headers_that_trickle_are_answered_408_while_other_clients_are_served() {
    let addr = serve(HttpLimits::new().header_timeout(Duration::from_millis(400)));
    // Slowloris: requests begun, their headers never finished.
    let mut slow: Vec<TcpStream> = (0..16)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).unwrap();
            write!(
                stream,
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: appl"
            )
            .unwrap();
            stream
        })
        .collect();
    // Meanwhile another client's calls are answered.
    for _ in 0..5 {
        assert_eq!(greet(addr), "hello, ada");
    }
    for stream in &mut slow {
        answered_late(stream, "the request's headers");
    }
    // And the server goes on serving.
    assert_eq!(greet(addr), "hello, ada");
}

/// The head of a stateless `tools/call` of `tool`, with `framing` (a `content-length` or
/// `transfer-encoding` line).
fn call_head(addr: SocketAddr, tool: &str, framing: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: {tool}\r\n{framing}\r\n\r\n"
    )
}

fn call_body(tool: &str, arguments: serde_json::Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"}
        }
    }})
    .to_string()
}

#[test]
fn bodies_that_trickle_are_answered_408_while_other_clients_are_served() {
    let addr = serve(HttpLimits::new().body_timeout(Duration::from_millis(400)));
    let body = call_body("limits_greet", json!({"name": "slow"}));
    // Bodies begun and never finished: of a stated length (read by the server), and chunked
    // (read by the SDK).
    let mut slow: Vec<TcpStream> = (0..16)
        .map(|n| {
            let mut stream = TcpStream::connect(addr).unwrap();
            let (head, part) = if n % 2 == 0 {
                let framing = format!("content-length: {}", body.len());
                (
                    call_head(addr, "limits_greet", &framing),
                    body[..20].to_owned(),
                )
            } else {
                let framing = "transfer-encoding: chunked";
                let part = format!("{:x}\r\n{}\r\n", 20, &body[..20]);
                (call_head(addr, "limits_greet", framing), part)
            };
            write!(stream, "{head}{part}").unwrap();
            stream
        })
        .collect();
    for _ in 0..5 {
        assert_eq!(greet(addr), "hello, ada");
    }
    for stream in &mut slow {
        answered_late(stream, "the request's body");
    }
    // A whole body, sent slowly but within the time, is answered as any other.
    let mut patient = TcpStream::connect(addr).unwrap();
    let framing = format!("content-length: {}", body.len());
    write!(patient, "{}", call_head(addr, "limits_greet", &framing)).unwrap();
    for piece in body.as_bytes().chunks(body.len() / 3 + 1) {
        // The slow client itself: a pause before each piece, well within the body's time.
        std::thread::sleep(Duration::from_millis(50));
        patient.write_all(piece).unwrap();
    }
    let mut answer = vec![0u8; 4096];
    patient
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let n = patient.read(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert_eq!(greet(addr), "hello, ada");
}

#[test]
fn clients_that_do_not_read_their_answers_hold_only_their_own_connections() {
    // Answers of 256 KiB sent whole (not written to files).
    let addr = serve_http(ServerOptions::new().max_result_bytes(1 << 20));
    // 256 clients ask for 256 KiB each and read nothing: their answers fill the sockets'
    // buffers and wait.
    let body = call_body("limits_big", json!({"kib": 256}));
    let framing = format!("content-length: {}", body.len());
    let mut stalled: Vec<TcpStream> = (0..256)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).unwrap();
            write!(stream, "{}{body}", call_head(addr, "limits_big", &framing)).unwrap();
            stream
        })
        .collect();
    // Meanwhile other clients' calls are answered.
    for _ in 0..20 {
        assert_eq!(greet(addr), "hello, ada");
    }
    // One byte at a time, a stalled client gets its answer's first bytes.
    let mut first = [0u8; 1];
    let mut head = Vec::new();
    stalled[0]
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stalled[0].read(&mut first).unwrap(), 1);
        head.push(first[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 200 OK\r\n"));
    // They go away without reading: the server keeps serving.
    stalled.clear();
    for _ in 0..5 {
        assert_eq!(greet(addr), "hello, ada");
    }
}

#[test]
fn an_idle_connection_is_closed_without_an_answer() {
    let addr = serve(HttpLimits::new().header_timeout(Duration::from_millis(300)));
    // Never a byte sent.
    let mut idle = TcpStream::connect(addr).unwrap();
    assert_eq!(read_all(&mut idle), "");
    // A kept-alive connection after its answer: closed too, with nothing more sent.
    let mut kept = TcpStream::connect(addr).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        kept,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let answer = read_all(&mut kept);
    assert!(answer.starts_with("HTTP/1.1 "), "{answer:?}");
    assert!(!answer.contains("408"), "{answer:?}");
}

#[test]
fn a_connection_past_the_cap_is_answered_503_with_retry_after() {
    let addr = serve(
        HttpLimits::new()
            .max_connections(3)
            .retry_after(Duration::from_secs(7))
            .header_timeout(Duration::from_secs(60)),
    );
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let mut surplus = TcpStream::connect(addr).unwrap();
    // Its request is not read: the answer comes all the same.
    let _ = write!(surplus, "GET /mcp HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let answer = read_all(&mut surplus);
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer:?}"
    );
    assert!(answer.contains("retry-after: 7\r\n"), "{answer:?}");
    // A client through a library sees the same.
    let refused = initialize(addr, &[], json!({}));
    assert_eq!(refused.status, 503, "{refused:?}");
    // Once the connections held close, new ones are served.
    drop(held);
    wait_until("the cap's places given back", || {
        let answer = initialize(addr, &[], json!({}));
        if answer.status != 200 {
            assert_eq!(answer.status, 503, "{answer:?}");
        }
        answer.status == 200
    });
    assert_eq!(greet(addr), "hello, ada");
}

#[test]
fn a_stateless_client_that_goes_away_mid_stream_frees_its_call() {
    let addr = serve(HttpLimits::new());
    // A progress token: the answer is an event stream (the SDK's path, not the fast path's).
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "limits_wait", "arguments": {"tag": "vanishing"},
        "_meta": {
            "progressToken": "p",
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"}
        }
    }})
    .to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: limits_wait\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The stream has begun: its headers, and the progress event.
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(
        String::from_utf8_lossy(&seen).contains("text/event-stream"),
        "{}",
        String::from_utf8_lossy(&seen)
    );
    assert!(gates::wait_for(Event::Entered, "vanishing"));
    drop(stream);
    assert!(
        gates::wait_for(Event::SawCancel, "vanishing"),
        "the call of a client that went away still runs"
    );
}
