//! A sync `off_thread` tool called from async code runs on the blocking pool until its runs
//! there have shown it quick, then in its caller's task while it stays quick; a slow run in
//! place sends its calls away again. `blocking` tools, calls with a deadline nearer than a
//! second, and dispatchers built with `learn_pace(false)` always send them away.
//!
//! A tool's pace is its own, shared by every dispatcher of the process: each test here has
//! tools of its own. Nothing asserts how long a call took; a run that is slow on a loaded
//! machine only delays a promotion, so the tests call until the event they wait for and bound
//! that by a number of calls no machine comes near.

use std::thread;
use std::time::Duration;

use buril::{CallOptions, Dispatcher};
use serde_json::{Value, json};

/// Quick runs in a row a tool shows away from its caller before it first runs in place.
const FIRST_PROOF: usize = 8;

/// Calls made, at most, waiting for a tool to run in place.
const MOST_CALLS: usize = 5_000;

fn here() -> String {
    format!("{:?}", thread::current().id())
}

fn result(envelope: &Value) -> &str {
    envelope["data"]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("a thread id: {envelope}"))
}

/// Says which thread it runs on.
#[buril::tool(off_thread)]
fn pace_where_first() -> String {
    here()
}

/// Says which thread it runs on.
#[buril::tool(off_thread)]
fn pace_where_timed() -> String {
    here()
}

/// Says which thread it runs on.
#[buril::tool(off_thread)]
fn pace_where_unlearned() -> String {
    here()
}

/// Says which thread it runs on; may block, by its author's word.
#[buril::tool(off_thread, blocking)]
fn pace_where_blocking() -> String {
    here()
}

/// Says which thread it runs on; when `nest`, first blocks on a runtime of its own (what a
/// sync tool using `reqwest::blocking` or `block_on` does), which Tokio allows on the blocking
/// pool and refuses on a thread that drives async tasks.
#[buril::tool(off_thread)]
fn pace_nest(
    /// Whether to block on a runtime of its own.
    nest: bool,
) -> String {
    if nest {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        runtime.block_on(async {});
    }
    here()
}

/// Says which thread it runs on, after sleeping `nap_ms` milliseconds.
#[buril::tool(off_thread)]
fn pace_nap(
    /// How long to sleep, in milliseconds.
    nap_ms: u64,
) -> String {
    thread::sleep(Duration::from_millis(nap_ms));
    here()
}

/// Calls `tool` (with `input`) until it runs in this task; answers how many calls ran away
/// before.
async fn calls_until_in_place(d: &Dispatcher, tool: &str, input: Value) -> usize {
    let here = here();
    for away in 0..MOST_CALLS {
        let answer = d
            .invoke_async(tool, input.clone(), buril::CallOptions::default())
            .await
            .into_envelope();
        if result(&answer) == here {
            return away;
        }
    }
    panic!("`{tool}` never ran in the calling task in {MOST_CALLS} calls");
}

#[tokio::test(flavor = "current_thread")]
async fn a_quick_tool_runs_in_its_async_callers_task_after_quick_runs_away() {
    let d = Dispatcher::new();
    let away = calls_until_in_place(&d, "pace_where_first", json!({})).await;
    assert!(away >= FIRST_PROOF, "ran in place after {away} runs away");
    // And stays there while it is quick.
    for _ in 0..50 {
        assert_eq!(
            result(
                &d.invoke_async("pace_where_first", json!({}), buril::CallOptions::default())
                    .await
                    .into_envelope()
            ),
            here()
        );
    }
    // A blocking caller runs a call without a deadline itself, as before.
    let blocking = d
        .invoke("pace_where_first", json!({}), buril::CallOptions::default())
        .into_envelope();
    assert_eq!(result(&blocking), here());
}

