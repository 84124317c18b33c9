//! Events that tools record and tests wait for, and gates that hold a tool until the test lets
//! it go: for the tests of timeouts and cancellation, which assert no durations.
//!
//! A tool past its timeout, or cancelled, is held at a gate that only the test opens, so "the
//! caller stopped waiting before the tool ended" is an order of events: the answer comes while
//! the tool is still held, then the test lets it go. `WAIT` only bounds the wait for an event
//! that must come, and `LONG` is a timeout no call comes near, given to calls that must not
//! time out.

use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use buril_core::{CallOptions, CancelToken};
use serde_json::Value;

/// The longest the tests wait for an event that must come, and the longest a gated tool stays
/// held when its gate is never opened (so that no test leaves it running).
pub const WAIT: Duration = Duration::from_secs(30);

/// A call timeout that no call here comes near.
pub const LONG: Duration = Duration::from_secs(120);

/// What happened to the call of a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
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
pub static EVENTS: Mutex<Vec<(Event, String)>> = Mutex::new(Vec::new());
pub static CHANGED: Condvar = Condvar::new();

/// Records `event` of `tag`, and wakes whoever waits for events.
pub fn record(event: Event, tag: &str) {
    EVENTS.lock().unwrap().push((event, tag.to_owned()));
    CHANGED.notify_all();
}

/// Whether `events` hold `event` of `tag`.
pub fn has(events: &[(Event, String)], event: Event, tag: &str) -> bool {
    events.iter().any(|(e, t)| *e == event && t == tag)
}

/// Whether `event` of `tag` happened yet.
pub fn happened(event: Event, tag: &str) -> bool {
    has(&EVENTS.lock().unwrap(), event, tag)
}

/// Waits, at most `WAIT`, for `event` of `tag`; whether it came.
pub fn wait_for(event: Event, tag: &str) -> bool {
    let events = EVENTS.lock().unwrap();
    let (events, _) = CHANGED
        .wait_timeout_while(events, WAIT, |events| !has(events, event, tag))
        .unwrap();
    has(&events, event, tag)
}

/// Records `Ended` for its tag when dropped: when the tool returns, panics, or its future is
/// dropped.
pub struct Ending(pub String);

impl Drop for Ending {
    fn drop(&mut self) {
        record(Event::Ended, &self.0);
    }
}

/// The body of the gated tools: holds until the test opens the gate of `tag` (or `WAIT`
/// passed), ignoring cancellation.
pub fn hold(tag: &str) -> Ending {
    record(Event::Entered, tag);
    let ending = Ending(tag.to_owned());
    wait_for(Event::Opened, tag);
    ending
}

/// As [`hold`], for async tools: waits without blocking the thread.
pub async fn hold_async(tag: &str) -> Ending {
    record(Event::Entered, tag);
    let ending = Ending(tag.to_owned());
    let start = Instant::now();
    while !happened(Event::Opened, tag) && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    ending
}

/// Opens the gate of `tag`, and waits for its tool, if it started, to end.
pub fn open(tag: &str) {
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
pub fn answered_while_held(tag: &str) {
    assert!(
        !happened(Event::Ended, tag),
        "the call of `{tag}` was answered only once its tool ended"
    );
    open(tag);
}

/// The body of the async watching tools: records `Entered`, waits for the call's cancellation
/// (at most `WAIT`) and records `SawCancel`; whether it came.
pub async fn saw_cancel_async(tag: &str, ctx: &buril_core::Context) -> bool {
    record(Event::Entered, tag);
    tokio::select! {
        _ = ctx.cancelled() => {
            record(Event::SawCancel, tag);
            true
        }
        _ = tokio::time::sleep(WAIT) => false,
    }
}

/// After a call of `tag` timed out: its tool, if it had started by the time the call was
/// answered, saw the cancellation. (A sync tool whose call reaches it only after the deadline is
/// skipped, never run, and then there is nothing to see.)
pub fn saw_cancel_if_it_ran(tag: &str) {
    if happened(Event::Entered, tag) {
        assert!(
            wait_for(Event::SawCancel, tag),
            "the tool of `{tag}` never saw its cancellation"
        );
    }
}

/// A token, and a thread that cancels it once the tool of `tag` has started.
pub fn cancel_once_started(tag: &str) -> (CancelToken, thread::JoinHandle<()>) {
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

/// Call options with a timeout of `ms` milliseconds.
pub fn with_timeout(ms: u64) -> CallOptions {
    CallOptions::new().timeout(Duration::from_millis(ms))
}

/// Call options with the timeout `LONG`, which no call comes near.
pub fn with_long_timeout() -> CallOptions {
    CallOptions::new().timeout(LONG)
}

/// Call options with `token` as the call's cancel token.
pub fn with_cancel(token: &CancelToken) -> CallOptions {
    CallOptions::new().cancel(token.clone())
}

/// The `type` of a failed envelope, `<ok>` for a success.
pub fn kind(envelope: &Value) -> &str {
    envelope["type"].as_str().unwrap_or("<ok>")
}
