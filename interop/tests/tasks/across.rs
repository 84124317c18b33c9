//! Tasks across processes and servers, with real clients and a real Redis: the Python and
//! TypeScript SDK clients following the fixture server's task tools, a detached call followed
//! from later processes (the file store), and two `serve --http` replicas sharing a
//! `redis-server` that the test starts on a loopback port (and stops). `bash scripts/test.sh`
//! installs the SDKs and Redis; without them these tests fail, saying so.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use buril_test_support::bin::workspace;
use serde_json::{Value, json};

use crate::common::poll;
use crate::common::redis::Redis;
use crate::common::stateless::{TASKS, has_ended, rpc_as};
use crate::common::tools_server::HttpServer;
use crate::conformance_server as binary;

/// A `serve --http` of the fixtures with `more` arguments, in a fresh folder.
fn serve(folder: &Path, more: &[&str]) -> HttpServer {
    HttpServer::start_with(&binary(), folder, more)
}

/// One stateless 2026-07-28 request declaring the tasks extension (`stateless::rpc_as`).
fn rpc(url: &str, method: &str, params: Value) -> Value {
    rpc_as(url, method, params, true)
}

fn result(answer: &Value) -> &Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    &answer["result"]
}

fn start(url: &str, seconds: f64, label: &str) -> String {
    let answer = rpc(
        url,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds, "label": label}}),
    );
    let created = result(&answer);
    assert_eq!(created["resultType"], "task", "{answer}");
    created["taskId"].as_str().expect("a handle").to_owned()
}

fn get(url: &str, id: &str) -> Value {
    rpc(url, "tasks/get", json!({"taskId": id}))
}

/// Polls through `url` until the task ends (or `within` passes: a failure).
fn until_done(url: &str, id: &str, within: Duration) -> Value {
    poll(
        &format!("the task {id} to end"),
        Duration::from_millis(50),
        within,
        || {
            let task = result(&get(url, id)).clone();
            if has_ended(&task) {
                Ok(task)
            } else {
                Err(task)
            }
        },
    )
}

fn text_of(task: &Value) -> &str {
    task["result"]["content"][0]["text"].as_str().unwrap_or("")
}

// --- The SDK clients --------------------------------------------------------------------------

fn python() -> PathBuf {
    let python = workspace().join("interop/.venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run `bash scripts/test.sh` (it installs the Python MCP SDK into \
         interop/.venv)",
        python.display()
    );
    python
}

