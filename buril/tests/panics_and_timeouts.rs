//! Panics are contained; timeouts and cancellation answer at once and reach the tool.
//!
//! Nothing here asserts how long something took. A tool past its timeout, or cancelled, is held
//! at a gate that only the test opens, so "the caller stopped waiting before the tool ended" is
//! an order of events: the answer comes while the tool is still held, then the test lets it go.
//! A tool that must outlast a timeout sleeps longer than it, or waits until its own deadline has
//! passed. `WAIT` only bounds the wait for an event that must come, and `LONG` is a timeout no
//! call here comes near, given to calls that must not time out.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use buril::{CallOptions, CancelToken, Dispatcher, MainThread, ToolError};
use serde_json::{Value, json};

/// The longest the tests wait for an event that must come, and the longest a gated tool stays
/// held when its gate is never opened (so that no test leaves it running).
const WAIT: Duration = Duration::from_secs(30);

/// A call timeout that no call here comes near.
const LONG: Duration = Duration::from_secs(120);

/// Run counts of `pt_count_main`, one slot per test that uses it.
static RUNS: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// What happened to the call of a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// Its tool started.
    Entered,
    /// Its tool ended: returned, panicked, or its future was dropped.
    Ended,
    /// The test opened its gate.
    Opened,
    /// Its tool saw its cancellation.
    SawCancel,
    /// Its tool finished winding down after its cancellation.
    WoundDown,
}

/// Every event so far, with its tag, and a signal for each new one.
static EVENTS: Mutex<Vec<(Event, String)>> = Mutex::new(Vec::new());
static CHANGED: Condvar = Condvar::new();

fn record(event: Event, tag: &str) {
    EVENTS.lock().unwrap().push((event, tag.to_owned()));
    CHANGED.notify_all();
}

fn has(events: &[(Event, String)], event: Event, tag: &str) -> bool {
    events.iter().any(|(e, t)| *e == event && t == tag)
}

fn happened(event: Event, tag: &str) -> bool {
    has(&EVENTS.lock().unwrap(), event, tag)
}

/// Waits, at most `WAIT`, for `event` of `tag`; whether it came.
fn wait_for(event: Event, tag: &str) -> bool {
    let events = EVENTS.lock().unwrap();
    let (events, _) = CHANGED
        .wait_timeout_while(events, WAIT, |events| !has(events, event, tag))
        .unwrap();
    has(&events, event, tag)
}

/// Records `Ended` for its tag when dropped: when the tool returns, panics, or its future is
/// dropped.
struct Ending(String);

impl Drop for Ending {
    fn drop(&mut self) {
        record(Event::Ended, &self.0);
    }
}

/// The body of the gated tools: holds until the test opens the gate of `tag` (or `WAIT`
/// passed), ignoring cancellation.
fn hold(tag: &str) -> Ending {
    record(Event::Entered, tag);
    let ending = Ending(tag.to_owned());
    wait_for(Event::Opened, tag);
    ending
}

/// As [`hold`], for async tools: waits without blocking the thread.
async fn hold_async(tag: &str) -> Ending {
    record(Event::Entered, tag);
    let ending = Ending(tag.to_owned());
    let start = Instant::now();
    while !happened(Event::Opened, tag) && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    ending
}

/// Opens the gate of `tag`, and waits for its tool, if it started, to end.
fn open(tag: &str) {
    record(Event::Opened, tag);
    let events = EVENTS.lock().unwrap();
    let (events, _) = CHANGED
        .wait_timeout_while(events, WAIT, |events| {
            has(events, Event::Entered, tag) && !has(events, Event::Ended, tag)
        })
        .unwrap();
    assert!(
        !has(&events, Event::Entered, tag) || has(&events, Event::Ended, tag),
        "the tool of `{tag}` did not end once let go"
    );
}

/// Once the call of `tag` has been answered: checks that its tool had not ended by then (the
/// caller stopped waiting while the tool was held at its gate, or before it even started), then
/// lets the tool go.
fn answered_while_held(tag: &str) {
    assert!(
        !happened(Event::Ended, tag),
        "the call of `{tag}` was answered only once its tool ended"
    );
    open(tag);
}

/// Panics with a static message, on the main thread.
#[buril::tool]
fn pt_boom() -> u8 {
    panic!("the main-thread tool exploded")
}

/// Panics with a formatted message, off the main thread.
#[buril::tool(off_thread)]
fn pt_boom_fmt(
    /// A number for the message.
    n: u32,
) -> u8 {
    panic!("bad number {n}")
}

