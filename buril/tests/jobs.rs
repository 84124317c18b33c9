//! The job system: handles, statuses, partial output, tool-call counts, cooperative
//! cancellation, waiting, panics, retention, and a long-running tool that uses jobs as host
//! state.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use buril::{CallOptions, Context, Dispatcher, JobContext, JobOutcome, JobStatus, Jobs, ToolError};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

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
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(rx);
    let id = jobs.spawn_blocking("steps", move |job| {
        job.set_partial(json!({"step": 1}));
        job.count_tool_call();
        job.count_tool_call();
        // Wait until the test has looked at the partial output.
        let _ = rx.lock().unwrap().recv_timeout(WAIT);
        JobOutcome::done(json!({"steps": 2}))
    });
    // Running, with its partial output.
    let deadline = Instant::now() + WAIT;
    let running = loop {
        let snapshot = jobs.get(id.as_str()).unwrap();
        if snapshot.tool_calls == 2 {
            break snapshot;
        }
        assert!(Instant::now() < deadline, "no progress: {snapshot:?}");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(running.status, JobStatus::Running);
    assert_eq!(running.partial, json!({"step": 1}));
    assert_eq!(running.output, Value::Null);
    assert_eq!(running.label, "steps");
    tx.send(()).unwrap();

    let done = jobs.wait_for(id.as_str(), WAIT).unwrap();
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!(done.output, json!({"steps": 2}));
    assert_eq!(done.error, None);
    assert_eq!(done.tool_calls, 2);
    // The duration stops with the job.
    std::thread::sleep(Duration::from_millis(20));
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
    let id = jobs.spawn("waits", move |job: JobContext| async move {
        tokio::select! {
            _ = job.cancelled() => {
                seen.store(true, Ordering::SeqCst);
                JobOutcome::cancelled()
            }
            _ = tokio::time::sleep(Duration::from_secs(30)) => JobOutcome::done(Value::Null),
        }
    });
    let started = Instant::now();
    let snapshot = jobs.cancel(id.as_str()).unwrap();
    assert!(snapshot.cancel_requested);
    let ended = jobs.wait_for(id.as_str(), WAIT).unwrap();
    assert_eq!(ended.status, JobStatus::Cancelled);
    assert!(saw.load(Ordering::SeqCst));
    assert!(started.elapsed() < Duration::from_secs(5));
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
    let id = jobs.spawn("slow", |job: JobContext| async move {
        job.cancelled().await;
        JobOutcome::cancelled()
    });
    let started = Instant::now();
    let snapshot = jobs
        .wait_for(id.as_str(), Duration::from_millis(50))
        .unwrap();
    assert_eq!(snapshot.status, JobStatus::Running);
    assert!(started.elapsed() >= Duration::from_millis(50));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(jobs.wait_for("job_0000000", WAIT).is_none());
    jobs.cancel(id.as_str());
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
