//! Stopping a Streamable HTTP server (`HttpServer::run_until`): no connection is accepted any
//! more, a call in flight is answered whole, calls still running after the drain time are
//! cancelled and answered so, and tasks still running then are recorded as failed with the
//! reason.

use crate::common;

use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

use std::sync::Arc;

use buril::ToolError;
use buril::server::{HttpLimits, ServerOptions};
use buril::tasks::{MemoryStore, TaskSettings, TaskStore, Tasks};
use buril_test_support::wait_until;
use common::gates::{self, Event, WAIT};
use common::http::{open, post};
use common::servers::serve_http_until;
use serde_json::{Value, json};

/// Holds until the test lets it go, then answers.
#[buril::tool(off_thread, read_only)]
fn stop_hold(
    /// The gate's tag.
    tag: String,
) -> String {
    let _ending = gates::hold(&tag);
    format!("{tag} done")
}

/// Waits until the call is cancelled, then says so.
#[buril::tool(off_thread, read_only)]
async fn stop_wait(
    ctx: &buril::Context,
    /// The tag its events are recorded under.
    tag: String,
) -> Result<String, ToolError> {
    gates::saw_cancel_async(&tag, ctx).await;
    ctx.check_cancelled()?;
    Ok("never".into())
}

/// Runs as a task until the test lets it go.
#[buril::tool(off_thread, task, read_only)]
async fn stop_task(
    /// The gate's tag.
    tag: String,
) -> String {
    let _ending = gates::hold_async(&tag).await;
    format!("{tag} done")
}

/// A server stopped when the returned sender sends (`common::servers::serve_http_until`).
fn serve(limits: HttpLimits) -> (SocketAddr, std::sync::mpsc::Sender<()>, Receiver<()>) {
    serve_http_until(ServerOptions::new().http_limits(limits))
}

/// A stateless call's body.
fn stateless(id: u32, tool: &str, tag: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool,
        "arguments": {"tag": tag},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"}
        }
    }})
    .to_string()
}

fn stateless_headers(tool: &'static str) -> [(&'static str, &'static str); 3] {
    [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ]
}

/// Waits until the listener is gone: a connection is refused.
fn wait_until_refused(addr: SocketAddr) {
    wait_until("the server to refuse connections", || {
        TcpStream::connect(addr).is_err()
    });
}

#[test]
fn a_stop_answers_the_calls_in_flight_and_accepts_no_more() {
    let (addr, stop, done) = serve(HttpLimits::new().drain(gates::LONG));
    let call = std::thread::spawn(move || {
        post(
            addr,
            None,
            &stateless_headers("stop_hold"),
            &stateless(1, "stop_hold", "in-flight"),
        )
    });
    assert!(gates::wait_for(Event::Entered, "in-flight"));
    stop.send(()).unwrap();
    wait_until_refused(addr);
    // The call still runs, and the server waits for it.
    assert_eq!(done.try_recv(), Err(TryRecvError::Empty));
    gates::open("in-flight");
    let answer = call.join().unwrap();
    assert_eq!(answer.status, 200, "{answer:?}");
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], false, "{answer:?}");
    assert_eq!(
        result["structuredContent"]["result"], "in-flight done",
        "{answer:?}"
    );
    done.recv_timeout(WAIT)
        .expect("the server returned once its calls were answered");
}

#[test]
fn calls_running_past_the_drain_time_are_cancelled_and_answered_so() {
    let (addr, stop, done) = serve(HttpLimits::new().drain(Duration::from_millis(300)));
    let session = open(addr, json!({}));
    let legacy = std::thread::spawn(move || {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "stop_wait", "arguments": {"tag": "legacy"}
        }});
        post(addr, Some(&session), &[], &body.to_string())
    });
    let fresh = std::thread::spawn(move || {
        post(
            addr,
            None,
            &stateless_headers("stop_wait"),
            &stateless(2, "stop_wait", "stateless"),
        )
    });
    assert!(gates::wait_for(Event::Entered, "legacy"));
    assert!(gates::wait_for(Event::Entered, "stateless"));
    stop.send(()).unwrap();
    for (call, tag) in [(legacy, "legacy"), (fresh, "stateless")] {
        let answer = call.join().unwrap();
        assert!(gates::wait_for(Event::SawCancel, tag), "{tag}");
        assert_eq!(answer.status, 200, "{tag}: {answer:?}");
        let result = &answer.message()["result"];
        assert_eq!(result["isError"], true, "{tag}: {answer:?}");
        let envelope: &Value = &result["_meta"]["buril/envelope"];
        assert_eq!(envelope["type"], "cancelled", "{tag}: {answer:?}");
    }
    done.recv_timeout(WAIT)
        .expect("the server returned after cancelling its calls");
}

#[test]
fn tasks_running_past_the_drain_time_are_recorded_as_failed_with_the_reason() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let tasks = Tasks::with_settings(Arc::clone(&store), TaskSettings::new());
    let options = ServerOptions::new()
        .tasks(tasks)
        .http_limits(HttpLimits::new().drain(Duration::from_millis(300)));
    let (addr, stop, done) = serve_http_until(options);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "stop_task",
        "arguments": {"tag": "task"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"}
        }
    }});
    let answer = post(
        addr,
        None,
        &stateless_headers("stop_task"),
        &body.to_string(),
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    let id = find_task_id(&answer.message()).unwrap_or_else(|| panic!("{answer:?}"));
    assert!(gates::wait_for(Event::Entered, "task"));
    stop.send(()).unwrap();
    done.recv_timeout(WAIT)
        .expect("the server returned after giving its task up");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let record = runtime
        .block_on(store.load(&id))
        .unwrap()
        .expect("the task is kept");
    let summary = serde_json::to_value(record.summary(u64::MAX / 2)).unwrap();
    assert_eq!(summary["status"], "failed", "{summary}");
    assert!(
        summary
            .to_string()
            .contains("the server running this task stopped"),
        "{summary}"
    );
    gates::open("task");
}

/// The task id anywhere in an answer (`taskId`).
fn find_task_id(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(find_task_id)),
        Value::Array(items) => items.iter().find_map(find_task_id),
        _ => None,
    }
}
