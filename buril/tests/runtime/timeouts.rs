//! Timeouts answer at once and reach the tool: a call past its timeout is answered while its
//! tool is still held (off the main thread, on it, async), a queued call whose timeout passed
//! never runs, timeouts are chosen per call, then per tool, then by default, and the timed-out
//! tool sees its cancellation; async calls time out on any executor, and a tool that stops at
//! its deadline is reported as a timeout.
//!
//! Nothing here asserts how long something took: the tools are held at gates that only the
//! test opens (`common::gates`). A tool that must outlast a timeout sleeps longer than it, or
//! waits until its own deadline has passed.

use crate::common;
use crate::gated_tools;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use buril::{CallOptions, CancelToken, Dispatcher, MainThread, ToolError};
use common::gates::{
    Ending, Event, LONG, answered_while_held, cancel_once_started, happened, kind, open, record,
    saw_cancel_if_it_ran, wait_for, with_cancel, with_long_timeout, with_timeout,
};
use gated_tools::RUNS;
use serde_json::json;

/// Sleeps, ignoring cancellation, anywhere.
#[buril::tool(off_thread)]
fn pt_sleep(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    // The sleep is the call's work: a call that must outlast a timeout is given longer.
    thread::sleep(Duration::from_millis(ms));
    ms
}

/// Sleeps, ignoring cancellation, on the main thread.
#[buril::tool]
fn pt_sleep_main(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    // The sleep is the call's work: a call that must outlast a timeout is given longer.
    thread::sleep(Duration::from_millis(ms));
    ms
}

/// On the main thread: when `overrun`, runs until its call's deadline has passed (a tool that
/// nothing interrupts, run to its end past its deadline); then returns.
#[buril::tool]
fn pt_outlast_main(
    /// Which call.
    tag: String,
    /// Whether to run past the deadline.
    overrun: bool,
    ctx: &buril::Context,
) -> bool {
    record(Event::Entered, &tag);
    let _ending = Ending(tag);
    if overrun && let Some(deadline) = ctx.deadline() {
        // Its work, which nothing interrupts, until the deadline has passed.
        while Instant::now() <= deadline {
            thread::sleep(Duration::from_millis(1));
        }
    }
    true
}

/// Spins until its call is cancelled or times out (at most two seconds), then stops at once.
#[buril::tool(off_thread)]
fn pt_spin(ctx: &buril::Context) -> Result<u8, ToolError> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        ctx.check_cancelled()?;
        std::hint::spin_loop();
    }
    Ok(0)
}

#[test]
fn an_off_thread_tool_past_its_timeout_answers_before_it_ends() {
    let d = Dispatcher::builder()
        .timeout(Duration::from_millis(50))
        .build();
    let envelope = d
        .invoke(
            "pt_block",
            json!({"tag": "default-off"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "timeout",
            "error": "the tool `pt_block` did not finish within 50 ms; it was asked to stop and \
                      its result, if any, is discarded"
        })
    );
    answered_while_held("default-off");
    // A call that ends before a default timeout answers normally (a default no call comes
    // near, so that this does not depend on how fast the machine is).
    let roomy = Dispatcher::builder().timeout(LONG).build();
    assert_eq!(
        roomy
            .invoke("pt_sleep", json!({"ms": 1}), buril::CallOptions::default())
            .into_envelope()["data"]["result"],
        1
    );
}

