//! The job system: handles, statuses, partial output, tool-call counts, cooperative
//! cancellation, waiting, panics, retention, and a long-running tool that uses jobs as host
//! state.
//!
//! Nothing here asserts how long something took: the tests follow events (channels, the
//! job's own status) and, for the timeouts of waits, a paused Tokio clock. `WAIT` only bounds
//! the wait for an event that must come, so that a broken build fails instead of hanging.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use buril::{CallOptions, Context, Dispatcher, JobContext, JobOutcome, JobStatus, Jobs, ToolError};
use serde_json::{Value, json};

/// The longest the tests wait for an event that must come.
const WAIT: Duration = Duration::from_secs(30);

fn is_handle(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|hex| hex.len() == 7 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[test]
fn handles_are_prefixed_distinct_and_well_formed() {
    let jobs = Jobs::new();
    let team = Jobs::with_prefix("team");
    let mut seen = HashSet::new();
    for _ in 0..200 {
        let id = jobs.finished("noop", JobOutcome::done(Value::Null));
        assert!(is_handle(id.as_str(), "job"), "{id}");
        assert!(seen.insert(id.to_string()), "{id} reused");
        let id = team.finished("noop", JobOutcome::done(Value::Null));
        assert!(is_handle(id.as_str(), "team"), "{id}");
        assert!(seen.insert(id.to_string()), "{id} reused");
    }
    assert_eq!(team.prefix(), "team");
}

#[test]
fn a_job_reports_partial_output_tool_calls_and_its_output() {
    let jobs = Jobs::new();
    let (reported, on_report) = mpsc::channel::<()>();
    let (release, on_release) = mpsc::channel::<()>();
    let on_release = Mutex::new(on_release);
    let id = jobs.spawn_blocking("steps", move |job| {
        job.set_partial(json!({"step": 1}));
        job.count_tool_call();
        job.count_tool_call();
        reported.send(()).unwrap();
        // Wait until the test has looked at the partial output.
        let _ = on_release.lock().unwrap().recv_timeout(WAIT);
        JobOutcome::done(json!({"steps": 2}))
    });
    // Running, with its partial output.
    on_report
        .recv_timeout(WAIT)
        .expect("the job never reported its progress");
    let running = jobs.get(id.as_str()).unwrap();
    assert_eq!(running.tool_calls, 2);
    assert_eq!(running.status, JobStatus::Running);
    assert_eq!(running.partial, json!({"step": 1}));
    assert_eq!(running.output, Value::Null);
    assert_eq!(running.label, "steps");
    release.send(()).unwrap();

    let done = jobs.wait_for(id.as_str(), WAIT).unwrap();
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!(done.output, json!({"steps": 2}));
    assert_eq!(done.error, None);
    assert_eq!(done.tool_calls, 2);
    // The duration stops with the job: the clock moves on (the sleep only makes sure it does),
    // the job's duration does not.
    thread::sleep(Duration::from_millis(20));
    assert_eq!(jobs.get(id.as_str()).unwrap().duration, done.duration);

    let json = serde_json::to_value(&done).unwrap();
    assert_eq!(json["status"], "done");
    assert_eq!(json["id"], id.as_str());
    assert!(json["duration_ms"].is_u64(), "{json}");
}

#[test]
fn every_ending_has_its_status() {
    let jobs = Jobs::new();
    let errored = jobs.spawn("fails", |_| async { JobOutcome::errored("disk full") });
    let blocked = jobs.spawn("needs", |_| async {
        JobOutcome::blocked("no tool `rig_bake`")
    });
    let from_error = jobs.spawn("tool error", |_| async {
        JobOutcome::from(Err::<Value, _>(ToolError::runtime("it broke")))
    });
    let panicked = jobs.spawn_blocking("panics", |_| panic!("boom"));
    let expect = [
        (errored, JobStatus::Errored, "disk full"),
        (blocked, JobStatus::Blocked, "no tool `rig_bake`"),
        (from_error, JobStatus::Errored, "it broke"),
        (panicked, JobStatus::Errored, "the job panicked: boom"),
    ];
    for (id, status, error) in expect {
        let snapshot = jobs.wait_for(id.as_str(), WAIT).unwrap();
        assert_eq!(snapshot.status, status, "{snapshot:?}");
        assert_eq!(snapshot.error.as_deref(), Some(error));
    }
    let outcome = JobOutcome::from(Err::<Value, _>(ToolError::new(
        buril::ErrorKind::NotFound,
        "no tool is named `x`",
    )));
    assert_eq!(outcome.status, JobStatus::Blocked);
    let outcome = JobOutcome::from(Err::<Value, _>(ToolError::cancelled()));
    assert_eq!(outcome.status, JobStatus::Cancelled);
    let outcome = JobOutcome::from(Ok(json!(1)));
    assert_eq!(outcome, JobOutcome::done(json!(1)));
}

#[test]
fn cancelling_is_cooperative_and_seen_by_the_work() {
    let jobs = Jobs::new();
    let saw = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&saw);
    // The work ends only when it sees the cancellation.
    let id = jobs.spawn("waits", move |job: JobContext| async move {
        tokio::select! {
            _ = job.cancelled() => {
                seen.store(true, Ordering::SeqCst);
                JobOutcome::cancelled()
            }
            _ = std::future::pending::<()>() => JobOutcome::done(Value::Null),
        }
    });
    let snapshot = jobs.cancel(id.as_str()).unwrap();
    assert!(snapshot.cancel_requested);
    let ended = jobs.wait_for(id.as_str(), WAIT).unwrap();
    assert_eq!(ended.status, JobStatus::Cancelled, "the work never stopped");
    assert!(saw.load(Ordering::SeqCst));
    // Cancelling again changes nothing.
    assert_eq!(
        jobs.cancel(id.as_str()).unwrap().status,
        JobStatus::Cancelled
    );
    assert!(jobs.cancel("job_0000000").is_none());
}

