//! What a tool gets from its context: host state, progress reporting, cancellation, its name and
//! deadline; and calling a tool function directly with a detached context.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use buril::context::{LogLevel, LogRecord, LogSink, Progress, ProgressSink, State};
use buril::{CallOptions, Context, Dispatcher, ToolError};
use serde_json::json;

/// The host's project.
struct Project {
    root: String,
}

/// A log the host reads after the calls.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

/// Another piece of state, of a different type.
struct Limit(u32);

/// Resolves a path in the host's project.
#[buril::tool(off_thread, aliases = ["ctx_locate"])]
fn ctx_resolve(
    /// A project-relative path.
    path: String,
    ctx: &buril::Context,
) -> Result<String, ToolError> {
    let project = ctx.state::<Project>()?;
    if let Some(log) = ctx.try_state::<Log>() {
        log.0
            .lock()
            .unwrap()
            .push(format!("{} {path}", ctx.tool_name()));
    }
    Ok(format!("{}/{path}", project.root))
}

/// Resolves a path asynchronously, on the main thread.
#[buril::tool]
async fn ctx_resolve_async(
    /// A project-relative path.
    path: String,
    ctx: &buril::Context,
) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    let project = ctx.state::<Project>()?;
    let limit = ctx.state::<Limit>().map_or(0, |l| l.0);
    Ok(format!("{}/{path} (limit {limit})", project.root))
}

/// Does `steps` steps, reporting progress after each.
#[buril::tool]
fn ctx_work(
    /// How many steps.
    steps: u32,
    ctx: &buril::Context,
) -> Result<u32, ToolError> {
    for step in 1..=steps {
        ctx.check_cancelled()?;
        ctx.report_progress(
            f64::from(step),
            Some(f64::from(steps)),
            Some(&format!("step {step}")),
        );
    }
    Ok(steps)
}

/// Does `steps` steps asynchronously, reporting progress without a total.
#[buril::tool(off_thread)]
async fn ctx_work_async(
    /// How many steps.
    steps: u32,
    ctx: &buril::Context,
) -> u32 {
    for step in 1..=steps {
        tokio::task::yield_now().await;
        ctx.report_progress(f64::from(step), None, None);
    }
    steps
}

/// Where `ctx_inspect` leaves the deadline its context gave, for the host to read.
#[derive(Default)]
struct SeenDeadline(Mutex<Option<Instant>>);

/// Reports what the context says about the call, and leaves its deadline with the host.
#[buril::tool(off_thread)]
fn ctx_inspect(ctx: &buril::Context) -> serde_json::Value {
    if let Some(seen) = ctx.try_state::<Arc<SeenDeadline>>() {
        *seen.0.lock().unwrap() = ctx.deadline();
    }
    json!({
        "tool": ctx.tool_name(),
        "cancelled": ctx.is_cancelled(),
        "deadline": ctx.deadline().is_some(),
    })
}

fn recorder() -> (ProgressSink, Arc<Mutex<Vec<Progress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink: ProgressSink = {
        let seen = Arc::clone(&seen);
        Arc::new(move |progress: Progress| seen.lock().unwrap().push(progress))
    };
    (sink, seen)
}

