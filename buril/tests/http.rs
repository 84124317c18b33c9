//! Streamable HTTP in a session: a plain `tools/call` is answered on its connection as one JSON
//! body (`server/fast_path/http.rs`), with the same result the SDK's service gives, the same
//! checks of the request, and cancellation; everything else still goes through the SDK.

#![cfg(feature = "server")]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use buril::ToolError;
use buril::server::ServerOptions;
use common::http::{open, post};
use common::servers::serve_http;
use serde_json::{Value, json};

/// Greets someone.
#[buril::tool(off_thread, read_only)]
fn http_greet(
    /// Who to greet.
    name: String,
) -> Result<String, ToolError> {
    Ok(format!("hello, {name}"))
}

/// Waits until the call is cancelled, then says so.
#[buril::tool(off_thread, read_only)]
async fn http_wait(ctx: &buril::Context) -> Result<String, ToolError> {
    ctx.cancelled().await;
    ctx.check_cancelled()?;
    Ok("never".into())
}

/// Reports progress once.
#[buril::tool(off_thread, read_only)]
fn http_progress(ctx: &buril::Context) -> u32 {
    ctx.report_progress(1.0, Some(1.0), Some("done"));
    1
}

/// A server on loopback, run by a runtime of its own.
fn serve() -> SocketAddr {
    serve_with(ServerOptions::new())
}

/// A server whose fast paths are on, whatever `BURIL_FAST_PATHS` says: for the tests of the
/// HTTP fast path itself.
fn serve_fast() -> SocketAddr {
    serve_with(ServerOptions::new().fast_paths(true))
}

/// A server with `options`, whose calls time out after 30 s.
fn serve_with(options: ServerOptions) -> SocketAddr {
    serve_http(options.timeout(Duration::from_secs(30)))
}

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments
    }})
    .to_string()
}

#[test]
fn a_plain_call_is_answered_as_json_with_the_result_the_sdk_gives() {
    let addr = serve_fast();
    let session = open(addr, json!({}));
    let body = call(1, "http_greet", json!({"name": "Ada"}));
    let direct = post(addr, Some(&session), &[], &body);
    assert_eq!(direct.status, 200, "{direct:?}");
    assert!(direct.is_json(), "answered on the connection: {direct:?}");
    let message = direct.message();
    assert_eq!(message["id"], 1);
    assert_eq!(
        message["result"]["structuredContent"]["result"],
        "hello, Ada"
    );
    // An allowed browser origin takes the SDK's service (which checks it): the same answer,
    // as an event stream.
    let through_sdk = post(
        addr,
        Some(&session),
        &[("origin", "http://localhost:5173")],
        &body,
    );
    assert_eq!(through_sdk.status, 200, "{through_sdk:?}");
    assert!(through_sdk.is_sse(), "{through_sdk:?}");
    assert_eq!(through_sdk.message(), message);
    // So do a failing call and an unknown tool (a protocol error).
    for body in [
        call(2, "http_greet", json!({"name": 7})),
        call(3, "http_greeet", json!({})),
    ] {
        let direct = post(addr, Some(&session), &[], &body);
        let through_sdk = post(
            addr,
            Some(&session),
            &[("origin", "http://127.0.0.1:9")],
            &body,
        );
        assert!(
            direct.is_json() && through_sdk.is_sse(),
            "{direct:?} {through_sdk:?}"
        );
        assert_eq!(direct.message(), through_sdk.message());
    }
    // What the client is told before the answer needs the event stream: a progress token.
    let progress = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "http_progress", "arguments": {}, "_meta": {"progressToken": "p"}
    }});
    let answer = post(addr, Some(&session), &[], &progress.to_string());
    assert!(answer.is_sse(), "{answer:?}");
    assert!(answer.text.contains("notifications/progress"), "{answer:?}");
    assert_eq!(answer.message()["result"]["structuredContent"]["result"], 1);
}

#[test]
fn a_call_keeps_the_checks_of_the_transport() {
    let addr = serve();
    let session = open(addr, json!({}));
    let body = call(1, "http_greet", json!({"name": "Ada"}));
    let status = |extra: &[(&str, &str)]| post(addr, Some(&session), extra, &body).status;
    // DNS rebinding and foreign origins.
    assert_eq!(status(&[("host", "evil.example")]), 403);
    assert_eq!(status(&[("origin", "https://evil.example")]), 403);
    // What the client must send.
    assert_eq!(status(&[("accept", "application/json")]), 406);
    assert_eq!(status(&[("content-type", "text/plain")]), 415);
    assert_eq!(status(&[("mcp-protocol-version", "1999-01-01")]), 400);
    assert_eq!(status(&[("mcp-session-id", "no-such-session")]), 404);
    // A well-formed call still answers.
    assert_eq!(
        status(&[("host", &format!("localhost:{}", addr.port()))]),
        200
    );
    // A closed session is gone for calls too.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let deleted = agent
        .delete(format!("http://{addr}/mcp"))
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .call()
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    assert_eq!(status(&[]), 404);
}

#[test]
fn notifications_cancelled_cancels_a_call_answered_on_its_connection() {
    let addr = serve_fast();
    let session = open(addr, json!({}));
    let waiting = {
        let session = session.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let answer = post(addr, Some(&session), &[], &call(7, "http_wait", json!({})));
            (answer, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": 7, "reason": "the user changed their mind"
    }});
    let answer = post(addr, Some(&session), &[], &cancelled.to_string());
    assert_eq!(answer.status, 202, "{answer:?}");
    let (answer, took) = waiting.join().unwrap();
    assert!(answer.is_json(), "{answer:?}");
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], true, "{answer:?}");
    assert_eq!(
        result["_meta"]["buril/envelope"]["type"], "cancelled",
        "{answer:?}"
    );
    assert!(
        took < Duration::from_secs(20),
        "answered when cancelled: {took:?}"
    );
}

#[test]
fn a_client_that_can_be_asked_goes_through_the_sdk() {
    let addr = serve();
    let session = open(addr, json!({"elicitation": {}}));
    let answer = post(
        addr,
        Some(&session),
        &[],
        &call(1, "http_greet", json!({"name": "Ada"})),
    );
    assert!(answer.is_sse(), "{answer:?}");
    assert_eq!(
        answer.message()["result"]["structuredContent"]["result"],
        "hello, Ada"
    );
}