#[test]
fn an_async_tool_past_its_timeout_answers_before_it_ends() {
    let d = Dispatcher::new();
    let outcome = d.invoke(
        "pt_block_async",
        json!({"tag": "async-off"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    answered_while_held("async-off");
    let outcome = d.invoke(
        "pt_block_async_main",
        json!({"tag": "async-main"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    answered_while_held("async-main");
}

#[test]
fn a_main_thread_tool_past_its_timeout_answers_before_it_ends() {
    let d = Dispatcher::new();
    let outcome = d.invoke("pt_block_main", json!({"tag": "main"}), with_timeout(50));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    answered_while_held("main");
}

#[test]
fn a_queued_main_thread_call_whose_timeout_passes_never_runs() {
    let d = Dispatcher::new();
    let busy = {
        let d = d.clone();
        thread::spawn(move || {
            d.invoke(
                "pt_block_main",
                json!({"tag": "hog"}),
                buril::CallOptions::default(),
            )
            .into_envelope()
        })
    };
    // The long call occupies the main thread first, and keeps it until the test lets it go.
    assert!(wait_for(Event::Entered, "hog"), "the call never started");
    let outcome = d.invoke("pt_count_main", json!({"slot": 0}), with_timeout(40));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(!happened(Event::Ended, "hog"));
    open("hog");
    assert_eq!(busy.join().unwrap()["ok"], true);
    // The main thread is free again: the next call runs, the timed-out one never did.
    let after = d
        .invoke(
            "pt_count_main",
            json!({"slot": 0}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(after, json!({"ok": true, "data": {"result": 1}}));
    assert_eq!(d.pending_main_thread_calls(), 0);
    assert_eq!(RUNS[0].load(Ordering::SeqCst), 1);
}

#[test]
fn a_main_thread_call_on_the_main_thread_itself_answers_timeout_when_it_ends_late() {
    let d = Dispatcher::builder().main_thread(MainThread::Host).build();
    let outcome = d.invoke(
        "pt_outlast_main",
        json!({"tag": "inline-late", "overrun": true}),
        with_timeout(20),
    );
    // It ran inline (nothing can interrupt it): it ran past its deadline to its end, and only
    // then was the call answered, as a timeout.
    assert!(happened(Event::Ended, "inline-late"));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    let outcome = d.invoke(
        "pt_outlast_main",
        json!({"tag": "inline-in-time", "overrun": false}),
        with_long_timeout(),
    );
    assert_eq!(outcome.data(), Some(&json!({"result": true})));
}

#[test]
fn timeouts_are_chosen_per_call_then_per_tool_then_default() {
    let d = Dispatcher::builder()
        .timeout(LONG)
        .tool_timeout("pt_sleep", Duration::from_millis(40))
        .tool_timeout("pt_block", Duration::from_millis(40))
        .build();
    assert_eq!(d.timeout_for("pt_sleep"), Some(Duration::from_millis(40)));
    assert_eq!(d.timeout_for("pt_sleep_main"), Some(LONG));
    assert_eq!(Dispatcher::new().timeout_for("pt_sleep"), None);

    // The per-tool timeout applies to that tool only: a call of it past 40 ms times out, a call
    // of another tool that runs longer than 40 ms does not.
    let envelope = d
        .invoke(
            "pt_block",
            json!({"tag": "per-tool"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(kind(&envelope), "timeout");
    assert!(
        envelope["error"].as_str().unwrap().contains("within 40 ms"),
        "{envelope}"
    );
    answered_while_held("per-tool");
    assert_eq!(
        d.invoke(
            "pt_sleep_main",
            json!({"ms": 60}),
            buril::CallOptions::default()
        )
        .into_envelope()["ok"],
        true
    );

    // A per-call timeout overrides the tool's, both ways.
    let outcome = d.invoke("pt_sleep", json!({"ms": 80}), with_long_timeout());
    assert!(outcome.is_ok(), "{outcome:?}");
    let outcome = d.invoke(
        "pt_block_main",
        json!({"tag": "per-call"}),
        with_timeout(30),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        outcome.error().unwrap().message().contains("within 30 ms"),
        "{outcome:?}"
    );
    answered_while_held("per-call");
}

#[test]
fn a_timed_out_tool_sees_its_cancellation() {
    let d = Dispatcher::new();
    let outcome = d.invoke("pt_watch", json!({"tag": "sync-off"}), with_timeout(50));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    saw_cancel_if_it_ran("sync-off");

    let outcome = d.invoke(
        "pt_watch_main",
        json!({"tag": "sync-main"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    saw_cancel_if_it_ran("sync-main");

    // An async tool is always run, even past its deadline, and sees it at once.
    let outcome = d.invoke(
        "pt_watch_async",
        json!({"tag": "async-watch"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(wait_for(Event::SawCancel, "async-watch"));

    // Without a timeout nothing is cancelled.
    let token = CancelToken::new();
    let options = CallOptions::new().cancel(token.clone());
    let outcome = d.invoke("pt_echo", json!({"n": 1}), options);
    assert!(outcome.is_ok());
    assert!(!token.is_cancelled());
}

#[tokio::test(flavor = "multi_thread")]
async fn async_calls_time_out_and_cancel_too() {
    let d = Dispatcher::new();
    for name in [
        "pt_block",
        "pt_block_main",
        "pt_block_async",
        "pt_block_async_main",
    ] {
        let tag = format!("async-call-{name}");
        let outcome = d
            .invoke_async(name, json!({"tag": tag}), with_timeout(50))
            .await;
        assert_eq!(
            outcome.error_kind(),
            Some(buril::ErrorKind::Timeout),
            "{name}"
        );
        answered_while_held(&tag);
    }
    let outcome = d
        .invoke_async("pt_watch", json!({"tag": "async-call"}), with_timeout(50))
        .await;
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    saw_cancel_if_it_ran("async-call");

    let (token, canceller) = cancel_once_started("async-call-cancelled");
    let outcome = d
        .invoke_async(
            "pt_block_async",
            json!({"tag": "async-call-cancelled"}),
            with_cancel(&token),
        )
        .await;
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    answered_while_held("async-call-cancelled");
    canceller.join().unwrap();
}

/// `invoke_async` runs in the caller's task on any executor: a single-threaded runtime with no
/// timer still gets timeouts (the dispatcher's runtime keeps the time), and dropping the call's
/// future cancels the tool's context.
#[test]
fn async_calls_need_no_timer_from_the_callers_executor() {
    let d = Dispatcher::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        for name in ["pt_block", "pt_block_async", "pt_block_main"] {
            let tag = format!("no-timer-{name}");
            let outcome = d
                .invoke_async(name, json!({"tag": tag}), with_timeout(50))
                .await;
            assert_eq!(
                outcome.error_kind(),
                Some(buril::ErrorKind::Timeout),
                "{name}"
            );
            answered_while_held(&tag);
        }
        let outcome = d
            .invoke_async("pt_echo", json!({"n": 7}), with_long_timeout())
            .await;
        assert!(outcome.is_ok(), "{outcome:?}");

        // A call whose future is dropped (a client that went away) is cancelled.
        let call = d.invoke_async(
            "pt_watch",
            json!({"tag": "dropped-call"}),
            with_long_timeout(),
        );
        let mut call = Box::pin(call);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(call.as_mut().poll(&mut cx).is_pending());
        // Once the tool runs (a call dropped before its tool starts never runs it).
        assert!(
            wait_for(Event::Entered, "dropped-call"),
            "the tool never started"
        );
        drop(call);
    });
    assert!(wait_for(Event::SawCancel, "dropped-call"));
}

/// A tool that checks `ctx.check_cancelled()?` stops the moment its deadline passes; the caller
/// must still learn that the call timed out, not that somebody cancelled it.
#[test]
fn a_tool_that_stops_at_its_deadline_is_reported_as_timeout() {
    let d = Dispatcher::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut kinds = Vec::new();
    for _ in 0..5 {
        kinds.push(
            d.invoke("pt_spin", json!({}), with_timeout(30))
                .error_kind(),
        );
        let outcome = runtime.block_on(d.invoke_async("pt_spin", json!({}), with_timeout(30)));
        kinds.push(outcome.error_kind());
    }
    assert!(
        kinds.iter().all(|k| *k == Some(buril::ErrorKind::Timeout)),
        "{kinds:?}"
    );
}