fn report(output: Output, who: &str) -> Value {
    assert!(
        output.status.success(),
        "the {who} client failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(text.lines().last().unwrap_or(""))
        .unwrap_or_else(|error| panic!("the {who} client's report is not JSON ({error}): {text}"))
}

#[test]
fn both_sdk_clients_run_poll_cancel_and_outlive_tasks() {
    let folder = tempfile::tempdir().unwrap();
    let server = serve(folder.path(), &["--task-ttl", "1"]);
    let spec = json!({"url": server.url, "expired_after": 1.5}).to_string();
    let python = report(
        Command::new(python())
            .arg(workspace().join("interop/mcp/tasks.py"))
            .arg(&spec)
            .output()
            .expect("python runs"),
        "Python",
    );
    assert!(
        workspace()
            .join("interop/node_modules/@modelcontextprotocol/sdk")
            .is_dir(),
        "the TypeScript SDK is missing: run `bash scripts/test.sh` (npm ci --prefix interop)"
    );
    let node = report(
        Command::new("node")
            .arg(workspace().join("interop/mcp/tasks.mjs"))
            .arg(&spec)
            .output()
            .expect("node runs"),
        "TypeScript",
    );
    for (who, report) in [("Python", &python), ("TypeScript", &node)] {
        assert_eq!(report["server_declares_tasks"], true, "{who}: {report}");
        assert_eq!(
            report["cancelled"]["ack"],
            json!({"resultType": "complete"}),
            "{who}"
        );
        assert_eq!(
            report["cancelled"]["status"], "cancelled",
            "{who}: {report}"
        );
        for case in ["expired", "forged"] {
            assert_eq!(
                report[case]["error"]["code"], -32602,
                "{who} {case}: {report}"
            );
        }
        let expired = report["expired"]["error"]["message"].as_str().unwrap();
        assert!(expired.contains("has expired"), "{who}: {expired}");
        let forged = report["forged"]["error"]["message"].as_str().unwrap();
        assert!(forged.contains("no task has the handle"), "{who}: {forged}");
    }
    assert_eq!(python["protocol_version"], "2026-07-28");
    assert_eq!(
        python["completed"]["text"], "computed python-done in 0.3 s",
        "the SDK's claim resolved the task to its result: {python}"
    );
    let polled = &python["polled"];
    assert_eq!(polled["created"]["resultType"], "task");
    // The TTL of a running task is counted from its creation to its TTL after now (MCP lets
    // it move while the task runs): the configured second, plus the milliseconds between the
    // task's creation and the answer that reports it.
    let ttl = polled["created"]["ttlMs"].as_u64().unwrap_or_default();
    assert!(
        (1000..1500).contains(&ttl),
        "the created task reports the 1 s TTL from its creation: {python}"
    );
    assert_eq!(polled["seen"], json!(["working", "completed"]), "{python}");
    assert_eq!(
        polled["result"]["content"][0]["text"],
        "computed python-polled in 0.5 s"
    );
    assert_eq!(node["completed"]["created"]["resultType"], "task");
    assert_eq!(node["completed"]["text"], "computed node-done in 0.3 s");
    // Each cancelled tool saw its cancellation through its context.
    for label in ["python-cancelled", "node-cancelled"] {
        server.wait_for_log(
            &["slow_compute:", label, "saw its cancellation"],
            Duration::from_secs(10),
        );
    }
}

// --- The file store: a detached call, followed from other processes ------------------------

fn cli(folder: &Path, args: &[&str]) -> (Value, i32) {
    let output = Command::new(binary())
        .args(args)
        .arg("--tasks-dir")
        .arg(folder.join("tasks"))
        .current_dir(folder)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let value = serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!(
            "{args:?}: not JSON ({error}): {text}{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (value, output.status.code().unwrap_or(-1))
}

/// Starts a detached call; the handle it prints, alone on its line.
fn detach(folder: &Path, args: &[&str]) -> String {
    let output = Command::new(binary())
        .args(args)
        .arg("--detach")
        .arg("--tasks-dir")
        .arg(folder.join("tasks"))
        .current_dir(folder)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {text}");
    let handle = text.trim_end_matches('\n');
    assert!(
        handle.starts_with("task_") && !handle.contains(char::is_whitespace),
        "{args:?}: the handle alone: {text:?}"
    );
    handle.to_owned()
}

#[test]
fn a_detached_call_is_followed_from_later_processes() {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    // To its end: started by one process, waited for by another.
    let done = detach(
        dir,
        &[
            "call",
            "slow_compute",
            r#"{"seconds": 0.5, "label": "detached"}"#,
        ],
    );
    let (task, _) = cli(dir, &["tasks", "get", &done]);
    assert!(
        ["working", "completed"].contains(&task["status"].as_str().unwrap()),
        "{task}"
    );
    assert_eq!(task["tool"], "slow_compute");
    let (listed, _) = cli(dir, &["tasks", "list", "--json"]);
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|task| task["handle"] == done.as_str())
    );
    let (envelope, code) = cli(dir, &["tasks", "wait", &done]);
    assert_eq!(
        (code, &envelope["data"]["result"]),
        (0, &json!("computed detached in 0.5 s"))
    );

    // Cancelled from a third process: the task ends `cancelled`.
    let long = detach(dir, &["call", "slow_compute", r#"{"seconds": 60}"#]);
    let (_, code) = cli(dir, &["tasks", "cancel", &long]);
    assert_eq!(code, 0);
    let (envelope, code) = cli(dir, &["tasks", "wait", &long, "--timeout", "20"]);
    assert_eq!(
        (code, &envelope["type"]),
        (1, &json!("cancelled")),
        "{envelope}"
    );
    let (task, _) = cli(dir, &["tasks", "get", &long]);
    assert_eq!(task["status"], "cancelled");

    // A question, answered from another process.
    let asking = detach(dir, &["call", "confirm_delete", r#"{"filename": "a.txt"}"#]);
    let key = poll(
        "the detached call's question",
        Duration::from_millis(50),
        Duration::from_secs(10),
        || {
            let (task, _) = cli(dir, &["tasks", "get", &asking]);
            match task["inputRequests"]
                .as_object()
                .and_then(|asked| asked.keys().next().cloned())
            {
                Some(key) => {
                    assert_eq!(task["status"], "input_required");
                    Ok(key)
                }
                None => Err(task),
            }
        },
    );
    let answer = r#"{"action": "accept", "content": {"confirm": true}}"#;
    let (_, code) = cli(dir, &["tasks", "answer", &asking, &key, answer]);
    assert_eq!(code, 0);
    let (envelope, code) = cli(dir, &["tasks", "wait", &asking, "--timeout", "20"]);
    assert_eq!(
        (code, &envelope["data"]["result"]),
        (0, &json!("deleted a.txt"))
    );

    // An invalid input is refused at once, and leaves no task.
    let (refused, code) = cli(
        dir,
        &["call", "slow_compute", r#"{"seconds": "x"}"#, "--detach"],
    );
    assert_eq!(
        (code, &refused["type"]),
        (1, &json!("validation")),
        "{refused}"
    );
    let (listed, _) = cli(dir, &["tasks", "list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 3);
    // A handle nobody made.
    let output = Command::new(binary())
        .args(["tasks", "get", "task_0000", "--tasks-dir"])
        .arg(dir.join("tasks"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no task has the handle"));
}

// --- Redis: replicas answering for each other ------------------------------------------------

fn replica(folder: &Path, redis: &Redis, lease: &str) -> HttpServer {
    serve(folder, &["--tasks", &redis.url(), "--task-lease", lease])
}

#[test]
fn a_task_started_on_one_replica_is_polled_and_cancelled_through_another() {
    let redis = Redis::start();
    let folder = tempfile::tempdir().unwrap();
    let a = replica(folder.path(), &redis, "15");
    let b = replica(folder.path(), &redis, "15");
    let id = start(&a.url, 0.5, "on-a");
    assert_eq!(result(&get(&b.url, &id))["taskId"], id.as_str());
    let done = until_done(&b.url, &id, Duration::from_secs(20));
    assert_eq!(done["status"], "completed");
    assert_eq!(text_of(&done), "computed on-a in 0.5 s");

    let id = start(&a.url, 60.0, "cancelled-through-b");
    let ack = rpc(&b.url, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(result(&ack), &json!({"resultType": "complete"}));
    let started = Instant::now();
    let cancelled = until_done(&b.url, &id, Duration::from_secs(20));
    assert_eq!(cancelled["status"], "cancelled");
    // Announced to A at once (pub/sub), not found at its next look.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    a.wait_for_log(
        &["slow_compute: cancelled-through-b saw its cancellation"],
        Duration::from_secs(10),
    );
    // Cancelling an ended task changes nothing.
    let again = rpc(&a.url, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(result(&again), &json!({"resultType": "complete"}));
    assert_eq!(result(&get(&a.url, &id))["status"], "cancelled");
}

#[test]
fn a_task_of_a_killed_replica_fails_once_its_lease_runs_out() {
    let redis = Redis::start();
    let folder = tempfile::tempdir().unwrap();
    let a = replica(folder.path(), &redis, "1");
    let b = replica(folder.path(), &redis, "1");
    let id = start(&a.url, 60.0, "orphaned");
    drop(a);
    assert_eq!(result(&get(&b.url, &id))["status"], "working");
    // The lease (1 s) and the skew allowance (5 s) pass; then it is failed, saying why.
    let failed = until_done(&b.url, &id, Duration::from_secs(20));
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(message.contains("stopped renewing its lease"), "{message}");
    assert!(failed.get("result").is_none());
}

#[test]
fn a_thousand_tasks_over_eight_threads_each_end_once_with_their_own_result() {
    let redis = Redis::start();
    let folder = tempfile::tempdir().unwrap();
    let replicas = [
        replica(folder.path(), &redis, "15"),
        replica(folder.path(), &redis, "15"),
    ];
    let urls: Vec<String> = replicas.iter().map(|server| server.url.clone()).collect();
    let next = Arc::new(AtomicUsize::new(0));
    let results = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (urls, next, results) = (urls.clone(), Arc::clone(&next), Arc::clone(&results));
            std::thread::spawn(move || {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= 1_000 {
                        return;
                    }
                    // Started on one replica, followed through the other.
                    let id = start(&urls[n % 2], 0.0, &format!("n{n}"));
                    let task = until_done(&urls[(n + 1) % 2], &id, Duration::from_secs(60));
                    results.lock().unwrap().push((
                        n,
                        id,
                        task["status"].clone(),
                        text_of(&task).to_owned(),
                    ));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a client thread");
    }
    let mut results = std::mem::take(&mut *results.lock().unwrap());
    results.sort_by_key(|(n, _, _, _)| *n);
    assert_eq!(results.len(), 1_000);
    let mut handles: Vec<&String> = results.iter().map(|(_, id, _, _)| id).collect();
    handles.sort();
    handles.dedup();
    assert_eq!(handles.len(), 1_000, "every task has its own handle");
    for (n, _, status, text) in &results {
        assert_eq!(status, "completed");
        assert_eq!(text, &format!("computed n{n} in 0 s"));
    }
    // Read again: every result is still there, and the same.
    for (n, id, _, _) in results.iter().step_by(97) {
        let task = result(&get(&urls[0], id)).clone();
        assert_eq!(text_of(&task), format!("computed n{n} in 0 s"));
    }
}

#[test]
fn a_server_whose_redis_is_down_at_start_refuses_to_start_and_says_why() {
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let url = format!("redis://127.0.0.1:{port}/0");
    let folder = tempfile::tempdir().unwrap();
    let output = Command::new(binary())
        .args(["serve", "--http", "127.0.0.1:0", "--tasks", &url])
        .current_dir(folder.path())
        .stdin(Stdio::null())
        .output()
        .expect("the server runs");
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("cannot use {url} for tasks")),
        "{said}"
    );
    assert!(!said.contains("serving MCP"), "{said}");
}

#[test]
fn a_restarted_redis_loses_no_running_task_and_a_full_one_refuses_new_ones() {
    let mut redis = Redis::start();
    let folder = tempfile::tempdir().unwrap();
    let a = replica(folder.path(), &redis, "15");
    let id = start(&a.url, 2.0, "through-a-restart");
    // Redis restarts with nothing (no persistence): the replica reconnects and writes the task
    // it runs again.
    redis.restart();
    let done = until_done(&a.url, &id, Duration::from_secs(30));
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(text_of(&done), "computed through-a-restart in 2 s");

    // Out of memory: a new task is refused with the store's words, not a hang.
    assert_eq!(
        redis.cli(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]),
        "OK"
    );
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "1"]), "OK");
    let refused = rpc(
        &a.url,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 0}}),
    );
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("the task store is full"), "{message}");
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "0"]), "OK");
    let id = start(&a.url, 0.0, "after");
    assert_eq!(
        until_done(&a.url, &id, Duration::from_secs(20))["status"],
        "completed"
    );
}

