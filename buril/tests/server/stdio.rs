//! Plain calls over stdio, answered by the transport itself once the client is known (a legacy
//! client finished `initialize`, a stateless one sent its first request; `server/fast_path/`):
//! the same answers as through the SDK's service loop, cancellation, and answers of calls in
//! flight written when the input ends.

use crate::common;
use crate::common::gates::{self, Event};

use std::time::Duration;

use buril::server::{Server, ServerOptions};
use buril::{Dispatcher, ToolError};
use common::peer::Peer;
use serde_json::{Value, json};

/// Doubles a number.
#[buril::tool(off_thread, read_only)]
fn stdio_double(
    /// The number.
    x: i64,
) -> i64 {
    x * 2
}

/// Fails with the message it is given.
#[buril::tool(off_thread, read_only)]
fn stdio_fail(
    /// What to say.
    message: String,
) -> Result<u32, ToolError> {
    Err(ToolError::runtime(message))
}

/// Waits until the call is cancelled, recording its events under `tag` (`common::gates`).
#[buril::tool(off_thread, read_only)]
async fn stdio_wait(
    /// The tag its events are recorded under.
    tag: String,
    ctx: &buril::Context,
) -> Result<String, ToolError> {
    gates::saw_cancel_async(&tag, ctx).await;
    ctx.check_cancelled()?;
    Ok("never".into())
}

/// Held at the gate of `tag` until the test opens it, then answers `ms`.
#[buril::tool(off_thread, read_only)]
fn stdio_slow(
    /// What to answer.
    ms: u64,
    /// The gate.
    tag: String,
) -> u64 {
    let _ending = gates::hold(&tag);
    ms
}

/// Waits for `event` of `tag` (at most `WAIT`) without holding up the runtime: whether it
/// came.
async fn happens(event: Event, tag: &str) -> bool {
    let tag = tag.to_owned();
    tokio::task::spawn_blocking(move || gates::wait_for(event, &tag))
        .await
        .unwrap()
}

/// Waits until the tool of the call tagged `tag` has started.
async fn running(tag: &str) {
    assert!(
        happens(Event::Entered, tag).await,
        "{tag}: the tool never started"
    );
}

/// Waits until the call of `stdio_wait` tagged `tag` saw its cancellation, on its own task,
/// which may finish after its session.
async fn saw_cancelled(tag: &str) {
    assert!(
        happens(Event::SawCancel, tag).await,
        "{tag}: the tool never saw its cancellation"
    );
}

fn server() -> Server {
    server_on(Dispatcher::new())
}

fn server_on(dispatcher: Dispatcher) -> Server {
    Server::new(
        dispatcher,
        ServerOptions::new().timeout(Duration::from_secs(30)),
    )
    .unwrap()
}

/// A client that can answer questions (elicitation) goes through the SDK's service loop; one
/// that cannot is answered by the transport. Both get the same answers, successes, tool errors,
/// invalid input and unknown tools alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_calls_are_answered_as_the_sdk_answers_them() {
    let mut plain = Peer::connect(server()).await;
    let mut asked = Peer::connect_with(server(), json!({"elicitation": {}})).await;
    for (name, arguments) in [
        ("stdio_double", json!({"x": 21})),
        ("stdio_double", json!({"x": "21"})),
        ("stdio_double", json!({})),
        ("stdio_fail", json!({"message": "no disk"})),
        ("stdio_nothing", json!({})),
    ] {
        let mut answers: Vec<Value> = Vec::new();
        for peer in [&mut plain, &mut asked] {
            let mut answer = peer.call(name, arguments.clone()).await;
            answer.as_object_mut().unwrap().remove("id");
            answers.push(answer);
        }
        assert_eq!(answers[0], answers[1], "{name} {arguments}");
    }
    let doubled = plain.call("stdio_double", json!({"x": 21})).await;
    assert_eq!(
        doubled["result"]["structuredContent"]["result"], 42,
        "{doubled}"
    );
}

/// Asks the client to confirm.
#[buril::tool(off_thread)]
fn stdio_confirm(ctx: &buril::Context) -> Result<bool, ToolError> {
    ctx.confirm("Go on?")
}

/// A stateless (2026-07-28) client gets the answers the SDK's service loop gives, with the
/// revision's shapes (`resultType`, a question as an `input_required` round), whether the
/// transport answers its calls or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_calls_are_answered_as_the_sdk_answers_them() {
    let server_with = |fast: bool| {
        let options = ServerOptions::new()
            .timeout(Duration::from_secs(30))
            .fast_paths(fast);
        Server::new(Dispatcher::new(), options).unwrap()
    };
    let mut fast = Peer::stateless(server_with(true)).await;
    let mut sdk = Peer::stateless(server_with(false)).await;
    let asks = json!({"elicitation": {}});
    for (name, arguments, capabilities) in [
        ("stdio_double", json!({"x": 21}), json!({})),
        ("stdio_double", json!({"x": 21}), json!({})),
        ("stdio_double", json!({"x": "21"}), json!({})),
        ("stdio_fail", json!({"message": "no disk"}), json!({})),
        ("stdio_nothing", json!({}), json!({})),
        ("stdio_double", json!({"x": 2}), asks.clone()),
    ] {
        let mut answers: Vec<Value> = Vec::new();
        for peer in [&mut fast, &mut sdk] {
            let mut answer = peer
                .call_stateless(name, arguments.clone(), capabilities.clone())
                .await;
            answer.as_object_mut().unwrap().remove("id");
            answers.push(answer);
        }
        assert_eq!(answers[0], answers[1], "{name} {arguments}");
    }
    let doubled = fast
        .call_stateless("stdio_double", json!({"x": 21}), json!({}))
        .await;
    assert_eq!(doubled["result"]["resultType"], "complete", "{doubled}");
    assert_eq!(
        doubled["result"]["structuredContent"]["result"], 42,
        "{doubled}"
    );
    // A question ends the call with a round to answer, on either path.
    let mut rounds = Vec::new();
    for peer in [&mut fast, &mut sdk] {
        let first = peer
            .call_stateless("stdio_confirm", json!({}), asks.clone())
            .await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        rounds.push(first["result"]["inputRequests"].clone());
    }
    assert_eq!(rounds[0], rounds[1]);
}

