//! Panics are contained; timeouts and cancellation answer promptly and reach the tool.

use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use buril::{CallOptions, CancelToken, Dispatcher, MainThread, ToolError};
use serde_json::{Value, json};

/// The tags of the calls that saw their cancellation.
static SAW_CANCEL: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// The tags `pt_watch` started with.
static STARTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Run counts of `pt_count_main`, one slot per test that uses it.
static RUNS: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
/// Set once `pt_hold_main` has started.
static HOLDING: AtomicBool = AtomicBool::new(false);

/// How long the watching tools wait between seeing their cancellation and stopping.
const LINGER: Duration = Duration::from_millis(100);

fn saw_cancel(tag: &str) -> bool {
    SAW_CANCEL.lock().unwrap().iter().any(|t| t == tag)
}

/// Waits up to two seconds for `tag` to see its cancellation.
fn wait_for_cancel(tag: &str) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        if saw_cancel(tag) {
            return true;
        }
        thread::sleep(Duration::from_millis(5));
    }
    false
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

/// Sleeps asynchronously, ignoring cancellation.
#[buril::tool(off_thread)]
async fn pt_sleep_async(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// Sleeps asynchronously on the main thread, ignoring cancellation.
#[buril::tool]
async fn pt_sleep_async_main(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// Counts its runs in `slot`, on the main thread.
#[buril::tool]
fn pt_count_main(
    /// Which counter.
    slot: usize,
) -> usize {
    RUNS[slot].fetch_add(1, Ordering::SeqCst) + 1
}

/// Holds the main thread for `ms` milliseconds, saying when it has started.
#[buril::tool]
fn pt_hold_main(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    HOLDING.store(true, Ordering::SeqCst);
    thread::sleep(Duration::from_millis(ms));
    ms
}

/// Works until cancelled (at most two seconds), then records `tag`.
#[buril::tool(off_thread)]
fn pt_watch(
    /// Recorded once the call sees its cancellation.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    STARTED.lock().unwrap().push(tag.clone());
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        if ctx.is_cancelled() {
            SAW_CANCEL.lock().unwrap().push(tag);
            // Stop a little later, so that the dispatcher's own verdict comes first.
            thread::sleep(LINGER);
            return Err(ToolError::cancelled());
        }
        thread::sleep(Duration::from_millis(5));
    }
    Ok(0)
}

/// Works on the main thread until cancelled (at most two seconds), then records `tag`.
#[buril::tool]
fn pt_watch_main(
    /// Recorded once the call sees its cancellation.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        if ctx.is_cancelled() {
            SAW_CANCEL.lock().unwrap().push(tag);
            // Stop a little later, so that the dispatcher's own verdict comes first.
            thread::sleep(LINGER);
            return Err(ToolError::cancelled());
        }
        thread::sleep(Duration::from_millis(5));
    }
    Ok(0)
}

/// Waits for cancellation asynchronously (at most two seconds), then records `tag`.
#[buril::tool(off_thread)]
async fn pt_watch_async(
    /// Recorded once the call sees its cancellation.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    tokio::select! {
        _ = ctx.cancelled() => {
            SAW_CANCEL.lock().unwrap().push(tag);
            tokio::time::sleep(LINGER).await;
            Err(ToolError::cancelled())
        }
        _ = tokio::time::sleep(Duration::from_secs(2)) => Ok(0),
    }
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

fn kind(envelope: &Value) -> &str {
    envelope["type"].as_str().unwrap_or("<ok>")
}

