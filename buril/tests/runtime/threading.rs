//! Main-thread tools run on one thread, one at a time; off-thread tools run concurrently; host
//! pumping, nested calls and async callers.
//!
//! Nothing here asserts how long something took: the tests follow events (calls meeting,
//! queue lengths, the order calls ran in, a deadline the tool sees pass). `WAIT` only bounds
//! the wait for an event that must come, and `LONG` is a timeout no call here comes near, given
//! to make calls take the path of calls with a deadline.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use buril::{CallOptions, Context, Dispatcher, MainThread, ToolError};
use buril_test_support::wait_until;
use serde_json::{Value, json};

/// The longest the tests wait for an event that must come.
const WAIT: Duration = Duration::from_secs(30);

/// A call timeout that only sends calls down the path of calls with a deadline.
const LONG: Duration = Duration::from_secs(120);

/// What the tools of one dispatcher observed, handed to them as host state.
#[derive(Default)]
struct Tracker {
    busy: AtomicBool,
    overlaps: AtomicUsize,
    main_threads: Mutex<HashSet<ThreadId>>,
    main_names: Mutex<HashSet<String>>,
    /// How many `th_meet` calls have arrived.
    arrived: Mutex<usize>,
    arrival: Condvar,
    /// The arguments of `th_record` calls, in the order they ran.
    order: Mutex<Vec<i64>>,
}

impl Tracker {
    /// Runs `f` as a main-thread tool body: records the thread and checks nothing else runs.
    fn main<T>(&self, f: impl FnOnce() -> T) -> T {
        if self.busy.swap(true, Ordering::SeqCst) {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        self.main_threads
            .lock()
            .unwrap()
            .insert(thread::current().id());
        let name = thread::current().name().unwrap_or("<unnamed>").to_owned();
        self.main_names.lock().unwrap().insert(name);
        // The call's work: long enough for an overlap to show.
        thread::sleep(Duration::from_micros(200));
        let value = f();
        self.busy.store(false, Ordering::SeqCst);
        value
    }
}

fn tracked(ctx: &Context) -> Arc<Tracker> {
    ctx.try_state::<Arc<Tracker>>().cloned().unwrap_or_default()
}

/// Adds, on the main thread.
#[buril::tool]
fn th_add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
    ctx: &buril::Context,
) -> i64 {
    tracked(ctx).main(|| a + b)
}

/// Negates, asynchronously, on the main thread.
#[buril::tool]
async fn th_neg(
    /// The number.
    n: i64,
    ctx: &buril::Context,
) -> i64 {
    let tracker = tracked(ctx);
    if tracker.busy.swap(true, Ordering::SeqCst) {
        tracker.overlaps.fetch_add(1, Ordering::SeqCst);
    }
    tracker
        .main_threads
        .lock()
        .unwrap()
        .insert(thread::current().id());
    tokio::task::yield_now().await;
    tracker
        .main_threads
        .lock()
        .unwrap()
        .insert(thread::current().id());
    tracker.busy.store(false, Ordering::SeqCst);
    -n
}

/// Multiplies, anywhere.
#[buril::tool(off_thread)]
fn th_mul(
    /// The first factor.
    a: i64,
    /// The second factor.
    b: i64,
) -> i64 {
    a * b
}

/// Joins two strings, asynchronously, anywhere.
#[buril::tool(off_thread)]
async fn th_concat(
    /// The start.
    a: String,
    /// The end.
    b: String,
) -> String {
    tokio::task::yield_now().await;
    format!("{a}{b}")
}

/// Says which thread it runs on, on the main thread.
#[buril::tool]
fn th_where() -> String {
    format!("{:?}", thread::current().id())
}

/// Says which thread it runs on, asynchronously, on the main thread.
#[buril::tool]
async fn th_where_async() -> String {
    format!("{:?}", thread::current().id())
}

/// Waits until `count` calls of it have arrived (at most `WAIT`), so that it answers `true` only
/// when `count` calls were running at the same time.
#[buril::tool(off_thread)]
fn th_meet(
    /// How many calls must meet.
    count: usize,
    ctx: &buril::Context,
) -> bool {
    let tracker = tracked(ctx);
    let mut arrived = tracker.arrived.lock().unwrap();
    *arrived += 1;
    tracker.arrival.notify_all();
    let (arrived, _) = tracker
        .arrival
        .wait_timeout_while(arrived, WAIT, |arrived| *arrived < count)
        .unwrap();
    *arrived >= count
}