/// `notifications/cancelled` naming a call cancels it, the tool sees it, and no answer comes,
/// as the protocol asks (the SDK's service loop drops it): the same whether the transport or
/// the SDK runs the call. The session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_cancels_a_call_which_then_gets_no_answer() {
    for (tag, capabilities) in [
        ("stdio plain", json!({})),
        ("stdio asked", json!({"elicitation": {}})),
    ] {
        let mut peer = Peer::connect_with(server(), capabilities).await;
        peer.send(
            json!({"jsonrpc": "2.0", "id": 70, "method": "tools/call", "params": {
                "name": "stdio_wait", "arguments": {"tag": tag}
            }}),
        )
        .await;
        running(tag).await;
        peer.notify(
            "notifications/cancelled",
            json!({"requestId": 70, "reason": "the user changed their mind"}),
        )
        .await;
        saw_cancelled(tag).await;
        // The session goes on, and no answer comes for the cancelled call: every line up to
        // the next call's answer, and after the input ends until the output ends, is read.
        peer.send(
            json!({"jsonrpc": "2.0", "id": 71, "method": "tools/call", "params": {
                "name": "stdio_double", "arguments": {"x": 2}
            }}),
        )
        .await;
        let mut seen = Vec::new();
        loop {
            let line = peer.next_line().await.expect("the answer to the next call");
            let message: Value = serde_json::from_str(&line).unwrap();
            seen.push(message.clone());
            if message["id"] == 71 {
                assert_eq!(
                    message["result"]["structuredContent"]["result"], 4,
                    "{tag}: {message}"
                );
                break;
            }
        }
        peer.end_input().await;
        while let Some(line) = peer.next_line().await {
            seen.push(serde_json::from_str(&line).unwrap());
        }
        for message in seen {
            assert_ne!(
                message["id"], 70,
                "{tag}: the cancelled call was answered: {message}"
            );
        }
    }
}

/// A cancellation sent right after its call, in the same write, still reaches it: the call is
/// known to the session before its task starts, as the SDK's service loop knows its calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_at_once_is_cancelled() {
    let mut peer = Peer::connect(server()).await;
    for round in 0..20 {
        let tag = format!("stdio at once {round}");
        let id = 100 + round;
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "stdio_wait", "arguments": {"tag": tag}
        }});
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": id
        }});
        peer.send_raw(&format!("{call}\n{cancel}\n")).await;
        saw_cancelled(&tag).await;
    }
}

/// A client that sends its calls and closes its end of the pipe still gets every answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_are_answered_when_the_input_ends() {
    let mut peer = Peer::connect(server()).await;
    let calls = [(1, 300, "stdio in flight 1"), (2, 100, "stdio in flight 2")];
    for (id, ms, tag) in calls {
        peer.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "stdio_slow", "arguments": {"ms": ms, "tag": tag}
            }}),
        )
        .await;
    }
    // Both calls run, held at their gates, when the input ends; then they are let go.
    for (_, _, tag) in calls {
        running(tag).await;
    }
    peer.end_input().await;
    for (_, _, tag) in calls {
        let tag = tag.to_owned();
        tokio::task::spawn_blocking(move || gates::open(&tag))
            .await
            .unwrap();
    }
    let mut answered = Vec::new();
    for _ in 0..2 {
        let answer = peer.read().await;
        answered.push((
            answer["id"].as_u64().unwrap(),
            answer["result"]["structuredContent"]["result"].clone(),
        ));
    }
    answered.sort_by_key(|(id, _)| *id);
    assert_eq!(answered, [(1, json!(300)), (2, json!(100))]);
}

/// A client that leaves mid-call (its input ends while a call runs that would never end) ends
/// the session: the call has as long as the SDK's service loop gives its own to answer (5 s),
/// is then cancelled (the tool sees it), and the server's output ends. The same whether the
/// transport or the SDK runs the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_mid_call_ends_the_session() {
    for (tag, capabilities) in [
        ("stdio left", json!({})),
        ("stdio left asked", json!({"elicitation": {}})),
    ] {
        // Kept, as an application keeps its dispatcher (the server, its only other owner here,
        // goes when the session ends, and a dropped dispatcher's tools get their grace on a
        // thread of their own: `panics_and_timeouts::a_dropped_dispatcher_lets_a_cancelled_tool_wind_down`).
        let dispatcher = Dispatcher::new();
        let mut peer = Peer::connect_with(server_on(dispatcher.clone()), capabilities).await;
        peer.send(
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": "stdio_wait", "arguments": {"tag": tag}
            }}),
        )
        .await;
        running(tag).await;
        peer.end_input().await;
        let started = std::time::Instant::now();
        assert_eq!(
            peer.next_line().await,
            None,
            "{tag}: the cancelled call is not answered"
        );
        assert!(
            started.elapsed() >= Duration::from_secs(4),
            "{tag}: the call had its time to answer before it was cancelled: {:?}",
            started.elapsed()
        );
        saw_cancelled(tag).await;
        drop(dispatcher);
    }
}
