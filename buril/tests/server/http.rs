//! Streamable HTTP, in a session (2025-11-25) and stateless (2026-07-28): a plain `tools/call`
//! is answered on its connection as one JSON body (`server/fast_path/http.rs`), with the same
//! result the SDK's service gives, the same checks of the request, and cancellation;
//! everything else still goes through the SDK.

use crate::common;

use std::io::Write;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use buril::ToolError;
use buril::server::ServerOptions;
use common::gates::{self, Event};
use common::http::{open, post, post_stateless};
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
async fn http_wait(
    /// The tag its events are recorded under.
    tag: String,
    ctx: &buril::Context,
) -> Result<String, ToolError> {
    gates::saw_cancel_async(&tag, ctx).await;
    ctx.check_cancelled()?;
    Ok("never".into())
}

/// Reports progress once.
#[buril::tool(off_thread, read_only)]
fn http_progress(ctx: &buril::Context) -> u32 {
    ctx.report_progress(1.0, Some(1.0), Some("done"));
    1
}

/// Asks the client to confirm.
#[buril::tool(off_thread)]
fn http_confirm(ctx: &buril::Context) -> Result<bool, ToolError> {
    ctx.confirm("Go on?")
}

/// The tag of `http_linger`'s events.
const LINGER: &str = "http linger";

/// Waits until the call is cancelled; records that it started, and that it ended, however it
/// ends (answered or dropped).
#[buril::tool(off_thread, read_only)]
async fn http_linger(ctx: &buril::Context) -> Result<String, ToolError> {
    gates::record(Event::Entered, LINGER);
    let _ended = gates::Ending(LINGER.to_owned());
    ctx.cancelled().await;
    ctx.check_cancelled()?;
    Ok("never".into())
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
    let tag = "http cancelled";
    let waiting = {
        let session = session.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let body = call(7, "http_wait", json!({"tag": tag}));
            let answer = post(addr, Some(&session), &[], &body);
            (answer, started.elapsed())
        })
    };
    assert!(
        gates::wait_for(Event::Entered, tag),
        "the call never started"
    );
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

#[test]
fn a_stateless_call_is_answered_as_json_with_the_result_the_sdk_gives() {
    let addr = serve_fast();
    let greet = json!({"name": "http_greet", "arguments": {"name": "Ada"}});
    let direct = post_stateless(addr, &[], json!({}), greet.clone());
    assert_eq!(direct.status, 200, "{direct:?}");
    assert!(direct.is_json(), "answered on the connection: {direct:?}");
    let message = direct.message();
    assert_eq!(message["id"], 5);
    // The revision's shape: `resultType` on the result.
    assert_eq!(message["result"]["resultType"], "complete", "{message}");
    assert_eq!(
        message["result"]["structuredContent"]["result"],
        "hello, Ada"
    );
    // An allowed browser origin takes the SDK's service (which checks it): the same answer,
    // as an event stream.
    let sdk = [("origin", "http://localhost:5173")];
    let through_sdk = post_stateless(addr, &sdk, json!({}), greet);
    assert_eq!(through_sdk.status, 200, "{through_sdk:?}");
    assert!(through_sdk.is_sse(), "{through_sdk:?}");
    assert_eq!(through_sdk.message(), message);
    // So do a failing call and an unknown tool (a protocol error).
    for params in [
        json!({"name": "http_greet", "arguments": {"name": 7}}),
        json!({"name": "http_greeet", "arguments": {}}),
    ] {
        let direct = post_stateless(addr, &[], json!({}), params.clone());
        let through_sdk = post_stateless(addr, &sdk, json!({}), params);
        assert!(
            direct.is_json() && through_sdk.is_sse(),
            "{direct:?} {through_sdk:?}"
        );
        assert_eq!(direct.status, through_sdk.status);
        assert_eq!(direct.message(), through_sdk.message());
    }
    // A question ends the call with an `input_required` round, on either path; the next round
    // carries the answer.
    let confirm = json!({"name": "http_confirm", "arguments": {}});
    let asks = json!({"elicitation": {}});
    let direct = post_stateless(addr, &[], asks.clone(), confirm.clone());
    let through_sdk = post_stateless(addr, &sdk, asks.clone(), confirm.clone());
    assert!(
        direct.is_json() && through_sdk.is_sse(),
        "{direct:?} {through_sdk:?}"
    );
    let (first, sdk_first) = (direct.message(), through_sdk.message());
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(
        first["result"]["inputRequests"], sdk_first["result"]["inputRequests"],
        "{first} {sdk_first}"
    );
    let key = first["result"]["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next().cloned())
        .expect("a question");
    let mut again = confirm;
    again["requestState"] = first["result"]["requestState"].clone();
    again["inputResponses"] = json!({key: {"action": "accept", "content": {"confirm": true}}});
    let second = post_stateless(addr, &[], asks, again).message();
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(
        second["result"]["structuredContent"]["result"], true,
        "{second}"
    );
    // What the client is told before the answer needs the event stream: a progress token.
    let mut progress = json!({"name": "http_progress", "arguments": {}});
    let answer = {
        let body = {
            progress["_meta"] = json!({
                "progressToken": "p",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": progress})
        };
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "http_progress"),
        ];
        post(addr, None, &headers, &body.to_string())
    };
    assert!(answer.is_sse(), "{answer:?}");
    assert!(answer.text.contains("notifications/progress"), "{answer:?}");
    assert_eq!(answer.message()["result"]["structuredContent"]["result"], 1);
}

#[test]
fn a_stateless_call_keeps_the_checks_of_the_transport() {
    let addr = serve();
    let greet = json!({"name": "http_greet", "arguments": {"name": "Ada"}});
    let status = |extra: &[(&str, &str)]| post_stateless(addr, extra, json!({}), greet.clone());
    // DNS rebinding and foreign origins.
    assert_eq!(status(&[("host", "evil.example")]).status, 403);
    assert_eq!(status(&[("origin", "https://evil.example")]).status, 403);
    // What the client must send.
    assert_eq!(status(&[("accept", "application/json")]).status, 406);
    assert_eq!(status(&[("content-type", "text/plain")]).status, 415);
    // Headers the body contradicts, or that are missing.
    for extra in [
        [("mcp-name", "http_progress")],
        [("mcp-name", "")],
        [("mcp-method", "tools/list")],
        [("mcp-method", "")],
        [("mcp-protocol-version", "2025-11-25")],
        [("mcp-protocol-version", "")],
    ] {
        let answer = status(&extra);
        assert_eq!(answer.status, 400, "{extra:?}: {answer:?}");
        assert!(answer.message()["error"]["code"].is_i64(), "{answer:?}");
    }
    // A well-formed call still answers.
    let answer = status(&[("host", &format!("localhost:{}", addr.port()))]);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.message()["result"]["structuredContent"]["result"],
        "hello, Ada"
    );
}

#[test]
fn a_stateless_call_whose_client_goes_away_ends() {
    let addr = serve();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "http_linger", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    }})
    .to_string();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: http_linger\r\ncontent-length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    )
    .unwrap();
    assert!(
        gates::wait_for(Event::Entered, LINGER),
        "the call never started"
    );
    assert!(!gates::happened(Event::Ended, LINGER), "the call runs");
    drop(stream);
    assert!(
        gates::wait_for(Event::Ended, LINGER),
        "the call of a client that went away still runs"
    );
}
