//! Work a host starts in the background as tasks of its own ([`Tasks::launch`]): handles,
//! progress and what the starter says of a task, every ending (completed, cancelled, failed by a
//! panic), cooperative cancellation, waiting, listing, and a long-running tool that starts a
//! task from its context and answers with the handle, which later calls poll.
//!
//! Nothing here asserts how long something took: the tests follow events (channels, the task's
//! own status) and, for the timeouts of waits, a paused Tokio clock. `WAIT` only bounds the wait
//! for an event that must come, so that a broken build fails instead of hanging.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use buril::context::Progress;
use buril::tasks::{TaskEnd, TaskError, TaskRecord, TaskState, TaskSummary, Tasks};
use buril::{CallOptions, Context, Dispatcher, ToolError};
use serde_json::{Value, json};

/// The longest the tests wait for an event that must come.
const WAIT: Duration = Duration::from_secs(30);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn completed(data: Value) -> TaskEnd {
    TaskEnd::Completed {
        envelope: json!({"ok": true, "data": data}),
        result: None,
    }
}

fn is_handle(text: &str) -> bool {
    text.strip_prefix("task_")
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[test]
fn handles_are_distinct_and_well_formed() {
    let tasks = Tasks::in_memory();
    let mut seen = HashSet::new();
    for _ in 0..200 {
        let start = tasks.prepare().unwrap();
        assert!(is_handle(start.id()), "{}", start.id());
        assert!(seen.insert(start.id().to_owned()), "{} reused", start.id());
    }
}

/// On a paused clock: the runner keeps the latest report at its check interval, which the test
/// moves the clock on by.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_task_reports_progress_and_its_detail_and_ends_with_its_envelope() {
    let tasks = Tasks::in_memory();
    let start = tasks
        .prepare()
        .unwrap()
        .with_detail(json!({"label": "steps"}));
    let progress = start.progress();
    let (reported, on_report) = tokio::sync::oneshot::channel::<()>();
    let (release, on_release) = tokio::sync::oneshot::channel::<()>();
    let task = tasks
        .launch(start, "demo_steps", None, async move {
            progress(Progress::new("demo_steps", 2.0).message("two steps"));
            reported.send(()).unwrap();
            let _ = on_release.await;
            completed(json!({"steps": 2}))
        })
        .await
        .unwrap();
    assert_eq!(task.detail, Some(json!({"label": "steps"})));
    tokio::time::timeout(WAIT, on_report)
        .await
        .unwrap()
        .unwrap();
    // The runner keeps the latest report in the task, at its check interval: the clock
    // moves on by one interval at a time until it has.
    let interval = tasks.settings().check_interval;
    let mut intervals = 0;
    let running = loop {
        let record = tasks.get(&task.id, None).await.unwrap();
        if record.progress.is_some() {
            break record;
        }
        assert!(intervals < 8, "the report was never kept: {record:?}");
        tokio::time::advance(interval).await;
        intervals += 1;
    };
    assert_eq!(running.status, TaskState::Working);
    assert_eq!(running.progress.as_ref().unwrap()["progress"], 2.0);
    assert_eq!(running.progress.as_ref().unwrap()["message"], "two steps");
    assert_eq!(running.envelope, None);
    release.send(()).unwrap();

    let done = tasks.wait(&task.id, None, Some(WAIT)).await.unwrap();
    assert_eq!(done.status, TaskState::Completed);
    assert_eq!(
        done.envelope,
        Some(json!({"ok": true, "data": {"steps": 2}}))
    );
    let summary: TaskSummary = done.summary(buril::tasks::now_ms());
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["status"], "completed");
    assert_eq!(json["handle"], task.id.as_str());
    assert_eq!(json["detail"], json!({"label": "steps"}));
}

#[test]
fn every_ending_has_its_state() {
    runtime().block_on(async {
        let tasks = Tasks::in_memory();
        let launch =
            |work: std::pin::Pin<Box<dyn std::future::Future<Output = TaskEnd> + Send>>| {
                let tasks = tasks.clone();
                async move {
                    let start = tasks.prepare().unwrap();
                    tasks.launch(start, "demo", None, work).await.unwrap()
                }
            };
        let done = launch(Box::pin(async { completed(json!(1)) })).await;
        let tool_error = launch(Box::pin(async {
            TaskEnd::Completed {
                envelope: json!({"ok": false, "type": "runtime", "error": "it broke"}),
                result: None,
            }
        }))
        .await;
        let cancelled = launch(Box::pin(async {
            TaskEnd::Cancelled {
                envelope: json!({"ok": false, "type": "cancelled", "error": "stopped"}),
            }
        }))
        .await;
        let panicked = launch(Box::pin(async { panic!("boom") })).await;
        for (task, state) in [
            (&done, TaskState::Completed),
            (&tool_error, TaskState::Completed),
            (&cancelled, TaskState::Cancelled),
            (&panicked, TaskState::Failed),
        ] {
            let ended = tasks.wait(&task.id, None, Some(WAIT)).await.unwrap();
            assert_eq!(ended.status, state, "{ended:?}");
        }
        // A panic fails the task at once, saying so: not when its lease lapses.
        let failed = tasks.get(&panicked.id, None).await.unwrap();
        assert_eq!(
            failed.message.as_deref(),
            Some("the task's work panicked: boom")
        );
        assert_eq!(failed.envelope.as_ref().unwrap()["type"], "panic");
        let tool_error = tasks.get(&tool_error.id, None).await.unwrap();
        assert_eq!(tool_error.envelope.as_ref().unwrap()["error"], "it broke");
    });
}