/// A file store on a full disk (here a file size limit, `RLIMIT_FSIZE` of 1 KiB, with
/// `SIGXFSZ` ignored so that a write past it fails instead of ending the process).
#[test]
fn a_file_store_on_a_full_disk_records_what_fits_says_why_and_keeps_serving() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let store = folder.path().join("tasks");
    let limited = folder.path().join("limited.sh");
    std::fs::write(
        &limited,
        format!(
            "#!/bin/sh\ntrap '' XFSZ\nulimit -f 2\nexec '{}' \"$@\"\n",
            binary().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&limited, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = HttpServer::start_with(
        &limited,
        folder.path(),
        &["--tasks", &format!("file:{}", store.display())],
    );
    let id = start(&server.url, 0.0, "small");
    let done = until_done(&server.url, &id, Duration::from_secs(20));
    assert_eq!(text_of(&done), "computed small in 0 s", "{done}");
    // A result larger than the disk takes: the task fails, saying why.
    let large = "l".repeat(400);
    let id = start(&server.url, 0.0, &large);
    let failed = until_done(&server.url, &id, Duration::from_secs(20));
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("its result could not be stored") && message.contains("full"),
        "{message}"
    );
    // Nothing cut short is left for a reader: every record is whole.
    for entry in std::fs::read_dir(&store).unwrap() {
        let path = entry.unwrap().path();
        // The store's lock, and task records.
        if path.file_name().is_some_and(|name| name == ".lock") {
            continue;
        }
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("json"),
            "{path:?} left behind"
        );
        let text = std::fs::read(&path).unwrap();
        serde_json::from_slice::<Value>(&text)
            .unwrap_or_else(|error| panic!("{path:?} is cut short: {error}"));
    }
    // The server goes on serving.
    let id = start(&server.url, 0.0, "after");
    let done = until_done(&server.url, &id, Duration::from_secs(20));
    assert_eq!(text_of(&done), "computed after in 0 s", "{done}");
}