#[test]
fn panicking_sync_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.call("pt_boom", json!({})),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom` panicked: the main-thread tool exploded"
        })
    );
    // The owned main thread survived.
    assert_eq!(d.call("pt_echo", json!({"n": 1}))["data"]["result"], 1);
    assert_eq!(
        d.call("pt_boom_fmt", json!({"n": 7})),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_fmt` panicked: bad number 7"
        })
    );
    assert_eq!(
        d.call("pt_boom_any", json!({}))["error"],
        "the tool `pt_boom_any` panicked: no message"
    );
    // Off the main thread on a worker (a call with a timeout).
    let outcome = d.invoke_with("pt_boom_fmt", json!({"n": 8}), with_timeout(2000));
    assert_eq!(
        outcome.error().unwrap().message(),
        "the tool `pt_boom_fmt` panicked: bad number 8"
    );
    for n in 0..5 {
        assert_eq!(d.call("pt_echo", json!({"n": n}))["data"]["result"], n);
        assert_eq!(d.call("pt_echo_off", json!({"n": n}))["data"]["result"], n);
    }
}

#[test]
fn panicking_async_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.call("pt_boom_async", json!({"really": true})),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async` panicked: the async tool exploded"
        })
    );
    assert_eq!(
        d.call("pt_boom_async_main", json!({})),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async_main` panicked: the async main-thread tool exploded"
        })
    );
    assert_eq!(
        d.call("pt_boom_async", json!({"really": false})),
        json!({"ok": true, "data": {"result": 1}})
    );
    assert_eq!(d.call("pt_echo", json!({"n": 2}))["data"]["result"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn panics_are_contained_in_async_calls_too() {
    let d = Dispatcher::new();
    for name in ["pt_boom", "pt_boom_async_main"] {
        let envelope = d.call_async(name, json!({})).await;
        assert_eq!(kind(&envelope), "panic", "{envelope}");
    }
    let envelope = d.call_async("pt_boom_fmt", json!({"n": 3})).await;
    assert_eq!(
        envelope["error"],
        "the tool `pt_boom_fmt` panicked: bad number 3"
    );
    let envelope = d.call_async("pt_boom_async", json!({"really": true})).await;
    assert_eq!(kind(&envelope), "panic");
    let envelope = d.call_async("pt_echo", json!({"n": 4})).await;
    assert_eq!(envelope["data"]["result"], 4);
}

#[test]
fn an_off_thread_tool_past_its_timeout_answers_promptly() {
    let d = Dispatcher::builder()
        .timeout(Duration::from_millis(50))
        .build();
    let start = Instant::now();
    let envelope = d.call("pt_sleep", json!({"ms": 600}));
    let elapsed = start.elapsed();
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "timeout",
            "error": "the tool `pt_sleep` did not finish within 50 ms; it was asked to stop and \
                      its result, if any, is discarded"
        })
    );
    assert!(elapsed < Duration::from_millis(450), "took {elapsed:?}");
    // A call that fits answers normally.
    assert_eq!(d.call("pt_sleep", json!({"ms": 1}))["data"]["result"], 1);
}

