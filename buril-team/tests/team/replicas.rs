//! A run is a task: it is followed from any process that shares the team's task store, as any
//! task is. Here two teams stand for two processes (each its own `Tasks`, runtime and runs),
//! over one file store: the second reads, waits for and cancels the first's runs by handle, the
//! `task_*` tools read them, and a run whose process is gone fails once its lease lapses,
//! saying why.

use std::time::Duration;

use buril::tasks::{FileStore, TaskSettings, Tasks};
use buril::{CallOptions, Context, Dispatcher, ToolError};
use buril_team::{HandoffRequest, RunState, ScriptedModel, Specialist, Team, TeamError};
use buril_test_support::gates;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::common::WAIT;

buril::task_tools!();

/// Waits `ms` milliseconds (or, when a gate is named, until the test opens it), or until its
/// call is cancelled.
#[buril::tool(off_thread)]
async fn replica_wait(
    /// How long to wait.
    ms: u64,
    /// The tag of the gate to hold at instead.
    gate: Option<String>,
    ctx: &Context,
) -> Result<u64, ToolError> {
    // The sleep is the call's work, not a wait for something: a long one ends only by a
    // cancellation or with its process.
    let waited = async {
        match &gate {
            Some(tag) => drop(gates::hold_async(tag).await),
            None => tokio::time::sleep(Duration::from_millis(ms)).await,
        }
    };
    tokio::select! {
        () = waited => Ok(ms),
        () = ctx.cancel_token().cancelled() => Err(ToolError::cancelled()),
    }
}

/// Tasks over the file store in `dir`, as a process of its own opens them.
fn tasks_in(dir: &TempDir, settings: TaskSettings) -> Tasks {
    let store = FileStore::open(dir.path()).expect("a file store");
    Tasks::with_settings(std::sync::Arc::new(store), settings)
}

/// A team over `tasks` whose specialist waits `ms` once, then reports.
fn team(tasks: Tasks, ms: u64) -> (Team, Dispatcher) {
    team_on(tasks, json!({"ms": ms}), None)
}