#[test]
fn a_client_without_the_extension_gets_a_handle_and_follows_it_with_the_task_tools() {
    let folder = tempfile::tempdir().unwrap();
    let server = serve(folder.path(), &[]);
    let call = |name: &str, arguments: Value| {
        let answer = rpc_as(
            &server.url,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
            false,
        );
        result(&answer).clone()
    };
    // A `handle` tool: the handle as the call's text (and in `_meta`), at once.
    let started = call("background_count", json!({"to": 5}));
    assert_eq!(started["isError"], false, "{started}");
    let handle = started["_meta"]["buril/task"]["handle"]
        .as_str()
        .unwrap()
        .to_owned();
    let text: Value =
        serde_json::from_str(started["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["handle"], handle.as_str());
    let task = call("task_get", json!({"handle": handle}));
    assert_eq!(task["structuredContent"]["tool"], "background_count");
    let done = call(
        "task_wait",
        json!({"handle": handle, "timeout_seconds": 20}),
    );
    let summary = &done["structuredContent"];
    assert_eq!(summary["status"], "completed", "{done}");
    assert_eq!(
        summary["envelope"],
        json!({"ok": true, "data": {"result": 5}})
    );
    assert_eq!(
        summary["progress"]["progress"], 5.0,
        "the last report is kept"
    );
    // Cancelled with `task_cancel`.
    let started = call("background_count", json!({"to": 600}));
    let handle = started["_meta"]["buril/task"]["handle"]
        .as_str()
        .unwrap()
        .to_owned();
    call("task_cancel", json!({"handle": handle}));
    let done = call(
        "task_wait",
        json!({"handle": handle, "timeout_seconds": 20}),
    );
    assert_eq!(done["structuredContent"]["status"], "cancelled", "{done}");
    // A forged handle is the tool's validation error, saying so.
    let forged = call("task_get", json!({"handle": "task_0000"}));
    assert_eq!(forged["isError"], true);
    let message = forged["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("no task has the handle"), "{message}");
    // An optional task tool simply waits, and a required one is refused, naming the extension.
    let waited = call("slow_compute", json!({"seconds": 0.2, "label": "waited"}));
    assert_eq!(waited["content"][0]["text"], "computed waited in 0.2 s");
    let refused = rpc_as(
        &server.url,
        "tools/call",
        json!({"name": "failing_job", "arguments": {}}),
        false,
    );
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            .get(TASKS)
            .is_some()
    );
}