#[test]
fn waiting_stops_at_the_timeout_with_the_job_still_running() {
    let jobs = Jobs::new();
    // A job that only ends when cancelled.
    let id = jobs.spawn("slow", |job: JobContext| async move {
        job.cancelled().await;
        JobOutcome::cancelled()
    });
    // The wait comes back, at its timeout, with the job still running.
    let (answer, answered) = mpsc::channel();
    let waiter = {
        let (jobs, id) = (jobs.clone(), id.clone());
        thread::spawn(move || {
            let _ = answer.send(jobs.wait_for(id.as_str(), Duration::from_millis(50)));
        })
    };
    let snapshot = answered
        .recv_timeout(WAIT)
        .expect("wait_for did not stop at its timeout")
        .unwrap();
    waiter.join().unwrap();
    assert_eq!(snapshot.status, JobStatus::Running);
    assert!(jobs.wait_for("job_0000000", WAIT).is_none());
    jobs.cancel(id.as_str());
    assert_eq!(
        jobs.wait_for(id.as_str(), WAIT).unwrap().status,
        JobStatus::Cancelled
    );
}

#[test]
fn waiting_ends_when_the_job_ends() {
    let jobs = Jobs::new();
    let (release, on_release) = mpsc::channel::<()>();
    let on_release = Mutex::new(on_release);
    let id = jobs.spawn_blocking("held", move |_| {
        let _ = on_release.lock().unwrap().recv_timeout(WAIT);
        JobOutcome::done(json!("released"))
    });
    let (waiting, on_waiting) = mpsc::channel();
    let (answer, answered) = mpsc::channel();
    let waiter = {
        let (jobs, id) = (jobs.clone(), id.clone());
        thread::spawn(move || {
            waiting.send(()).unwrap();
            let _ = answer.send(jobs.wait_for(id.as_str(), WAIT));
        })
    };
    on_waiting.recv_timeout(WAIT).unwrap();
    // The waiter is waiting (or about to); the job ends only now, and the wait ends with it,
    // as done.
    release.send(()).unwrap();
    let snapshot = answered
        .recv_timeout(WAIT)
        .expect("wait_for did not end with the job")
        .unwrap();
    waiter.join().unwrap();
    assert_eq!(snapshot.status, JobStatus::Done, "{snapshot:?}");
    assert_eq!(snapshot.output, json!("released"));
}

/// On a paused clock, which moves only when every task waits for a timer: a wait for a job
/// that does not end lasts exactly its timeout, and a wait for a job that ends lasts no time.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn async_waiting_keeps_its_timeout_on_a_paused_clock() {
    let jobs = Jobs::new().with_runtime(tokio::runtime::Handle::current());
    let slow = jobs.spawn("slow", |job: JobContext| async move {
        job.cancelled().await;
        JobOutcome::cancelled()
    });
    let timeout = Duration::from_secs(3600);
    let start = tokio::time::Instant::now();
    let still = jobs.wait(slow.as_str(), timeout).await.unwrap();
    assert_eq!(still.status, JobStatus::Running);
    assert!(start.elapsed() >= timeout, "{:?}", start.elapsed());

    let (release, on_release) = tokio::sync::oneshot::channel::<()>();
    let held = jobs.spawn("held", |_| async move {
        let _ = on_release.await;
        JobOutcome::done(json!("released"))
    });
    let waiter = {
        let (jobs, held) = (jobs.clone(), held.clone());
        tokio::spawn(async move { jobs.wait(held.as_str(), timeout).await })
    };
    // Let the waiter start waiting, then end the job.
    tokio::task::yield_now().await;
    let start = tokio::time::Instant::now();
    release.send(()).unwrap();
    let done = waiter.await.unwrap().unwrap();
    assert_eq!(done.status, JobStatus::Done);
    assert!(start.elapsed() < timeout, "{:?}", start.elapsed());
    jobs.cancel(slow.as_str());
}

