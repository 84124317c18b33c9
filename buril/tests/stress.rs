//! Load and faults: 8 threads making 100 000 mixed calls, each answered exactly once with its
//! own answer; and calls keep being served while tools panic, never return, or hold the main
//! thread past their timeout.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use buril::{CallOptions, Dispatcher, ToolError};
use serde_json::{Value, json};

/// Set to let the never-returning tools go, at the end of their test.
static RELEASE: AtomicBool = AtomicBool::new(false);

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

/// Never returns by itself and ignores cancellation: it only ends when the test releases it
/// (bounded at 30 s, so that no test leaves it running).
#[buril::tool(off_thread)]
fn st_forever() -> u8 {
    let start = Instant::now();
    while !RELEASE.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(30) {
        thread::sleep(Duration::from_millis(10));
    }
    0
}

/// Holds the main thread for a while, ignoring cancellation.
#[buril::tool]
fn st_hold_main(
    /// How long, in milliseconds.
    ms: u64,
) -> u8 {
    thread::sleep(Duration::from_millis(ms));
    0
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
                        let envelope = dispatcher.call(tool, input);
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

/// The longest a quick call may take while faults happen around it.
const PROMPT: Duration = Duration::from_secs(2);

#[test]
fn never_returning_panicking_and_main_thread_hogging_tools_do_not_stop_other_calls() {
    quiet_intended_panics();
    let dispatcher = Dispatcher::builder()
        .tool_timeout("st_forever", Duration::from_millis(200))
        .tool_timeout("st_hold_main", Duration::from_millis(100))
        .build();
    thread::scope(|scope| {
        // Four calls that never return, and one holding the main thread for 1.5 s.
        let stuck: Vec<_> = (0..4)
            .map(|_| {
                let dispatcher = dispatcher.clone();
                scope.spawn(move || dispatcher.call("st_forever", json!({})))
            })
            .collect();
        let hog = {
            let dispatcher = dispatcher.clone();
            scope.spawn(move || {
                let start = Instant::now();
                let envelope = dispatcher.call("st_hold_main", json!({"ms": 1500}));
                (envelope, start.elapsed())
            })
        };
        thread::sleep(Duration::from_millis(50));
        // Meanwhile, every other off-thread call is served promptly, panics included.
        for id in 0..200u64 {
            let start = Instant::now();
            let envelope = dispatcher.call("st_echo_off", json!({"id": id}));
            assert_eq!(envelope["data"]["result"], id);
            let envelope = dispatcher.call("st_panic", json!({"id": id}));
            assert_eq!(envelope["type"], "panic");
            assert!(start.elapsed() < PROMPT);
        }
        for handle in stuck {
            let envelope = handle.join().unwrap();
            assert_eq!(envelope["type"], "timeout", "{envelope}");
        }
        let (envelope, waited) = hog.join().unwrap();
        assert_eq!(envelope["type"], "timeout", "{envelope}");
        assert!(waited < Duration::from_millis(1000), "{waited:?}");
        // Main-thread calls queue behind the hog (one main thread runs them in order), and
        // are served once it ends.
        let start = Instant::now();
        let envelope = dispatcher.call("st_echo_main", json!({"id": 7}));
        assert_eq!(envelope["data"]["result"], 7);
        assert!(start.elapsed() < Duration::from_secs(3));
    });
    RELEASE.store(true, Ordering::SeqCst);
}