#[tokio::test(flavor = "current_thread")]
async fn a_slow_run_in_place_sends_the_next_calls_away_and_asks_more_proof() {
    let d = Dispatcher::new();
    calls_until_in_place(&d, "pace_nap", json!({"nap_ms": 0})).await;
    // In place, the slow call stalls this task (what learning costs, once).
    let slow = d
        .invoke_async(
            "pace_nap",
            json!({"nap_ms": 3}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(result(&slow), here());
    // The next calls go away, twice as many quick ones as the first time.
    let away = calls_until_in_place(&d, "pace_nap", json!({"nap_ms": 0})).await;
    assert!(
        away >= 2 * FIRST_PROOF,
        "back in place after {away} runs away"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_with_a_near_deadline_never_runs_in_place_and_one_with_a_far_deadline_does() {
    let d = Dispatcher::new();
    calls_until_in_place(&d, "pace_where_timed", json!({})).await;
    let with_timeout = |timeout| CallOptions::new().timeout(timeout);
    for _ in 0..20 {
        // Nearer than a second: to the pool, where the timeout can answer while it runs.
        let near = d
            .invoke_async(
                "pace_where_timed",
                json!({}),
                with_timeout(Duration::from_millis(900)),
            )
            .await;
        let thread = near.data().and_then(|data| data["result"].as_str());
        assert!(thread.is_some(), "{near:?}");
        assert_ne!(thread, Some(here().as_str()), "{near:?}");
        // The MCP server's default (60 s) and longer: in place.
        let far = d
            .invoke_async(
                "pace_where_timed",
                json!({}),
                with_timeout(Duration::from_secs(60)),
            )
            .await;
        let thread = far.data().and_then(|data| data["result"].as_str());
        assert_eq!(thread, Some(here().as_str()), "{far:?}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_dispatcher_that_does_not_learn_pace_sends_every_call_away() {
    let learning = Dispatcher::new();
    calls_until_in_place(&learning, "pace_where_unlearned", json!({})).await;
    // The tool has shown itself quick; a dispatcher built not to learn still sends it away.
    let d = Dispatcher::builder().learn_pace(false).build();
    for _ in 0..(4 * FIRST_PROOF) {
        let answer = d
            .invoke_async(
                "pace_where_unlearned",
                json!({}),
                buril::CallOptions::default(),
            )
            .await
            .into_envelope();
        assert_ne!(result(&answer), here());
    }
    // The learning one runs it in place still.
    let answer = learning
        .invoke_async(
            "pace_where_unlearned",
            json!({}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(result(&answer), here());
}

#[tokio::test(flavor = "current_thread")]
async fn a_blocking_tool_never_runs_in_place_however_quick() {
    let d = Dispatcher::new();
    for _ in 0..(20 * FIRST_PROOF) {
        let answer = d
            .invoke_async(
                "pace_where_blocking",
                json!({}),
                buril::CallOptions::default(),
            )
            .await
            .into_envelope();
        assert_ne!(result(&answer), here());
    }
    assert!(
        d.registry().get("pace_where_blocking").unwrap().threading() == buril::Threading::Blocking
    );
    assert!(
        d.registry().get("pace_where_first").unwrap().threading() != buril::Threading::Blocking
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_tool_that_blocks_on_a_runtime_in_place_fails_once_and_never_runs_in_place_again() {
    let d = Dispatcher::new();
    calls_until_in_place(&d, "pace_nest", json!({"nest": false})).await;
    let refused = d
        .invoke_async(
            "pace_nest",
            json!({"nest": true}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(refused["type"], "panic", "{refused}");
    let message = refused["error"].as_str().unwrap();
    assert!(message.contains("Cannot start a runtime"), "{message}");
    assert!(
        message.contains("#[buril::tool(off_thread, blocking)]"),
        "{message}"
    );
    // The same call on the pool works; and no call runs in place again, however quick.
    let again = d
        .invoke_async(
            "pace_nest",
            json!({"nest": true}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_ne!(result(&again), here());
    for _ in 0..(20 * FIRST_PROOF) {
        let quick = d
            .invoke_async(
                "pace_nest",
                json!({"nest": false}),
                buril::CallOptions::default(),
            )
            .await
            .into_envelope();
        assert_ne!(result(&quick), here());
    }
}

#[test]
fn a_blocking_caller_with_a_deadline_waits_on_the_pool_even_for_a_quick_tool() {
    let d = Dispatcher::new();
    // Shown quick to async callers first.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(calls_until_in_place(&d, "pace_where_far", json!({})));
    // A blocking caller with a far deadline: the tool runs away from it, where the deadline
    // can answer the caller while the tool runs; without one, the caller runs it itself.
    for _ in 0..20 {
        let timed = d
            .invoke(
                "pace_where_far",
                json!({}),
                CallOptions::new().timeout(Duration::from_secs(60)),
            )
            .into_envelope();
        assert_ne!(result(&timed), here(), "{timed}");
        let plain = d
            .invoke("pace_where_far", json!({}), CallOptions::default())
            .into_envelope();
        assert_eq!(result(&plain), here(), "{plain}");
    }
}

/// Says which thread it runs on.
#[buril::tool(off_thread)]
fn pace_where_far() -> String {
    here()
}