#[test]
fn an_async_tool_past_its_timeout_answers_promptly() {
    let d = Dispatcher::new();
    let start = Instant::now();
    let outcome = d.invoke_with("pt_sleep_async", json!({"ms": 600}), with_timeout(50));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    let outcome2 = d.invoke_with("pt_sleep_async_main", json!({"ms": 600}), with_timeout(50));
    assert_eq!(outcome2.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        start.elapsed() < Duration::from_millis(900),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn a_main_thread_tool_past_its_timeout_answers_promptly() {
    let d = Dispatcher::new();
    let start = Instant::now();
    let outcome = d.invoke_with("pt_sleep_main", json!({"ms": 600}), with_timeout(50));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        start.elapsed() < Duration::from_millis(450),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn a_queued_main_thread_call_whose_timeout_passes_never_runs() {
    let d = Dispatcher::new();
    let busy = {
        let d = d.clone();
        thread::spawn(move || d.call("pt_hold_main", json!({"ms": 300})))
    };
    // Let the long call occupy the main thread first.
    let start = Instant::now();
    while !HOLDING.load(Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "the call never started"
        );
        thread::sleep(Duration::from_millis(2));
    }
    let outcome = d.invoke_with("pt_count_main", json!({"slot": 0}), with_timeout(40));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert_eq!(busy.join().unwrap()["ok"], true);
    // The main thread is free again: the next call runs, the timed-out one never did.
    let after = d.call("pt_count_main", json!({"slot": 0}));
    assert_eq!(after, json!({"ok": true, "data": {"result": 1}}));
    assert_eq!(d.pending_main_thread_calls(), 0);
    assert_eq!(RUNS[0].load(Ordering::SeqCst), 1);
}

#[test]
fn a_main_thread_call_on_the_main_thread_itself_answers_timeout_when_it_ends_late() {
    let d = Dispatcher::builder().main_thread(MainThread::Host).build();
    let start = Instant::now();
    let outcome = d.invoke_with("pt_sleep_main", json!({"ms": 150}), with_timeout(20));
    // It ran inline (nothing can interrupt it), so it took its full time.
    assert!(start.elapsed() >= Duration::from_millis(150));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    let outcome = d.invoke_with("pt_sleep_main", json!({"ms": 1}), with_timeout(2000));
    assert!(outcome.is_ok());
}

#[test]
fn timeouts_are_chosen_per_call_then_per_tool_then_default() {
    let d = Dispatcher::builder()
        .timeout(Duration::from_secs(5))
        .tool_timeout("pt_sleep", Duration::from_millis(40))
        .build();
    assert_eq!(d.timeout_for("pt_sleep"), Some(Duration::from_millis(40)));
    assert_eq!(d.timeout_for("pt_sleep_main"), Some(Duration::from_secs(5)));
    assert_eq!(Dispatcher::new().timeout_for("pt_sleep"), None);

    // The per-tool timeout applies to that tool only.
    let start = Instant::now();
    let envelope = d.call("pt_sleep", json!({"ms": 500}));
    assert_eq!(kind(&envelope), "timeout");
    assert!(
        envelope["error"].as_str().unwrap().contains("within 40 ms"),
        "{envelope}"
    );
    assert!(start.elapsed() < Duration::from_millis(400));
    assert_eq!(d.call("pt_sleep_main", json!({"ms": 60}))["ok"], true);

    // A per-call timeout overrides the tool's, both ways.
    let outcome = d.invoke_with("pt_sleep", json!({"ms": 80}), with_timeout(3000));
    assert!(outcome.is_ok(), "{outcome:?}");
    let outcome = d.invoke_with("pt_sleep_main", json!({"ms": 500}), with_timeout(30));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        outcome.error().unwrap().message().contains("within 30 ms"),
        "{outcome:?}"
    );
}

#[test]
fn a_timed_out_tool_sees_its_cancellation() {
    let d = Dispatcher::new();
    let outcome = d.invoke_with("pt_watch", json!({"tag": "sync-off"}), with_timeout(50));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(wait_for_cancel("sync-off"));

    let outcome = d.invoke_with(
        "pt_watch_main",
        json!({"tag": "sync-main"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(wait_for_cancel("sync-main"));

    let outcome = d.invoke_with(
        "pt_watch_async",
        json!({"tag": "async-off"}),
        with_timeout(50),
    );
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(wait_for_cancel("async-off"));

    // Without a timeout nothing is cancelled.
    let token = CancelToken::new();
    let options = CallOptions::new().cancel(token.clone());
    let outcome = d.invoke_with("pt_echo", json!({"n": 1}), options);
    assert!(outcome.is_ok());
    assert!(!token.is_cancelled());
}

fn cancel_after(ms: u64) -> (CancelToken, thread::JoinHandle<()>) {
    let token = CancelToken::new();
    let handle = {
        let token = token.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(ms));
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
    let (token, canceller) = cancel_after(40);
    let start = Instant::now();
    let envelope = d
        .invoke_with("pt_sleep_main", json!({"ms": 600}), with_cancel(&token))
        .into_envelope();
    assert_eq!(
        envelope,
        json!({"ok": false, "type": "cancelled", "error": "the call was cancelled"})
    );
    assert!(
        start.elapsed() < Duration::from_millis(450),
        "took {:?}",
        start.elapsed()
    );
    canceller.join().unwrap();

    // An off-thread tool that checks its context stops itself.
    let (token, canceller) = cancel_after(40);
    let outcome = d.invoke_with("pt_watch", json!({"tag": "token-off"}), with_cancel(&token));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    assert!(saw_cancel("token-off"));
    canceller.join().unwrap();

    // An async tool.
    let (token, canceller) = cancel_after(40);
    let start = Instant::now();
    let outcome = d.invoke_with("pt_sleep_async", json!({"ms": 600}), with_cancel(&token));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    assert!(start.elapsed() < Duration::from_millis(450));
    canceller.join().unwrap();

    // A token cancelled before the call: the tool never starts.
    let token = CancelToken::new();
    token.cancel();
    let outcome = d.invoke_with("pt_count_main", json!({"slot": 1}), with_cancel(&token));
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    // Give a wrongly queued call time to run, then check it did not.
    thread::sleep(Duration::from_millis(700));
    assert_eq!(RUNS[1].load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn async_calls_time_out_and_cancel_too() {
    let d = Dispatcher::new();
    for name in [
        "pt_sleep",
        "pt_sleep_main",
        "pt_sleep_async",
        "pt_sleep_async_main",
    ] {
        let start = Instant::now();
        let outcome = d
            .invoke_async(name, json!({"ms": 600}), with_timeout(50))
            .await;
        assert_eq!(
            outcome.error_kind(),
            Some(buril::ErrorKind::Timeout),
            "{name}"
        );
        assert!(
            start.elapsed() < Duration::from_millis(450),
            "{name}: {:?}",
            start.elapsed()
        );
    }
    let outcome = d
        .invoke_async("pt_watch", json!({"tag": "async-call"}), with_timeout(50))
        .await;
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(wait_for_cancel("async-call"));

    let (token, canceller) = cancel_after(40);
    let start = Instant::now();
    let outcome = d
        .invoke_async("pt_sleep_async", json!({"ms": 600}), with_cancel(&token))
        .await;
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Cancelled));
    assert!(start.elapsed() < Duration::from_millis(450));
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
        for name in ["pt_sleep", "pt_sleep_async", "pt_sleep_main"] {
            let start = Instant::now();
            let outcome = d
                .invoke_async(name, json!({"ms": 600}), with_timeout(50))
                .await;
            assert_eq!(
                outcome.error_kind(),
                Some(buril::ErrorKind::Timeout),
                "{name}"
            );
            assert!(start.elapsed() < Duration::from_millis(450), "{name}");
        }
        let outcome = d
            .invoke_async("pt_echo", json!({"n": 7}), with_timeout(5_000))
            .await;
        assert!(outcome.is_ok(), "{outcome:?}");

        // A call whose future is dropped (a client that went away) is cancelled.
        let call = d.invoke_async(
            "pt_watch",
            json!({"tag": "dropped-call"}),
            with_timeout(5_000),
        );
        let mut call = Box::pin(call);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(call.as_mut().poll(&mut cx).is_pending());
        // Once the tool runs (a call dropped before its tool starts never runs it).
        let start = Instant::now();
        while !STARTED.lock().unwrap().iter().any(|t| t == "dropped-call") {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the tool never started"
            );
            thread::sleep(Duration::from_millis(2));
        }
        drop(call);
    });
    assert!(wait_for_cancel("dropped-call"));
}

#[test]

fn a_timeout_does_not_cancel_the_callers_token() {
    let d = Dispatcher::new();
    let session = CancelToken::new();
    let options = CallOptions::new()
        .timeout(Duration::from_millis(30))
        .cancel(session.clone());
    let outcome = d.invoke_with("pt_sleep", json!({"ms": 300}), options);
    assert_eq!(outcome.error_kind(), Some(buril::ErrorKind::Timeout));
    assert!(
        !session.is_cancelled(),
        "the caller's token was cancelled by a timeout"
    );
    let outcome = d.invoke_with("pt_echo", json!({"n": 5}), with_cancel(&session));
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
            d.invoke_with("pt_spin", json!({}), with_timeout(30))
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
