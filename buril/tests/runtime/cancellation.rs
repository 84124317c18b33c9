//! Cancellation answers at once and reaches the tool: a cancel token cancels a call whatever
//! its tool does, a token cancelled before the call never runs it; neither a timeout nor a
//! failing call cancels the caller's own token; and a dropped dispatcher lets a cancelled tool
//! wind down.
//!
//! Nothing here asserts how long something took: the tools are held at gates that only the
//! test opens (`common::gates`).

use crate::common;
use crate::gated_tools;

use std::sync::atomic::Ordering;
use std::time::Duration;

use buril::{CallOptions, CancelToken, Dispatcher, ToolError};
use common::gates::{
    Event, answered_while_held, cancel_once_started, happened, hold_async, open, record,
    saw_cancel_async, wait_for, with_cancel,
};
use gated_tools::RUNS;
use serde_json::json;

/// Fails with a runtime error.
#[buril::tool(off_thread)]
async fn pt_fail_async() -> Result<u8, ToolError> {
    Err(ToolError::runtime("nope"))
}

/// Waits for its call's cancellation (at most `WAIT`), then winds down (as a tool that writes
/// its partial work out would) until the test opens the gate of `<tag> winding`, and records
/// that it did.
#[buril::tool(off_thread)]
async fn pt_wind_down_async(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    if !saw_cancel_async(&tag, ctx).await {
        return Ok(0);
    }
    drop(hold_async(&winding(&tag)).await);
    record(Event::WoundDown, &tag);
    Err(ToolError::cancelled())
}

/// The tag of the gate `pt_wind_down_async` winds down at.
fn winding(tag: &str) -> String {
    format!("{tag} winding")
}

#[test]
fn a_cancel_token_cancels_the_call() {
    let d = Dispatcher::new();

    // A main-thread tool that ignores cancellation: the caller stops waiting.
    let (token, canceller) = cancel_once_started("token-main");
    let envelope = d
        .invoke(
            "pt_block_main",
            json!({"tag": "token-main"}),
            with_cancel(&token),
        )
        .into_envelope();
    assert_eq!(
        envelope,
        json!({"ok": false, "type": "cancelled", "error": "the call was cancelled"})
    );
    answered_while_held("token-main");
    canceller.join().unwrap();

    // An off-thread tool that checks its context stops itself.
    let (token, canceller) = cancel_once_started("token-off");
    let outcome = d.invoke("pt_watch", json!({"tag": "token-off"}), with_cancel(&token));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    assert!(wait_for(Event::SawCancel, "token-off"));
    canceller.join().unwrap();

    // An async tool that ignores cancellation.
    let (token, canceller) = cancel_once_started("token-async");
    let outcome = d.invoke(
        "pt_block_async",
        json!({"tag": "token-async"}),
        with_cancel(&token),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    answered_while_held("token-async");
    canceller.join().unwrap();

    // A token cancelled before the call: the tool never starts.
    let token = CancelToken::new();
    token.cancel();
    let outcome = d.invoke("pt_count_main", json!({"slot": 1}), with_cancel(&token));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    // Main-thread calls run in the order they were queued: had the cancelled call been queued
    // and run, it would have run before this one, which would count 2.
    let after = d
        .invoke(
            "pt_count_main",
            json!({"slot": 1}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(after, json!({"ok": true, "data": {"result": 1}}));
    assert_eq!(RUNS[1].load(Ordering::SeqCst), 1);
}

#[test]
fn a_timeout_does_not_cancel_the_callers_token() {
    let d = Dispatcher::new();
    let session = CancelToken::new();
    let options = CallOptions::new()
        .timeout(Duration::from_millis(30))
        .cancel(session.clone());
    let outcome = d.invoke("pt_block", json!({"tag": "session"}), options);
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        !session.is_cancelled(),
        "the caller's token was cancelled by a timeout"
    );
    answered_while_held("session");
    let outcome = d.invoke("pt_echo", json!({"n": 5}), with_cancel(&session));
    assert!(outcome.is_ok(), "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_async_call_does_not_cancel_the_callers_token() {
    let d = Dispatcher::new();
    let session = CancelToken::new();
    let outcome = d
        .invoke_async("pt_fail_async", json!({}), with_cancel(&session))
        .await;
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Runtime));
    assert!(
        !session.is_cancelled(),
        "a runtime error cancelled the caller's token"
    );
    let outcome = d
        .invoke_async("pt_echo", json!({"n": 6}), with_cancel(&session))
        .await;
    assert!(outcome.is_ok(), "{outcome:?}");
}

/// A dispatcher of its own (not the process-wide one) dropped while a cancelled async tool
/// winds down: the tool gets the grace it would have had, rather than being dropped with the
/// dispatcher's runtime.
#[test]
fn a_dropped_dispatcher_lets_a_cancelled_tool_wind_down() {
    let d = Dispatcher::new();
    let (token, canceller) = cancel_once_started("wind-down");
    let outcome = d.invoke(
        "pt_wind_down_async",
        json!({"tag": "wind-down"}),
        with_cancel(&token),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    canceller.join().unwrap();
    assert!(wait_for(Event::SawCancel, "wind-down"));
    assert!(!happened(Event::WoundDown, "wind-down"));
    drop(d);
    // Dropping did not wait for the tool, which winds down only once let go.
    assert!(!happened(Event::WoundDown, "wind-down"));
    open(&winding("wind-down"));
    assert!(
        wait_for(Event::WoundDown, "wind-down"),
        "the tool was dropped with its dispatcher before it wound down"
    );
}