/// Panics with a payload that is not a string.
#[buril::tool(off_thread)]
fn pt_boom_any() -> u8 {
    std::panic::panic_any(42_u32)
}

/// Panics inside an async tool.
#[buril::tool(off_thread)]
async fn pt_boom_async(
    /// Whether to panic.
    really: bool,
) -> Result<u8, ToolError> {
    tokio::task::yield_now().await;
    if really {
        panic!("the async tool exploded");
    }
    Ok(1)
}

/// Panics inside an async main-thread tool.
#[buril::tool]
async fn pt_boom_async_main() -> u8 {
    tokio::task::yield_now().await;
    panic!("the async main-thread tool exploded")
}

/// Echoes a number, on the main thread.
#[buril::tool]
fn pt_echo(
    /// The number.
    n: i64,
) -> i64 {
    n
}

/// Echoes a number, anywhere.
#[buril::tool(off_thread)]
fn pt_echo_off(
    /// The number.
    n: i64,
) -> i64 {
    n
}

/// Fails with a runtime error.
#[buril::tool(off_thread)]
async fn pt_fail_async() -> Result<u8, ToolError> {
    Err(ToolError::runtime("nope"))
}

/// Sleeps, ignoring cancellation, anywhere.
#[buril::tool(off_thread)]
fn pt_sleep(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    thread::sleep(Duration::from_millis(ms));
    ms
}

/// Sleeps, ignoring cancellation, on the main thread.
#[buril::tool]
fn pt_sleep_main(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    thread::sleep(Duration::from_millis(ms));
    ms
}

/// Held at the gate of `tag` until the test opens it, ignoring cancellation, anywhere.
#[buril::tool(off_thread)]
fn pt_block(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold(&tag);
    0
}

/// Held at the gate of `tag`, ignoring cancellation, on the main thread.
#[buril::tool]
fn pt_block_main(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold(&tag);
    0
}

/// Held at the gate of `tag` asynchronously, ignoring cancellation.
#[buril::tool(off_thread)]
async fn pt_block_async(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold_async(&tag).await;
    0
}

/// Held at the gate of `tag` asynchronously on the main thread, ignoring cancellation.
#[buril::tool]
async fn pt_block_async_main(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold_async(&tag).await;
    0
}

/// Counts its runs in `slot`, on the main thread.
#[buril::tool]
fn pt_count_main(
    /// Which counter.
    slot: usize,
) -> usize {
    RUNS[slot].fetch_add(1, Ordering::SeqCst) + 1
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
        while Instant::now() <= deadline {
            thread::sleep(Duration::from_millis(1));
        }
    }
    true
}

/// Works until its call is cancelled or times out (at most `WAIT`), then records that it saw it.
#[buril::tool(off_thread)]
fn pt_watch(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    watch(&tag, ctx)
}

/// As `pt_watch`, on the main thread.
#[buril::tool]
fn pt_watch_main(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    watch(&tag, ctx)
}

fn watch(tag: &str, ctx: &buril::Context) -> Result<u8, ToolError> {
    record(Event::Entered, tag);
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if ctx.is_cancelled() {
            record(Event::SawCancel, tag);
            return Err(ToolError::cancelled());
        }
        thread::sleep(Duration::from_millis(1));
    }
    Ok(0)
}

/// The body of the async watching tools: records `Entered`, waits for the call's cancellation
/// (at most `WAIT`) and records `SawCancel`; whether it came.
async fn saw_cancel_async(tag: &str, ctx: &buril::Context) -> bool {
    record(Event::Entered, tag);
    tokio::select! {
        _ = ctx.cancelled() => {
            record(Event::SawCancel, tag);
            true
        }
        _ = tokio::time::sleep(WAIT) => false,
    }
}

/// Waits for its call's cancellation asynchronously (at most `WAIT`), then records that it saw
/// it.
#[buril::tool(off_thread)]
async fn pt_watch_async(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    if saw_cancel_async(&tag, ctx).await {
        return Err(ToolError::cancelled());
    }
    Ok(0)
}

