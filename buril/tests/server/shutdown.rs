//! Stopping a Streamable HTTP server (`HttpServer::run_until`): no connection is accepted any
//! more, a call in flight is answered whole, calls still running after the drain time are
//! cancelled and answered so, and tasks still running then are recorded as failed with the
//! reason. Over stdio, the end of the input gives the tasks running the same drain time.

use crate::common;

use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

use std::sync::Arc;

use buril::ToolError;
use buril::server::{HttpLimits, Server, ServerOptions};
use buril::tasks::{MemoryStore, TaskSettings, TaskStore, Tasks};
use buril_test_support::peer::Peer;
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

/// A stdio client that starts a task and leaves (an editor reloading its scripts, say): the
/// server's output ends only once the task has ended, within the drain time, and its end is in
/// the store for the next server to find.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_running_when_the_stdio_input_ends_finishes_before_the_server_ends() {
    let (store, mut peer, served) = stdio_task_server(Duration::from_secs(30)).await;
    let id = start_stdio_task(&mut peer, "stdio task kept").await;
    peer.end_input().await;
    tokio::task::spawn_blocking(|| gates::open("stdio task kept"))
        .await
        .unwrap();
    served.await.unwrap().expect("the server ends well");
    let record = store.load(&id).await.unwrap().expect("the task is kept");
    let summary = serde_json::to_value(record.summary(u64::MAX / 2)).unwrap();
    assert_eq!(summary["status"], "completed", "{summary}");
    assert!(
        summary.to_string().contains("stdio task kept done"),
        "{summary}"
    );
}

/// Past the drain time a task still running when the stdio input ends is recorded as failed,
/// saying why, before the server ends: its followers need not wait for its lease to lapse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_running_past_the_drain_time_after_the_stdio_input_ends_is_given_up() {
    let (store, mut peer, served) = stdio_task_server(Duration::ZERO).await;
    let id = start_stdio_task(&mut peer, "stdio task given up").await;
    peer.end_input().await;
    served.await.unwrap().expect("the server ends well");
    let record = store.load(&id).await.unwrap().expect("the task is kept");
    let summary = serde_json::to_value(record.summary(u64::MAX / 2)).unwrap();
    assert_eq!(summary["status"], "failed", "{summary}");
    assert!(
        summary
            .to_string()
            .contains("the server running this task stopped before the task ended"),
        "{summary}"
    );
    tokio::task::spawn_blocking(|| gates::open("stdio task given up"))
        .await
        .unwrap();
}

/// A stdio server (stateless lifecycle) whose tasks are kept in the returned store, and what
/// ends when it returns.
async fn stdio_task_server(
    drain: Duration,
) -> (
    Arc<dyn TaskStore>,
    Peer,
    tokio::task::JoinHandle<Result<(), buril::server::ServerError>>,
) {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let tasks = Tasks::with_settings(Arc::clone(&store), TaskSettings::new());
    let options = ServerOptions::new()
        .tasks(tasks)
        .http_limits(HttpLimits::new().drain(drain));
    let server = Server::new(buril::Dispatcher::new(), options).unwrap();
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_side);
    let served = tokio::spawn(async move { server.serve_io(server_read, server_write).await });
    let (read, write) = tokio::io::split(client_side);
    (store, Peer::over(Box::pin(read), Box::pin(write)), served)
}

/// Starts `stop_task` held at the gate `tag`, once it runs: its task's handle.
async fn start_stdio_task(peer: &mut Peer, tag: &str) -> String {
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let answer = peer
        .call_stateless("stop_task", json!({"tag": tag}), capabilities)
        .await;
    let id = find_task_id(&answer).unwrap_or_else(|| panic!("{answer}"));
    let tag = tag.to_owned();
    let entered = tokio::task::spawn_blocking(move || gates::wait_for(Event::Entered, &tag));
    assert!(entered.await.unwrap(), "the task runs");
    id
}