#[test]
fn cancelling_is_cooperative_and_seen_by_the_work() {
    runtime().block_on(async {
        let tasks = Tasks::in_memory();
        let saw = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&saw);
        let start = tasks.prepare().unwrap();
        let cancel = start.cancel_token().clone();
        // The work ends only when it sees the cancellation.
        let task = tasks
            .launch(start, "demo_waits", None, async move {
                cancel.cancelled().await;
                seen.store(true, Ordering::SeqCst);
                TaskEnd::Cancelled {
                    envelope: json!({"ok": false, "type": "cancelled", "error": "cancelled"}),
                }
            })
            .await
            .unwrap();
        let asked = tasks.cancel(&task.id, None).await.unwrap();
        assert!(asked.cancel_requested);
        let ended = tasks.wait(&task.id, None, Some(WAIT)).await.unwrap();
        assert_eq!(ended.status, TaskState::Cancelled, "the work never stopped");
        assert!(saw.load(Ordering::SeqCst));
        // Cancelling again changes nothing.
        let again = tasks.cancel(&task.id, None).await.unwrap();
        assert_eq!(again.status, TaskState::Cancelled);
        let unknown = tasks.cancel("task_0000", None).await.unwrap_err();
        assert_eq!(unknown, TaskError::Unknown("task_0000".into()));
    });
}

/// On a paused clock, which moves only when every task waits for a timer: a wait for a task
/// that does not end lasts its timeout, and answers it working; a wait for a task that ends
/// ends with it.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn waiting_stops_at_its_timeout_or_when_the_task_ends() {
    let tasks = Tasks::in_memory();
    let start = tasks.prepare().unwrap();
    let cancel = start.cancel_token().clone();
    let slow = tasks
        .launch(start, "demo_slow", None, async move {
            cancel.cancelled().await;
            TaskEnd::Cancelled {
                envelope: json!({"ok": false, "type": "cancelled", "error": "cancelled"}),
            }
        })
        .await
        .unwrap();
    let timeout = Duration::from_secs(3600);
    let began = tokio::time::Instant::now();
    let still = tasks.wait(&slow.id, None, Some(timeout)).await.unwrap();
    assert_eq!(still.status, TaskState::Working);
    assert!(began.elapsed() >= timeout, "{:?}", began.elapsed());

    let (release, on_release) = tokio::sync::oneshot::channel::<()>();
    let start = tasks.prepare().unwrap();
    let held = tasks
        .launch(start, "demo_held", None, async move {
            let _ = on_release.await;
            completed(json!("released"))
        })
        .await
        .unwrap();
    let waiter = {
        let (tasks, id) = (tasks.clone(), held.id.clone());
        tokio::spawn(async move { tasks.wait(&id, None, Some(timeout)).await })
    };
    tokio::task::yield_now().await;
    let began = tokio::time::Instant::now();
    release.send(()).unwrap();
    let done = waiter.await.unwrap().unwrap();
    assert_eq!(done.status, TaskState::Completed);
    assert!(began.elapsed() < timeout, "{:?}", began.elapsed());
    tasks.cancel(&slow.id, None).await.unwrap();
}

#[test]
fn tasks_are_listed_newest_first() {
    runtime().block_on(async {
        let tasks = Tasks::in_memory();
        let mut ids = Vec::new();
        for i in 0..3 {
            let start = tasks.prepare().unwrap();
            let task = tasks
                .launch(start, "demo", None, async move { completed(json!(i)) })
                .await
                .unwrap();
            tasks.wait(&task.id, None, Some(WAIT)).await.unwrap();
            // The next task is created in a later millisecond, so that the order is the
            // creation order.
            buril_test_support::wait_until_async("a millisecond past the task's creation", || {
                buril::tasks::now_ms() > task.created_ms
            })
            .await;
            ids.push(task.id);
        }
        let listed: Vec<String> = tasks
            .list(None)
            .await
            .unwrap()
            .into_iter()
            .map(|record: TaskRecord| record.id)
            .collect();
        ids.reverse();
        assert_eq!(listed, ids);
    });
}