/// Waits for its call's cancellation (at most `WAIT`), then takes a second to wind down (as a tool
/// that writes its partial work out would) and records that it did.
#[buril::tool(off_thread)]
async fn pt_wind_down_async(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    if !saw_cancel_async(&tag, ctx).await {
        return Ok(0);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    record(Event::WoundDown, &tag);
    Err(ToolError::cancelled())
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

fn with_timeout(ms: u64) -> CallOptions {
    CallOptions::new().timeout(Duration::from_millis(ms))
}

fn with_long_timeout() -> CallOptions {
    CallOptions::new().timeout(LONG)
}

fn kind(envelope: &Value) -> &str {
    envelope["type"].as_str().unwrap_or("<ok>")
}

/// After a call of `tag` timed out: its tool, if it had started by the time the call was
/// answered, saw the cancellation. (A sync tool whose call reaches it only after the deadline is
/// skipped, never run, and then there is nothing to see.)
fn saw_cancel_if_it_ran(tag: &str) {
    if happened(Event::Entered, tag) {
        assert!(
            wait_for(Event::SawCancel, tag),
            "the tool of `{tag}` never saw its cancellation"
        );
    }
}

#[test]
fn panicking_sync_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.invoke("pt_boom", json!({}), buril::CallOptions::default())
            .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom` panicked: the main-thread tool exploded"
        })
    );
    // The owned main thread survived.
    assert_eq!(
        d.invoke("pt_echo", json!({"n": 1}), buril::CallOptions::default())
            .into_envelope()["data"]["result"],
        1
    );
    assert_eq!(
        d.invoke(
            "pt_boom_fmt",
            json!({"n": 7}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_fmt` panicked: bad number 7"
        })
    );
    assert_eq!(
        d.invoke("pt_boom_any", json!({}), buril::CallOptions::default())
            .into_envelope()["error"],
        "the tool `pt_boom_any` panicked: no message"
    );
    // Off the main thread on a worker (a call with a timeout).
    let outcome = d.invoke("pt_boom_fmt", json!({"n": 8}), with_long_timeout());
    assert_eq!(
        outcome.error().unwrap().message(),
        "the tool `pt_boom_fmt` panicked: bad number 8"
    );
    for n in 0..5 {
        assert_eq!(
            d.invoke("pt_echo", json!({"n": n}), buril::CallOptions::default())
                .into_envelope()["data"]["result"],
            n
        );
        assert_eq!(
            d.invoke(
                "pt_echo_off",
                json!({"n": n}),
                buril::CallOptions::default()
            )
            .into_envelope()["data"]["result"],
            n
        );
    }
}

#[test]
fn panicking_async_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.invoke(
            "pt_boom_async",
            json!({"really": true}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async` panicked: the async tool exploded"
        })
    );
    assert_eq!(
        d.invoke(
            "pt_boom_async_main",
            json!({}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async_main` panicked: the async main-thread tool exploded"
        })
    );
    assert_eq!(
        d.invoke(
            "pt_boom_async",
            json!({"really": false}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": 1}})
    );
    assert_eq!(
        d.invoke("pt_echo", json!({"n": 2}), buril::CallOptions::default())
            .into_envelope()["data"]["result"],
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn panics_are_contained_in_async_calls_too() {
    let d = Dispatcher::new();
    for name in ["pt_boom", "pt_boom_async_main"] {
        let envelope = d
            .invoke_async(name, json!({}), buril::CallOptions::default())
            .await
            .into_envelope();
        assert_eq!(kind(&envelope), "panic", "{envelope}");
    }
    let envelope = d
        .invoke_async(
            "pt_boom_fmt",
            json!({"n": 3}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(
        envelope["error"],
        "the tool `pt_boom_fmt` panicked: bad number 3"
    );
    let envelope = d
        .invoke_async(
            "pt_boom_async",
            json!({"really": true}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(kind(&envelope), "panic");
    let envelope = d
        .invoke_async("pt_echo", json!({"n": 4}), buril::CallOptions::default())
        .await
        .into_envelope();
    assert_eq!(envelope["data"]["result"], 4);
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

/// A token, and a thread that cancels it once the tool of `tag` has started.
fn cancel_once_started(tag: &str) -> (CancelToken, thread::JoinHandle<()>) {
    let token = CancelToken::new();
    let handle = {
        let token = token.clone();
        let tag = tag.to_owned();
        thread::spawn(move || {
            assert!(
                wait_for(Event::Entered, &tag),
                "the tool of `{tag}` never started"
            );
            token.cancel();
        })
    };
    (token, handle)
}

fn with_cancel(token: &CancelToken) -> CallOptions {
    CallOptions::new().cancel(token.clone())
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
    // Dropping did not wait for the tool.
    assert!(!happened(Event::WoundDown, "wind-down"));
    assert!(
        wait_for(Event::WoundDown, "wind-down"),
        "the tool was dropped with its dispatcher before it wound down"
    );
}