#[test]
fn tools_read_typed_host_state() {
    let log = Log::default();
    let d = Dispatcher::builder()
        .state(Project {
            root: "/projects/demo".into(),
        })
        .state(log.clone())
        .state(Limit(3))
        .build();
    assert_eq!(
        d.invoke(
            "ctx_resolve",
            json!({"path": "Assets/Main.scene"}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": "/projects/demo/Assets/Main.scene"}})
    );
    assert_eq!(
        d.invoke(
            "ctx_resolve_async",
            json!({"path": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": "/projects/demo/a (limit 3)"}})
    );
    // The tool's name in the context is its own, even when called by an alias.
    let envelope = d
        .invoke(
            "ctx_locate",
            json!({"path": "b"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["ok"], true);
    assert_eq!(
        *log.0.lock().unwrap(),
        ["ctx_resolve Assets/Main.scene", "ctx_resolve b"]
    );
}

#[test]
fn a_later_value_of_the_same_type_replaces_the_earlier() {
    let d = Dispatcher::builder()
        .state(Project {
            root: "/old".into(),
        })
        .state(Project {
            root: "/new".into(),
        })
        .build();
    assert_eq!(
        d.invoke(
            "ctx_resolve",
            json!({"path": "x"}),
            buril::CallOptions::default()
        )
        .into_envelope()["data"]["result"],
        "/new/x"
    );
}

#[test]
fn missing_state_is_a_runtime_error_naming_the_type() {
    let d = Dispatcher::new();
    let envelope = d
        .invoke(
            "ctx_resolve",
            json!({"path": "x"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "runtime",
            "error": format!(
                "the host did not provide state of type `{}` that the tool `ctx_resolve` needs",
                std::any::type_name::<Project>()
            )
        })
    );
    assert!(
        envelope["error"].as_str().unwrap().contains("Project"),
        "{envelope}"
    );
    let envelope = d
        .invoke(
            "ctx_resolve_async",
            json!({"path": "x"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "runtime");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("the tool `ctx_resolve_async` needs")
    );
}

#[test]
fn progress_reaches_the_callers_sink() {
    let d = Dispatcher::new();
    let (sink, seen) = recorder();
    let options = CallOptions::new().progress(sink);
    let outcome = d.invoke("ctx_work", json!({"steps": 3}), options);
    assert_eq!(outcome.data(), Some(&json!({"result": 3})));
    let expected: Vec<(&str, f64, Option<f64>, Option<String>)> = (1..=3)
        .map(|step| {
            let message = Some(format!("step {step}"));
            ("ctx_work", f64::from(step), Some(3.0), message)
        })
        .collect();
    let reports: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p: &Progress| (p.tool, p.progress, p.total, p.message.clone()))
        .collect();
    assert_eq!(reports, expected);

    let (sink, seen) = recorder();
    let options = CallOptions::new()
        .progress(sink)
        .timeout(Duration::from_secs(5));
    let outcome = d.invoke("ctx_work_async", json!({"steps": 2}), options);
    assert!(outcome.is_ok());
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].tool, "ctx_work_async");
    assert_eq!((seen[1].progress, seen[1].total), (2.0, None));
    assert_eq!(seen[1].message, None);

    // Without a sink, reporting does nothing.
    assert_eq!(
        d.invoke(
            "ctx_work",
            json!({"steps": 2}),
            buril::CallOptions::default()
        )
        .into_envelope()["ok"],
        true
    );
}

/// Logs a warning and some JSON at debug.
#[buril::tool(off_thread)]
fn ctx_note(ctx: &buril::Context) -> u32 {
    ctx.log(LogLevel::Warning, "2 files were too large to read");
    ctx.log_data(LogLevel::Debug, json!({"skipped": ["a.bin", "b.bin"]}));
    2
}

#[test]
fn log_messages_reach_the_callers_sink_in_order() {
    let d = Dispatcher::new();
    let seen = Arc::new(Mutex::new(Vec::<LogRecord>::new()));
    let kept = Arc::clone(&seen);
    let sink: LogSink = Arc::new(move |record| kept.lock().unwrap().push(record));
    let outcome = d.invoke("ctx_note", json!({}), CallOptions::new().log(sink));
    assert_eq!(outcome.data(), Some(&json!({"result": 2})));
    let seen: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|r| (r.tool, r.level, r.data.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (
                "ctx_note",
                LogLevel::Warning,
                json!("2 files were too large to read")
            ),
            (
                "ctx_note",
                LogLevel::Debug,
                json!({"skipped": ["a.bin", "b.bin"]})
            ),
        ]
    );
    // Without a sink, the messages go to `tracing` (no subscriber here): the call is the same.
    assert_eq!(
        d.invoke("ctx_note", json!({}), buril::CallOptions::default())
            .into_envelope()["data"]["result"],
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_reaches_the_sink_of_an_async_call() {
    let d = Dispatcher::new();
    let (sink, seen) = recorder();
    let options = CallOptions::new().progress(sink);
    let outcome = d
        .invoke_async("ctx_work", json!({"steps": 4}), options)
        .await;
    assert!(outcome.is_ok());
    let progress: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn the_context_knows_the_tool_and_its_deadline() {
    let seen = Arc::new(SeenDeadline::default());
    let d = Dispatcher::builder().state(Arc::clone(&seen)).build();
    let envelope = d
        .invoke("ctx_inspect", json!({}), buril::CallOptions::default())
        .into_envelope();
    // A `Value` output may be anything, so it is always wrapped.
    assert_eq!(
        envelope["data"]["result"],
        json!({"tool": "ctx_inspect", "cancelled": false, "deadline": false})
    );
    assert_eq!(*seen.0.lock().unwrap(), None);
    // The deadline is the timeout counted from when the call was made: between the timeout
    // after the moment before the call and the timeout after the moment it answered.
    let timeout = Duration::from_secs(30);
    let before = Instant::now();
    let outcome = d.invoke(
        "ctx_inspect",
        json!({}),
        CallOptions::new().timeout(timeout),
    );
    let after = Instant::now();
    assert_eq!(
        outcome.data().unwrap()["result"],
        json!({"tool": "ctx_inspect", "cancelled": false, "deadline": true})
    );
    let deadline = seen.0.lock().unwrap().expect("the tool saw no deadline");
    assert!(
        before + timeout <= deadline && deadline <= after + timeout,
        "the deadline is {:?} after the moment before the call, which answered {:?} after it, \
         for a timeout of {timeout:?}",
        deadline.saturating_duration_since(before),
        after - before,
    );
}

#[test]
fn a_detached_context_lets_a_test_call_the_function_directly() {
    let ctx = Context::detached(State::new().with(Project {
        root: "/tmp/p".into(),
    }));
    assert_eq!(ctx_resolve("a.txt".into(), &ctx).unwrap(), "/tmp/p/a.txt");
    assert_eq!(ctx.tool_name(), "");
    assert!(!ctx.is_cancelled());
    assert!(ctx.deadline().is_none());
    assert!(ctx.try_state::<Limit>().is_none());

    let ctx = Context::detached(State::new());
    let error = ctx_resolve("a.txt".into(), &ctx).unwrap_err();
    assert_eq!(error.kind(), buril::ErrorKind::Runtime);
    assert!(error.message().contains("Project"), "{error}");

    // Async tools too, on any executor.
    let ctx = Context::detached(
        State::new()
            .with(Project { root: "/r".into() })
            .with(Limit(9)),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let text = runtime
        .block_on(ctx_resolve_async("b".into(), &ctx))
        .unwrap();
    assert_eq!(text, "/r/b (limit 9)");

    // Cancelling the detached context's token stops a cooperative tool.
    let ctx = Context::detached(State::new());
    assert_eq!(ctx_work(2, &ctx).unwrap(), 2);
    ctx.cancel_token().cancel();
    assert!(ctx.is_cancelled());
    assert_eq!(
        ctx_work(2, &ctx).unwrap_err().kind(),
        buril::ErrorKind::Cancelled
    );
}

#[test]
fn state_holds_one_value_per_type() {
    let mut state = State::new().with(Limit(1)).with(7_u8);
    assert_eq!(state.get::<Limit>().map(|l| l.0), Some(1));
    assert_eq!(state.get::<u8>(), Some(&7));
    assert!(state.get::<u16>().is_none());
    state.insert(Limit(2));
    assert_eq!(state.get::<Limit>().map(|l| l.0), Some(2));
}
