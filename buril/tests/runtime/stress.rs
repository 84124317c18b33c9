//! Load and faults: 8 threads making 100 000 mixed calls, each answered exactly once with its
//! own answer; and calls keep being served while tools panic, never return, or hold the main
//! thread past their timeout.
//!
//! Nothing here asserts how long something took: the stuck tools stay stuck until the test
//! opens their gate, so "served while they are stuck" and "answered before the tool returned"
//! are orders of events. `WAIT` only bounds the wait for an event that must come.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use buril::{CallOptions, Dispatcher, ToolError};
use buril_test_support::wait_until;
use serde_json::{Value, json};

/// The longest the tests wait for an event that must come, and the longest a stuck tool stays
/// stuck when its gate is never opened (so that no test leaves it running).
const WAIT: Duration = Duration::from_secs(30);

/// Shut until the test opens it; the stuck tools wait at it.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    const fn new() -> Self {
        Gate {
            open: Mutex::new(false),
            opened: Condvar::new(),
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Waits until the gate is open, or `WAIT` passed.
    fn pass(&self) {
        let open = self.open.lock().unwrap();
        drop(
            self.opened
                .wait_timeout_while(open, WAIT, |open| !*open)
                .unwrap(),
        );
    }
}

/// Opened to let the never-returning tools go, at the end of their test.
static FOREVER_GATE: Gate = Gate::new();
/// How many `st_forever` calls started, and how many returned.
static FOREVER_STARTED: AtomicUsize = AtomicUsize::new(0);
static FOREVER_ENDED: AtomicUsize = AtomicUsize::new(0);

/// Opened to let `st_hold_main` give the main thread back.
static HOG_GATE: Gate = Gate::new();
/// Whether `st_hold_main` holds the main thread.
static HOLDING: AtomicBool = AtomicBool::new(false);

/// Echoes its id, on the main thread.
#[buril::tool]
fn st_echo_main(
    /// The call's id.
    id: u64,
) -> u64 {
    id
}

/// Echoes its id, on any thread.
#[buril::tool(off_thread)]
fn st_echo_off(
    /// The call's id.
    id: u64,
) -> u64 {
    id
}

/// Echoes its id, asynchronously.
#[buril::tool(off_thread)]
async fn st_echo_async(
    /// The call's id.
    id: u64,
) -> u64 {
    tokio::task::yield_now().await;
    id
}

/// Panics with its id in the message.
#[buril::tool(off_thread)]
fn st_panic(
    /// The call's id.
    id: u64,
) -> u64 {
    panic!("call {id} exploded")
}

/// Fails with its id in the message.
#[buril::tool(off_thread)]
fn st_fail(
    /// The call's id.
    id: u64,
) -> Result<u64, ToolError> {
    Err(ToolError::runtime(format!("call {id} failed")))
}

/// Never returns by itself and ignores cancellation: it only ends when the test opens its gate
/// (or after `WAIT`).
#[buril::tool(off_thread)]
fn st_forever() -> u8 {
    FOREVER_STARTED.fetch_add(1, Ordering::SeqCst);
    FOREVER_GATE.pass();
    FOREVER_ENDED.fetch_add(1, Ordering::SeqCst);
    0
}

/// Holds the main thread, ignoring cancellation, until the test opens its gate (or after
/// `WAIT`).
#[buril::tool]
fn st_hold_main() -> u8 {
    HOLDING.store(true, Ordering::SeqCst);
    HOG_GATE.pass();
    HOLDING.store(false, Ordering::SeqCst);
    0
}

/// Answers whether it ran after `st_hold_main` gave the main thread back, on the main thread.
#[buril::tool]
fn st_after_hold() -> bool {
    !HOLDING.load(Ordering::SeqCst)
}

/// One mixed call: the tool and input for `id`, and the answer it must get.
/// Whether an envelope is the right answer to one call.
type Check = Box<dyn Fn(&Value) -> bool + Send>;

fn mixed(id: u64) -> (&'static str, Value, Check) {
    let echo = move |envelope: &Value| envelope["data"]["result"] == json!(id);
    let failure = move |kind: &'static str| {
        move |envelope: &Value| {
            envelope["type"] == kind
                && envelope["error"]
                    .as_str()
                    .is_some_and(|e| e.contains(&format!("call {id} ")))
        }
    };
    match id % 10 {
        0..=2 => ("st_echo_main", json!({"id": id}), Box::new(echo)),
        3..=5 => ("st_echo_off", json!({"id": id}), Box::new(echo)),
        6 => ("st_echo_async", json!({"id": id}), Box::new(echo)),
        7 => ("st_panic", json!({"id": id}), Box::new(failure("panic"))),
        8 => ("st_fail", json!({"id": id}), Box::new(failure("runtime"))),
        _ => (
            "st_echo_off",
            json!({"id": id.to_string()}),
            Box::new(|envelope: &Value| envelope["type"] == "validation"),
        ),
    }
}

/// Keeps the tools' tens of thousands of intended panics out of the test output; every other
/// panic (a failed assertion) is reported as usual.
fn quiet_intended_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or_default();
            if !message.ends_with(" exploded") {
                default(info);
            }
        }));
    });
}

const THREADS: u64 = 8;
const CALLS_PER_THREAD: u64 = 12_500;