#[test]
fn async_waiting_works_from_another_runtime() {
    let jobs = Jobs::new();
    let id = jobs.spawn("quick", |_| async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        JobOutcome::done(json!("ok"))
    });
    let slow = jobs.spawn("slow", |job: JobContext| async move {
        job.cancelled().await;
        JobOutcome::cancelled()
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (done, still) = runtime.block_on(async {
        let done = jobs.wait(id.as_str(), WAIT).await.unwrap();
        let still = jobs
            .wait(slow.as_str(), Duration::from_millis(30))
            .await
            .unwrap();
        (done, still)
    });
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!(done.output, json!("ok"));
    assert_eq!(still.status, JobStatus::Running);
    jobs.cancel(slow.as_str());
    let cancelled = jobs.wait_for(slow.as_str(), WAIT).unwrap();
    assert_eq!(cancelled.status, JobStatus::Cancelled);
}

#[test]
fn finished_jobs_are_listed_removed_and_pruned() {
    let jobs = Jobs::new().keep_finished(3);
    let running = jobs.spawn("runs", |job: JobContext| async move {
        job.cancelled().await;
        JobOutcome::cancelled()
    });
    let ids: Vec<_> = (0..5)
        .map(|i| jobs.finished(format!("n{i}"), JobOutcome::done(json!(i))))
        .collect();
    let kept: Vec<String> = jobs.list().into_iter().map(|s| s.label).collect();
    assert_eq!(kept, ["runs", "n2", "n3", "n4"]);
    assert!(jobs.get(ids[0].as_str()).is_none());
    assert!(jobs.remove(running.as_str()).is_none(), "still running");
    assert_eq!(jobs.remove(ids[4].as_str()).unwrap().output, json!(4));
    assert!(jobs.get(ids[4].as_str()).is_none());
    jobs.cancel(running.as_str());
}

/// Starts a long count in the background and answers with the handle.
#[buril::tool(off_thread)]
fn jobtest_count_start(
    /// How many steps.
    steps: u64,
    /// Milliseconds per step.
    step_ms: u64,
    ctx: &Context,
) -> Result<String, ToolError> {
    let jobs = ctx.state::<Jobs>()?;
    let id = jobs.spawn("count", move |job: JobContext| async move {
        for step in 0..steps {
            if job.is_cancelled() {
                return JobOutcome::cancelled().with_output(json!({"counted": step}));
            }
            job.set_partial(json!({"counted": step}));
            tokio::time::sleep(Duration::from_millis(step_ms)).await;
        }
        JobOutcome::done(json!({"counted": steps}))
    });
    Ok(id.to_string())
}

/// Polls a job started by `jobtest_count_start`.
#[buril::tool(off_thread)]
fn jobtest_count_query(
    /// The handle.
    handle: String,
    ctx: &Context,
) -> Result<buril::JobSnapshot, ToolError> {
    ctx.state::<Jobs>()?
        .get(&handle)
        .ok_or_else(|| ToolError::invalid(format!("no job has the handle `{handle}`")))
}

#[test]
fn a_long_running_tool_answers_with_a_handle_that_later_calls_poll() {
    let jobs = Jobs::new();
    let dispatcher = Dispatcher::builder().state(jobs.clone()).build();
    let started = dispatcher.call("jobtest_count_start", json!({"steps": 3, "step_ms": 5}));
    assert_eq!(started["ok"], true, "{started}");
    let handle = started["data"]["result"].as_str().unwrap().to_owned();
    assert!(is_handle(&handle, "job"), "{handle}");

    jobs.wait_for(&handle, WAIT).unwrap();
    let polled = dispatcher.call("jobtest_count_query", json!({"handle": handle}));
    assert_eq!(polled["data"]["status"], "done", "{polled}");
    assert_eq!(polled["data"]["output"], json!({"counted": 3}));

    let unknown = dispatcher.call("jobtest_count_query", json!({"handle": "job_0000000"}));
    assert_eq!(unknown["type"], "validation");

    // The output schema describes the snapshot, duration in milliseconds.
    let tool = buril::registry().get("jobtest_count_query").unwrap();
    let properties = &tool.output_schema()["properties"];
    assert!(properties.get("duration_ms").is_some(), "{properties}");
    assert!(properties.get("status").is_some(), "{properties}");
}

/// Reports which dispatcher runs it by calling another tool through it.
#[buril::tool(off_thread)]
fn jobtest_nested(ctx: &Context) -> Result<Value, ToolError> {
    let dispatcher = ctx
        .dispatcher()
        .ok_or_else(|| ToolError::runtime("no dispatcher"))?;
    let inner = dispatcher.invoke_with(
        "jobtest_count_query",
        json!({"handle": "job_0000000"}),
        CallOptions::default(),
    );
    Ok(json!({"inner_ok": inner.is_ok()}))
}

#[test]
fn a_tool_reaches_the_dispatcher_that_runs_it() {
    let dispatcher = Dispatcher::builder().state(Jobs::new()).build();
    let envelope = dispatcher.call("jobtest_nested", json!({}));
    assert_eq!(
        envelope["data"]["result"],
        json!({"inner_ok": false}),
        "{envelope}"
    );
    assert!(
        Context::detached(buril::State::new())
            .dispatcher()
            .is_none()
    );
    let weak = dispatcher.downgrade();
    assert!(weak.upgrade().is_some());
    drop(dispatcher);
    assert!(weak.upgrade().is_none());
}