/// Records `n` in the order it runs, on the main thread, and answers `n + 10`.
#[buril::tool]
fn th_record(
    /// The number to record.
    n: i64,
    ctx: &buril::Context,
) -> i64 {
    let tracker = tracked(ctx);
    tracker.main(|| tracker.order.lock().unwrap().push(n));
    n + 10
}

/// The dispatcher the nesting tools call through.
static NESTED: OnceLock<Dispatcher> = OnceLock::new();

fn nested() -> Dispatcher {
    NESTED.get_or_init(|| Dispatcher::builder().build()).clone()
}

/// Calls other tools through the dispatcher, from the main thread.
#[buril::tool]
fn th_outer(
    /// The number to work on.
    n: i64,
) -> Result<i64, ToolError> {
    let d = nested();
    let sum = d
        .invoke(
            "th_add",
            json!({"a": n, "b": 1}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let product = d
        .invoke(
            "th_mul",
            json!({"a": n, "b": 2}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let negated = d
        .invoke("th_neg", json!({"n": n}), buril::CallOptions::default())
        .into_envelope();
    let joined = d
        .invoke(
            "th_concat",
            json!({"a": "x", "b": "y"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let results = [&sum, &product, &negated];
    let mut total = 0;
    for envelope in results {
        total += envelope["data"]["result"]
            .as_i64()
            .ok_or_else(|| ToolError::runtime(format!("nested call failed: {envelope}")))?;
    }
    if joined["data"]["result"] != "xy" {
        return Err(ToolError::runtime(format!("nested call failed: {joined}")));
    }
    Ok(total)
}

/// Calls other main-thread tools through the dispatcher, from an async main-thread tool.
#[buril::tool]
async fn th_outer_async(
    /// The number to work on.
    n: i64,
) -> Result<i64, ToolError> {
    let d = nested();
    let sum = d
        .invoke(
            "th_add",
            json!({"a": n, "b": 1}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let negated = d
        .invoke("th_neg", json!({"n": n}), buril::CallOptions::default())
        .into_envelope();
    let mut total = 0;
    for envelope in [&sum, &negated] {
        total += envelope["data"]["result"]
            .as_i64()
            .ok_or_else(|| ToolError::runtime(format!("nested call failed: {envelope}")))?;
    }
    Ok(total)
}

fn tracked_dispatcher() -> (Dispatcher, Arc<Tracker>) {
    tracked_dispatcher_spinning(true)
}

/// A dispatcher whose threads watch for each other before sleeping (`spin`), or never do.
fn tracked_dispatcher_spinning(spin: bool) -> (Dispatcher, Arc<Tracker>) {
    let tracker = Arc::new(Tracker::default());
    let d = Dispatcher::builder()
        .state(Arc::clone(&tracker))
        .spin(spin)
        .build();
    (d, tracker)
}

fn result(envelope: &Value) -> &Value {
    assert_eq!(envelope["ok"], true, "{envelope}");
    &envelope["data"]["result"]
}

#[test]
fn main_thread_tools_run_on_one_thread_one_at_a_time() {
    let (d, tracker) = tracked_dispatcher();
    let callers: Vec<_> = (0..6)
        .map(|t| {
            let d = d.clone();
            thread::spawn(move || {
                for i in 0..30 {
                    assert_eq!(
                        result(
                            &d.invoke(
                                "th_add",
                                json!({"a": t, "b": i}),
                                buril::CallOptions::default()
                            )
                            .into_envelope()
                        ),
                        t + i
                    );
                    assert_eq!(
                        result(
                            &d.invoke("th_neg", json!({"n": i}), buril::CallOptions::default())
                                .into_envelope()
                        ),
                        -i
                    );
                }
                thread::current().id()
            })
        })
        .collect();
    let caller_ids: Vec<ThreadId> = callers.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(tracker.overlaps.load(Ordering::SeqCst), 0);
    let threads = tracker.main_threads.lock().unwrap();
    assert_eq!(threads.len(), 1, "{threads:?}");
    let main = threads.iter().next().unwrap();
    assert!(!caller_ids.contains(main));
    assert_ne!(*main, thread::current().id());
    assert_eq!(
        *tracker.main_names.lock().unwrap(),
        HashSet::from(["buril-main".to_owned()])
    );
}

#[test]
fn off_thread_tools_run_concurrently() {
    let (d, tracker) = tracked_dispatcher();
    let callers: Vec<_> = (0..3)
        .map(|_| {
            let d = d.clone();
            thread::spawn(move || {
                d.invoke(
                    "th_meet",
                    json!({"count": 3}),
                    buril::CallOptions::default(),
                )
                .into_envelope()
            })
        })
        .collect();
    for caller in callers {
        assert_eq!(*result(&caller.join().unwrap()), true);
    }
    assert_eq!(*tracker.arrived.lock().unwrap(), 3);

    // On workers too (calls with a timeout).
    let (d, tracker) = tracked_dispatcher();
    let callers: Vec<_> = (0..2)
        .map(|_| {
            let d = d.clone();
            thread::spawn(move || {
                let options = CallOptions::new().timeout(LONG);
                d.invoke("th_meet", json!({"count": 2}), options)
                    .into_envelope()
            })
        })
        .collect();
    for caller in callers {
        assert_eq!(*result(&caller.join().unwrap()), true);
    }
    assert_eq!(*tracker.arrived.lock().unwrap(), 2);
}

#[test]
fn eight_threads_of_mixed_calls_all_answer_correctly() {
    mixed_calls_from_eight_threads(true);
}

#[test]
fn eight_threads_of_mixed_calls_all_answer_correctly_when_nobody_spins() {
    mixed_calls_from_eight_threads(false);
}

fn mixed_calls_from_eight_threads(spin: bool) {
    let (d, tracker) = tracked_dispatcher_spinning(spin);
    let answered = Arc::new(AtomicUsize::new(0));
    let callers: Vec<_> = (0..8_i64)
        .map(|t| {
            let d = d.clone();
            let answered = Arc::clone(&answered);
            thread::spawn(move || {
                for i in 0..200_i64 {
                    let (envelope, expected) = match i % 5 {
                        0 => (
                            d.invoke(
                                "th_add",
                                json!({"a": t, "b": i}),
                                buril::CallOptions::default(),
                            )
                            .into_envelope(),
                            json!(t + i),
                        ),
                        1 => (
                            d.invoke(
                                "th_mul",
                                json!({"a": t, "b": i}),
                                buril::CallOptions::default(),
                            )
                            .into_envelope(),
                            json!(t * i),
                        ),
                        2 => (
                            d.invoke(
                                "th_concat",
                                json!({"a": t.to_string(), "b": i.to_string()}),
                                buril::CallOptions::default(),
                            )
                            .into_envelope(),
                            json!(format!("{t}{i}")),
                        ),
                        3 => (
                            d.invoke(
                                "th_neg",
                                json!({"n": t * 1000 + i}),
                                buril::CallOptions::default(),
                            )
                            .into_envelope(),
                            json!(-(t * 1000 + i)),
                        ),
                        _ => {
                            let options = CallOptions::new().timeout(LONG);
                            let outcome = d.invoke("th_mul", json!({"a": i, "b": 3}), options);
                            (outcome.into_envelope(), json!(i * 3))
                        }
                    };
                    assert_eq!(envelope, json!({"ok": true, "data": {"result": expected}}));
                    answered.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
    assert_eq!(answered.load(Ordering::SeqCst), 1600);
    assert_eq!(tracker.overlaps.load(Ordering::SeqCst), 0);
    assert_eq!(tracker.main_threads.lock().unwrap().len(), 1);
    assert_eq!(d.pending_main_thread_calls(), 0);
}

#[test]
fn host_mode_runs_other_threads_calls_when_pumped() {
    let tracker = Arc::new(Tracker::default());
    let d = Dispatcher::builder()
        .main_thread(MainThread::Host)
        .state(Arc::clone(&tracker))
        .build();
    let here = format!("{:?}", thread::current().id());

    // On the main thread itself: inline, at once.
    assert_eq!(
        *result(
            &d.invoke("th_where", json!({}), buril::CallOptions::default())
                .into_envelope()
        ),
        here
    );
    assert_eq!(
        *result(
            &d.invoke("th_where_async", json!({}), buril::CallOptions::default())
                .into_envelope()
        ),
        here
    );
    assert_eq!(d.pump(), 0);

    // From another thread: queued until pumped, then run by the pump, on this thread.
    let caller = {
        let d = d.clone();
        thread::spawn(move || {
            d.invoke("th_where", json!({}), buril::CallOptions::default())
                .into_envelope()
        })
    };
    wait_until("the call's queueing", || d.pending_main_thread_calls() == 1);
    assert!(!caller.is_finished(), "the call answered without a pump");
    assert_eq!(d.pump(), 1, "the pump did not run the queued call");
    assert_eq!(*result(&caller.join().unwrap()), here);
    assert_eq!(d.pending_main_thread_calls(), 0);

    // Off-thread tools do not wait for the pump.
    let caller = {
        let d = d.clone();
        thread::spawn(move || {
            d.invoke(
                "th_mul",
                json!({"a": 2, "b": 3}),
                buril::CallOptions::default(),
            )
            .into_envelope()
        })
    };
    assert_eq!(*result(&caller.join().unwrap()), 6);

    // Several queued calls run in the order they queued, one at a time, on one pump.
    let callers: Vec<_> = (0..3)
        .map(|i| {
            let caller = {
                let d = d.clone();
                thread::spawn(move || {
                    d.invoke("th_record", json!({"n": i}), buril::CallOptions::default())
                        .into_envelope()
                })
            };
            wait_until("the call's queueing", || {
                d.pending_main_thread_calls() == i as usize + 1
            });
            caller
        })
        .collect();
    assert!(tracker.order.lock().unwrap().is_empty());
    assert_eq!(d.pump(), 3);
    assert_eq!(*tracker.order.lock().unwrap(), [0, 1, 2]);
    assert_eq!(tracker.overlaps.load(Ordering::SeqCst), 0);
    for (i, caller) in callers.into_iter().enumerate() {
        assert_eq!(*result(&caller.join().unwrap()), i as i64 + 10);
    }
}

#[test]
fn pump_belongs_to_the_main_thread() {
    let d = Dispatcher::builder().main_thread(MainThread::Host).build();
    let other = d.clone();
    let pumped = thread::spawn(move || other.pump()).join();
    assert!(pumped.is_err(), "pump from another thread must panic");
    // An owned main thread needs no pumping.
    assert_eq!(Dispatcher::new().pump(), 0);
}

#[test]
fn a_main_thread_tool_can_call_tools_through_the_dispatcher() {
    let d = nested();
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(
            d.invoke("th_outer", json!({"n": 5}), buril::CallOptions::default())
                .into_envelope(),
        );
    });
    let envelope = rx.recv_timeout(WAIT).expect("a nested call deadlocked");
    // (5 + 1) + (5 * 2) + (-5)
    assert_eq!(envelope, json!({"ok": true, "data": {"result": 11}}));
}

#[test]

fn an_async_main_thread_tool_can_call_tools_through_the_dispatcher() {
    let d = nested();
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(
            d.invoke(
                "th_outer_async",
                json!({"n": 5}),
                buril::CallOptions::default(),
            )
            .into_envelope(),
        );
    });
    let envelope = rx.recv_timeout(WAIT).expect("a nested call deadlocked");
    // (5 + 1) + (-5)
    assert_eq!(envelope, json!({"ok": true, "data": {"result": 1}}));
}

#[tokio::test(flavor = "multi_thread")]
async fn invoke_async_serves_every_kind_of_tool() {
    let (d, tracker) = tracked_dispatcher();
    let cases = [
        ("th_mul", json!({"a": 6, "b": 7}), json!(42)),
        ("th_concat", json!({"a": "a", "b": "b"}), json!("ab")),
        ("th_add", json!({"a": 1, "b": 2}), json!(3)),
        ("th_neg", json!({"n": 9}), json!(-9)),
    ];
    for (name, input, expected) in cases {
        let outcome = d.invoke_async(name, input, CallOptions::default()).await;
        assert_eq!(outcome.data(), Some(&json!({"result": expected})), "{name}");
    }
    let where_sync = d
        .invoke_async("th_where", json!({}), buril::CallOptions::default())
        .await
        .into_envelope();
    let where_async = d
        .invoke_async("th_where_async", json!({}), buril::CallOptions::default())
        .await
        .into_envelope();
    assert_eq!(result(&where_sync), result(&where_async));
    assert_ne!(
        *result(&where_sync),
        format!("{:?}", thread::current().id())
    );
    assert_eq!(tracker.main_threads.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_concurrent_async_calls() {
    let (d, tracker) = tracked_dispatcher();
    let tasks: Vec<_> = (0..100_i64)
        .map(|i| {
            let d = d.clone();
            tokio::spawn(async move {
                let (name, input, expected) = match i % 4 {
                    0 => ("th_mul", json!({"a": i, "b": 2}), json!(i * 2)),
                    1 => (
                        "th_concat",
                        json!({"a": "n", "b": i.to_string()}),
                        json!(format!("n{i}")),
                    ),
                    2 => ("th_add", json!({"a": i, "b": 1}), json!(i + 1)),
                    _ => ("th_neg", json!({"n": i}), json!(-i)),
                };
                let envelope = d
                    .invoke_async(name, input, buril::CallOptions::default())
                    .await
                    .into_envelope();
                assert_eq!(envelope, json!({"ok": true, "data": {"result": expected}}));
                i
            })
        })
        .collect();
    let mut done = Vec::new();
    for task in tasks {
        done.push(task.await.unwrap());
    }
    assert_eq!(done, (0..100).collect::<Vec<_>>());
    assert_eq!(tracker.overlaps.load(Ordering::SeqCst), 0);
    assert_eq!(tracker.main_threads.lock().unwrap().len(), 1);
}

/// Says which thread it runs on, off the main thread, handed to the pool.
#[buril::tool(off_thread)]
fn th_where_pooled() -> String {
    format!("{:?}", thread::current().id())
}

/// Says which thread it runs on: off the main thread, on the calling thread.
#[buril::tool(off_thread, inline)]
fn th_where_inline() -> String {
    format!("{:?}", thread::current().id())
}

/// Blocks the calling thread until its call's deadline has passed, when `overrun` (an `inline`
/// tool that breaks its word), then records that it returned.
#[buril::tool(off_thread, inline)]
fn th_slow_inline(
    /// Whether to run past the deadline.
    overrun: bool,
    ctx: &buril::Context,
) -> bool {
    if overrun && let Some(deadline) = ctx.deadline() {
        // Its work, which nothing interrupts, until the deadline has passed.
        while Instant::now() <= deadline {
            thread::sleep(Duration::from_millis(1));
        }
    }
    if let Some(returned) = ctx.try_state::<Arc<AtomicBool>>() {
        returned.store(true, Ordering::SeqCst);
    }
    true
}

/// Panics, inline.
#[buril::tool(off_thread, inline)]
fn th_boom_inline() -> bool {
    panic!("inline boom")
}

fn with_timeout(timeout: Duration) -> CallOptions {
    CallOptions::new().timeout(timeout)
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_tool_runs_in_the_calling_task() {
    let d = Dispatcher::new();
    let here = format!("{:?}", thread::current().id());
    let inline = d
        .invoke_async("th_where_inline", json!({}), buril::CallOptions::default())
        .await
        .into_envelope();
    assert_eq!(*result(&inline), here);
    let timed = d
        .invoke_async("th_where_inline", json!({}), with_timeout(LONG))
        .await;
    assert_eq!(timed.data(), Some(&json!({"result": here})));
    // The same tool without `inline` is handed to the blocking pool.
    let pooled = d
        .invoke_async("th_where_pooled", json!({}), buril::CallOptions::default())
        .await
        .into_envelope();
    assert_ne!(*result(&pooled), here);
    assert!(d.registry().get("th_where_inline").unwrap().threading() == buril::Threading::Inline);
    assert!(d.registry().get("th_where_pooled").unwrap().threading() != buril::Threading::Inline);
}

#[test]
fn an_inline_tool_with_a_timeout_runs_on_the_calling_thread() {
    let d = Dispatcher::new();
    let here = format!("{:?}", thread::current().id());
    let inline = d.invoke("th_where_inline", json!({}), with_timeout(LONG));
    assert_eq!(inline.data(), Some(&json!({"result": here})));
    // Without `inline`, a call with a timeout runs on a worker so that the timeout can answer.
    let pooled = d.invoke("th_where_pooled", json!({}), with_timeout(LONG));
    assert_ne!(pooled.data(), Some(&json!({"result": here})));
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_tool_past_its_deadline_is_answered_as_a_timeout_when_it_returns() {
    let returned = Arc::new(AtomicBool::new(false));
    let d = Dispatcher::builder().state(returned.clone()).build();
    let outcome = d
        .invoke_async(
            "th_slow_inline",
            json!({"overrun": true}),
            with_timeout(Duration::from_millis(10)),
        )
        .await;
    // Not interrupted: the tool ran to its end, past the deadline, then the late result became
    // a timeout.
    assert!(returned.load(Ordering::SeqCst));
    assert_eq!(
        outcome.error_kind(),
        Some(buril::ErrorKind::Timeout),
        "{outcome:?}"
    );
    // In time, the same tool answers.
    let outcome = d
        .invoke_async(
            "th_slow_inline",
            json!({"overrun": false}),
            with_timeout(LONG),
        )
        .await;
    assert_eq!(outcome.data(), Some(&json!({"result": true})));
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_tool_that_panics_answers_an_error_and_the_task_goes_on() {
    let d = Dispatcher::new();
    let envelope = d
        .invoke_async("th_boom_inline", json!({}), buril::CallOptions::default())
        .await
        .into_envelope();
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `th_boom_inline` panicked: inline boom"
        })
    );
    let here = format!("{:?}", thread::current().id());
    assert_eq!(
        *result(
            &d.invoke_async("th_where_inline", json!({}), buril::CallOptions::default())
                .await
                .into_envelope()
        ),
        here
    );
}