/// [`team`], its specialist's wait the call of `replica_wait` with `wait`, its runs on the
/// runtime behind `runtime` when given.
fn team_on(
    tasks: Tasks,
    wait: Value,
    runtime: Option<tokio::runtime::Handle>,
) -> (Team, Dispatcher) {
    let model = ScriptedModel::new()
        .call("replica_wait", wait)
        .report("Waited.");
    let mut builder = Team::builder()
        .without_linked_specialists()
        .specialist(Specialist::new("waiter", "Waits.").tool_view(["replica_*"]))
        .model("default", model)
        .tasks(tasks.clone());
    if let Some(runtime) = runtime {
        builder = builder.runtime(runtime);
    }
    let team = builder.build().unwrap();
    let dispatcher = Dispatcher::builder().state(team.clone()).build();
    team.attach(&dispatcher);
    (team, dispatcher)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn another_process_follows_a_run_to_its_end_by_its_handle() {
    let dir = TempDir::new().unwrap();
    let settings = TaskSettings::new().poll_interval(Duration::from_millis(10));
    // The run's call holds at a gate until the test has seen it running.
    let (first, _dispatcher) = team_on(
        tasks_in(&dir, settings.clone()),
        json!({"ms": 0, "gate": "followed"}),
        None,
    );
    let (second, _other) = team(tasks_in(&dir, settings), 0);
    runtime().block_on(async {
        let handle = first
            .handoff(HandoffRequest::new("waiter", "Wait a little."))
            .await
            .unwrap();
        // The second team runs nothing of its own, and knows the run through its task: the
        // specialist and model it started with, running.
        assert!(second.trace(&handle).is_none());
        let seen = second.query(&handle).await.unwrap();
        assert_eq!(seen.handle, handle);
        assert_eq!(seen.specialist, "waiter");
        assert_eq!(seen.model, "default");
        assert_eq!(seen.status, RunState::Running, "{seen:?}");
        gates::open("followed");
        // It waits for the end, and sees the run as the first team does: its report and calls.
        let ended = second.wait_for(&handle, WAIT).await.unwrap();
        let own = first.query(&handle).await.unwrap();
        assert_eq!(ended.status, RunState::Done, "{ended:?}");
        assert_eq!(ended.report.as_deref(), Some("Waited."));
        assert_eq!(ended, own);
        assert_eq!(ended.calls.len(), 1);
        assert_eq!(ended.calls[0].tool, "replica_wait");
        // Only the process that ran a run holds its trace.
        assert!(first.trace(&handle).is_some());
        let unknown = second
            .query("task_00000000000000000000000000000000")
            .await
            .unwrap_err();
        assert!(matches!(unknown, TeamError::UnknownHandle(_)), "{unknown}");
    });
}

#[test]
fn another_process_cancels_a_run_and_the_run_stops() {
    let dir = TempDir::new().unwrap();
    // The runner of a file store's task reads cancellations at its check interval.
    let settings = TaskSettings::new()
        .poll_interval(Duration::from_millis(10))
        .check_interval(Duration::from_millis(20));
    let (first, _dispatcher) = team(tasks_in(&dir, settings.clone()), 60_000);
    let (second, _other) = team(tasks_in(&dir, settings), 0);
    runtime().block_on(async {
        let handle = first
            .handoff(HandoffRequest::new("waiter", "Wait a long time."))
            .await
            .unwrap();
        // Cancelled from the other process while its call waits.
        second.cancel(&handle).await.unwrap();
        let ended = second.wait_for(&handle, WAIT).await.unwrap();
        assert_eq!(ended.status, RunState::Cancelled, "{ended:?}");
        let own = first.wait_for(&handle, WAIT).await.unwrap();
        assert_eq!(own.status, RunState::Cancelled, "{own:?}");
        assert!(
            own.report
                .unwrap()
                .starts_with("cancelled after 1 tool calls")
        );
    });
}

#[test]
fn the_task_tools_read_a_run_as_a_task() {
    let dir = TempDir::new().unwrap();
    let tasks = tasks_in(
        &dir,
        TaskSettings::new().poll_interval(Duration::from_millis(10)),
    );
    let (team, dispatcher) = team(tasks.clone(), 0);
    let call = |tool: &str, input: serde_json::Value| {
        dispatcher
            .invoke(
                tool,
                input,
                CallOptions::default().follow_tasks(tasks.clone(), None),
            )
            .into_envelope()
    };
    let started = call(
        "agent_team_handoff",
        json!({"specialist": "waiter", "brief": "Wait."}),
    );
    let handle = started["data"]["handle"].as_str().unwrap().to_owned();
    team.wait_for_blocking(&handle, WAIT).unwrap();
    let task = call(
        "task_wait",
        json!({"handle": handle, "timeout_seconds": 20}),
    );
    assert_eq!(task["ok"], true, "{task}");
    assert_eq!(task["data"]["tool"], "agent_team_handoff");
    assert_eq!(task["data"]["status"], "completed", "{task}");
    assert_eq!(task["data"]["detail"]["specialist"], "waiter");
    let run = &task["data"]["envelope"]["data"];
    assert_eq!(run["status"], "done", "{task}");
    assert_eq!(run["report"], "Waited.");
}

#[test]
fn a_run_whose_process_is_gone_fails_when_its_lease_lapses() {
    let dir = TempDir::new().unwrap();
    let settings = TaskSettings::new()
        .poll_interval(Duration::from_millis(10))
        .lease(Duration::from_millis(300))
        .skew(Duration::from_millis(100));
    let (second, _other) = team(tasks_in(&dir, settings.clone()), 0);
    let handle = {
        // The first process's runtime runs its runs and renews their leases.
        let process = runtime();
        let (first, _dispatcher) = team_on(
            tasks_in(&dir, settings),
            json!({"ms": 60_000}),
            Some(process.handle().clone()),
        );
        let handle = process
            .block_on(first.handoff(HandoffRequest::new("waiter", "Wait for ever.")))
            .unwrap();
        // The process goes, and everything it ran with it, mid-call.
        process.shutdown_background();
        handle
    };
    runtime().block_on(async {
        let failed = buril_test_support::poll::until(
            "the run to end once its lease lapsed",
            || async { second.query(&handle).await.unwrap() },
            |seen| seen.status.is_finished(),
        )
        .await;
        assert_eq!(failed.status, RunState::Errored, "{failed:?}");
        assert!(
            failed
                .error
                .as_deref()
                .unwrap()
                .contains("stopped renewing its lease"),
            "{failed:?}"
        );
    });
}