#[test]
fn eight_threads_make_100_000_mixed_calls_each_answered_once_with_its_own_answer() {
    quiet_intended_panics();
    let dispatcher = Dispatcher::new();
    let start = Instant::now();
    let answered: Vec<Vec<u64>> = thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|thread| {
                let dispatcher = dispatcher.clone();
                scope.spawn(move || {
                    let mut answered = Vec::with_capacity(CALLS_PER_THREAD as usize);
                    for n in 0..CALLS_PER_THREAD {
                        let id = thread * CALLS_PER_THREAD + n;
                        let (tool, input, check) = mixed(id);
                        let envelope = dispatcher
                            .invoke(tool, input, buril::CallOptions::default())
                            .into_envelope();
                        assert!(check(&envelope), "call {id} to {tool}: {envelope}");
                        answered.push(id);
                    }
                    answered
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total: usize = answered.iter().map(Vec::len).sum();
    let unique: HashSet<u64> = answered.into_iter().flatten().collect();
    assert_eq!(total, (THREADS * CALLS_PER_THREAD) as usize);
    assert_eq!(unique.len(), total, "an answer was duplicated");
    eprintln!("100 000 mixed calls on 8 threads in {:?}", start.elapsed());
}

#[test]
fn async_callers_get_every_answer_once_too() {
    quiet_intended_panics();
    let dispatcher = Dispatcher::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let ids: Vec<u64> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for id in 0..10_000u64 {
            let dispatcher = dispatcher.clone();
            tasks.push(tokio::spawn(async move {
                let (tool, input, check) = mixed(id);
                let envelope = dispatcher
                    .invoke_async(tool, input, CallOptions::default())
                    .await
                    .into_envelope();
                assert!(check(&envelope), "call {id} to {tool}: {envelope}");
                id
            }));
        }
        let mut ids = Vec::new();
        for task in tasks {
            ids.push(task.await.unwrap());
        }
        ids
    });
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), 10_000);
}

#[test]
fn never_returning_panicking_and_main_thread_hogging_tools_do_not_stop_other_calls() {
    quiet_intended_panics();
    let dispatcher = Dispatcher::builder()
        .tool_timeout("st_forever", Duration::from_millis(200))
        .tool_timeout("st_hold_main", Duration::from_millis(100))
        .build();
    let stuck_still =
        || FOREVER_ENDED.load(Ordering::SeqCst) == 0 && HOLDING.load(Ordering::SeqCst);
    thread::scope(|scope| {
        // Four calls that never return, and one holding the main thread, all until the end.
        let stuck: Vec<_> = (0..4)
            .map(|_| {
                let dispatcher = dispatcher.clone();
                scope.spawn(move || {
                    dispatcher
                        .invoke("st_forever", json!({}), buril::CallOptions::default())
                        .into_envelope()
                })
            })
            .collect();
        let hog = {
            let dispatcher = dispatcher.clone();
            scope.spawn(move || {
                dispatcher
                    .invoke("st_hold_main", json!({}), buril::CallOptions::default())
                    .into_envelope()
            })
        };
        wait_until("the stuck calls' start", || {
            FOREVER_STARTED.load(Ordering::SeqCst) == 4 && HOLDING.load(Ordering::SeqCst)
        });
        // Meanwhile, every other off-thread call is served, panics included, without waiting
        // for the stuck ones.
        for id in 0..200u64 {
            let envelope = dispatcher
                .invoke(
                    "st_echo_off",
                    json!({"id": id}),
                    buril::CallOptions::default(),
                )
                .into_envelope();
            assert_eq!(envelope["data"]["result"], id);
            let envelope = dispatcher
                .invoke("st_panic", json!({"id": id}), buril::CallOptions::default())
                .into_envelope();
            assert_eq!(envelope["type"], "panic");
        }
        assert!(
            stuck_still(),
            "a stuck tool ended before the quick calls did"
        );
        // The stuck calls and the hog's answer `timeout` while their tools are still stuck.
        for handle in stuck {
            let envelope = handle.join().unwrap();
            assert_eq!(envelope["type"], "timeout", "{envelope}");
        }
        let envelope = hog.join().unwrap();
        assert_eq!(envelope["type"], "timeout", "{envelope}");
        assert!(
            stuck_still(),
            "the timeouts were answered only once the tools ended"
        );
        // Main-thread calls queue behind the hog (one main thread runs them in order), and
        // are served once it ends.
        let queued = {
            let dispatcher = dispatcher.clone();
            scope.spawn(move || {
                dispatcher
                    .invoke("st_after_hold", json!({}), buril::CallOptions::default())
                    .into_envelope()
            })
        };
        wait_until("the main-thread call's queueing", || {
            dispatcher.pending_main_thread_calls() == 1
        });
        assert!(
            !queued.is_finished(),
            "a main-thread call ran beside the hog"
        );
        HOG_GATE.open();
        let envelope = queued.join().unwrap();
        assert_eq!(envelope["data"]["result"], true, "{envelope}");
        let envelope = dispatcher
            .invoke(
                "st_echo_main",
                json!({"id": 7}),
                buril::CallOptions::default(),
            )
            .into_envelope();
        assert_eq!(envelope["data"]["result"], 7);
    });
    FOREVER_GATE.open();
    wait_until("the stuck tools' end", || {
        FOREVER_ENDED.load(Ordering::SeqCst) == 4
    });
}