/// Starts a long count in the background, as a task of the host's, and answers with its
/// handle.
#[buril::tool(off_thread)]
async fn bgtest_count_start(
    /// How many steps.
    steps: u64,
    /// Milliseconds per step.
    step_ms: u64,
    ctx: &Context,
) -> Result<String, ToolError> {
    let tasks = ctx.state::<Tasks>()?;
    let start = tasks
        .prepare()
        .map_err(|error| ToolError::runtime(error.to_string()))?;
    let cancel = start.cancel_token().clone();
    let progress = start.progress();
    let task = tasks
        .launch(start, "bgtest_count_start", None, async move {
            for step in 0..steps {
                if cancel.is_cancelled() {
                    return TaskEnd::Cancelled {
                        envelope: json!({"ok": false, "type": "cancelled", "error": "cancelled"}),
                    };
                }
                progress(Progress::new("bgtest_count_start", step as f64));
                // Each step takes its time, as the long work this stands for does.
                tokio::time::sleep(Duration::from_millis(step_ms)).await;
            }
            completed(json!({"counted": steps}))
        })
        .await
        .map_err(|error| ToolError::runtime(error.to_string()))?;
    Ok(task.id)
}

/// Polls a task started by `bgtest_count_start`.
#[buril::tool(off_thread)]
async fn bgtest_count_query(
    /// The handle.
    handle: String,
    ctx: &Context,
) -> Result<TaskSummary, ToolError> {
    let tasks = ctx.state::<Tasks>()?;
    let record = tasks
        .get(&handle, None)
        .await
        .map_err(|error| ToolError::invalid(error.to_string()))?;
    Ok(record.summary(buril::tasks::now_ms()))
}

fn envelope(dispatcher: &Dispatcher, tool: &str, input: Value) -> Value {
    dispatcher
        .invoke(tool, input, CallOptions::default())
        .into_envelope()
}

#[test]
fn a_long_running_tool_answers_with_a_handle_that_later_calls_poll() {
    let tasks = Tasks::in_memory();
    let dispatcher = Dispatcher::builder().state(tasks.clone()).build();
    let started = envelope(
        &dispatcher,
        "bgtest_count_start",
        json!({"steps": 3, "step_ms": 5}),
    );
    assert_eq!(started["ok"], true, "{started}");
    let handle = started["data"]["result"].as_str().unwrap().to_owned();
    assert!(is_handle(&handle), "{handle}");

    let mut polled = Value::Null;
    buril_test_support::wait_until("the count's end", || {
        polled = envelope(&dispatcher, "bgtest_count_query", json!({"handle": handle}));
        polled["data"]["status"] != "working"
    });
    assert_eq!(polled["data"]["status"], "completed", "{polled}");
    assert_eq!(polled["data"]["envelope"]["data"], json!({"counted": 3}));

    let unknown = envelope(
        &dispatcher,
        "bgtest_count_query",
        json!({"handle": "task_0000"}),
    );
    assert_eq!(unknown["type"], "validation");

    // The output schema describes the task as its followers see it.
    let tool = buril::registry().get("bgtest_count_query").unwrap();
    let properties = &tool.output_schema()["properties"];
    assert!(properties.get("status").is_some(), "{properties}");
    assert!(properties.get("envelope").is_some(), "{properties}");
}

/// Reports which dispatcher runs it by calling another tool through it.
#[buril::tool(off_thread)]
fn bgtest_nested(ctx: &Context) -> Result<Value, ToolError> {
    let dispatcher = ctx
        .dispatcher()
        .ok_or_else(|| ToolError::runtime("no dispatcher"))?;
    let inner = dispatcher.invoke(
        "bgtest_count_query",
        json!({"handle": "task_0000"}),
        CallOptions::default(),
    );
    Ok(json!({"inner_ok": inner.is_ok()}))
}

#[test]
fn a_tool_reaches_the_dispatcher_that_runs_it() {
    let dispatcher = Dispatcher::builder().state(Tasks::in_memory()).build();
    let answer = envelope(&dispatcher, "bgtest_nested", json!({}));
    assert_eq!(
        answer["data"]["result"],
        json!({"inner_ok": false}),
        "{answer}"
    );
    assert!(
        Context::detached(buril::context::State::new())
            .dispatcher()
            .is_none()
    );
    let weak = dispatcher.downgrade();
    assert!(weak.upgrade().is_some());
    drop(dispatcher);
    assert!(weak.upgrade().is_none());
}
