//! The hub (`buril::hub`) against servers no one here wrote the protocol of: the Python SDK's
//! (`interop/mcp/hub_server.py`) over stdio and Streamable HTTP, both revisions, and a
//! hand-written one for the bad cases (`interop/mcp/raw_server.py`). Each test has a registry
//! of its own, so that their servers do not meet.

use std::sync::Arc;
use std::time::{Duration, Instant};

use buril::hub::{External, Hub, Revision, Status};
use buril::server::ServerOptions;
use buril::testing::{Protocol, TestClient};
use buril::{CallOptions, CancelToken, Dispatcher, DispatcherBuilder, Registry};
use buril_test_support::{wait_until, wait_until_async};
use serde_json::{Value, json};

use crate::common::externals::{free_port, hub_server, python, python_http, raw_server, scratch};
use crate::common::{poll, poll_async};

/// Says hello: a tool linked into the binary, served beside the external ones.
#[buril::tool(off_thread)]
fn local_hello() -> String {
    "hello".to_owned()
}

// The `mcp_` tools (`buril::hub_tools!`) are the `tools` library's, linked into this binary.

const SETTLE: Duration = Duration::from_secs(60);

/// A registry of this binary's linked tools, of the test's own.
fn fresh() -> &'static Registry {
    Registry::leaked(buril::registry().linked().iter().copied()).expect("a registry")
}

/// The Python SDK's server over stdio, named `py`, its tools enabled.
fn python_server(revision: Revision) -> External {
    External::command("py", python(), [hub_server()])
        .revision(revision)
        .enable(true)
}

struct Setup {
    registry: &'static Registry,
    hub: Arc<Hub>,
    dispatcher: Dispatcher,
}

fn setup(externals: Vec<External>) -> Setup {
    let registry = fresh();
    let hub = Hub::of(registry);
    for external in externals {
        hub.add(external).expect("a valid server");
    }
    hub.wait_settled(SETTLE);
    let dispatcher = DispatcherBuilder::default().registry(registry).build();
    Setup {
        registry,
        hub,
        dispatcher,
    }
}

fn call(dispatcher: &Dispatcher, name: &str, input: Value) -> Value {
    dispatcher
        .invoke(name, input, CallOptions::default())
        .into_envelope()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_python_servers_tools_are_served_under_its_prefix_in_both_revisions() {
    for (revision, spoken) in [
        (Revision::V2026_07_28, "2026-07-28"),
        (Revision::V2025_11_25, "2025-11-25"),
        (Revision::Auto, "2026-07-28"),
    ] {
        let Setup {
            registry,
            hub,
            dispatcher,
        } = setup(vec![python_server(revision)]);
        let status = hub.status("py").expect("registered");
        assert_eq!(status.status, Status::Connected, "{status:?}");
        assert_eq!(status.protocol.as_deref(), Some(spoken));
        let names: Vec<String> = registry
            .tools_of("py")
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "py_add_numbers",
                "py_ask_name",
                "py_calls_received",
                "py_fail_on_purpose",
                "py_slow_count",
                "py_unlock_extra",
            ],
            "{revision:?}"
        );
        assert_eq!(status.tools, 6);
        let slow = registry.get("py_slow_count").unwrap();
        assert_eq!(
            slow.provenance().unwrap().original_name(),
            Some("slowCount")
        );
        assert_eq!(slow.family(), "py");
        let add = registry.get("py_add_numbers").unwrap();
        assert_eq!(add.description(), "Adds two numbers.");
        assert_eq!(add.input_schema()["required"], json!(["a", "b"]));
        assert_eq!(
            add.output_schema()["properties"]["sum"]["type"],
            "number",
            "{}",
            add.output_schema()
        );

        assert_eq!(
            call(&dispatcher, "py_add_numbers", json!({"a": 1, "b": 2.5})),
            json!({"ok": true, "data": {"sum": 3.5}})
        );
        // Refused here: nothing reaches the server.
        let refused = call(&dispatcher, "py_add_numbers", json!({"a": "one"}));
        assert_eq!(refused["type"], "validation", "{refused}");
        assert_eq!(
            refused["problems"].as_array().unwrap().len(),
            2,
            "{refused}"
        );
        assert_eq!(
            call(&dispatcher, "py_calls_received", json!({})),
            json!({"ok": true, "data": {"result": 1}}),
            "{revision:?}"
        );
        let failed = call(&dispatcher, "py_fail_on_purpose", json!({}));
        assert_eq!(failed["type"], "tool", "{failed}");
        assert!(
            failed["error"]
                .as_str()
                .unwrap()
                .contains("this tool always fails"),
            "{failed}"
        );
        assert_eq!(call(&dispatcher, "local_hello", json!({}))["ok"], true);
        assert!(hub.remove("py"));
        assert!(registry.tools_of("py").is_empty());
    }
}

#[test]
fn a_tool_the_server_adds_is_served_and_clients_hear_of_it() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let Setup {
            registry,
            dispatcher,
            ..
        } = setup(vec![python_server(Revision::Auto)]);
        runtime().block_on(async {
            let client = TestClient::builder(dispatcher)
                .protocol(protocol)
                .connect()
                .await
                .unwrap();
            client.listen_for_tool_changes().await.unwrap();
            let listed = client.tools().await.unwrap();
            assert!(listed.iter().any(|tool| tool["name"] == "py_unlock_extra"));
            assert!(!listed.iter().any(|tool| tool["name"] == "py_extra_greet"));
            let unlocked = client.call("py_unlock_extra", json!({})).await.unwrap();
            assert_eq!(unlocked.envelope["ok"], true, "{:?}", unlocked.envelope);
            wait_until_async(
                &format!("the new tool to be followed ({protocol:?})"),
                || registry.get("py_extra_greet").is_some() && client.tool_list_changes() > 0,
            )
            .await;
            let greeted = client
                .call("py_extra_greet", json!({"name": "Ada"}))
                .await
                .unwrap();
            assert_eq!(
                &greeted.envelope,
                &json!({"ok": true, "data": {"result": "hello, Ada"}})
            );
            client.close().await;
        });
    }
}

#[test]
fn progress_reaches_the_caller_and_a_cancellation_reaches_the_server() {
    let markers = scratch();
    let external =
        python_server(Revision::Auto).env("HUB_TEST_MARKERS", markers.path().display().to_string());
    let Setup { dispatcher, .. } = setup(vec![external]);
    runtime().block_on(async {
        let client = TestClient::builder(dispatcher.clone())
            .protocol(Protocol::V2025_11_25)
            .connect()
            .await
            .unwrap();
        let counted = client
            .call("py_slow_count", json!({"steps": 3, "delay": 0.05}))
            .await
            .unwrap();
        assert_eq!(
            &counted.envelope,
            &json!({"ok": true, "data": {"result": "counted to 3"}})
        );
        let progress: Vec<(f64, f64)> = counted
            .progress
            .iter()
            .map(|report| {
                (
                    report["progress"].as_f64().unwrap(),
                    report["total"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(progress, [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]);
        // The server's log message reaches the caller as the call's.
        assert!(
            counted
                .logs
                .iter()
                .any(|log| log["data"] == "counting to 3" && log["level"] == "info"),
            "{:?}",
            counted.logs
        );
        client.close().await;

        // Cancelled once the server reports its first step: it is running the call then.
        let cancel = CancelToken::new();
        let running = cancel.clone();
        let options = CallOptions::default()
            .cancel(cancel.clone())
            .progress(Arc::new(move |_| running.cancel()));
        let outcome = dispatcher
            .invoke_async(
                "py_slow_count",
                json!({"steps": 100, "delay": 0.1}),
                options,
            )
            .await;
        assert_eq!(outcome.into_envelope()["type"], "cancelled");
    });
    let marker = markers.path().join("cancelled");
    wait_until("the server to see the cancellation", || marker.exists());
}

#[test]
fn a_slow_call_hits_the_servers_timeout_and_is_cancelled_there() {
    let markers = scratch();
    let external = python_server(Revision::Auto)
        .timeout(Duration::from_millis(400))
        .env("HUB_TEST_MARKERS", markers.path().display().to_string());
    let Setup { dispatcher, .. } = setup(vec![external]);
    let started = Instant::now();
    let envelope = call(
        &dispatcher,
        "py_slow_count",
        json!({"steps": 100, "delay": 0.1}),
    );
    assert_eq!(envelope["type"], "timeout", "{envelope}");
    assert!(
        envelope["error"].as_str().unwrap().contains("`py`"),
        "{envelope}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let marker = markers.path().join("cancelled");
    wait_until("the server to see the cancellation", || marker.exists());
}

#[test]
fn the_servers_questions_reach_the_caller() {
    for (revision, protocol) in [
        (Revision::V2025_11_25, Protocol::V2025_11_25),
        (Revision::V2026_07_28, Protocol::V2026_07_28),
        (Revision::V2026_07_28, Protocol::V2025_11_25),
    ] {
        let Setup { dispatcher, .. } = setup(vec![python_server(revision)]);
        runtime().block_on(async {
            let client = TestClient::builder(dispatcher)
                .protocol(protocol)
                .answer(|question| {
                    assert_eq!(question["method"], "elicitation/create", "{question}");
                    json!({"action": "accept", "content": {"name": "Ada"}})
                })
                .connect()
                .await
                .unwrap();
            let greeted = client.call("py_ask_name", json!({})).await.unwrap();
            assert_eq!(
                &greeted.envelope,
                &json!({"ok": true, "data": {"result": "hello, Ada"}}),
                "{revision:?} to the server, {protocol:?} to the client"
            );
            assert_eq!(greeted.questions.len().min(1), 1);
            client.close().await;
        });
    }
}

#[test]
fn a_server_that_goes_away_answers_unavailable_until_it_is_back() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let server = python_http(port, &[]);
    let Setup {
        registry,
        hub,
        dispatcher,
    } = setup(vec![External::url("py", &url).enable(true)]);
    assert_eq!(hub.status("py").unwrap().status, Status::Connected);
    runtime().block_on(async {
        let client = TestClient::builder(dispatcher.clone())
            .protocol(Protocol::V2025_11_25)
            .connect()
            .await
            .unwrap();
        client.listen_for_tool_changes().await.unwrap();
        assert_eq!(
            client
                .call_ok::<Value>("py_add_numbers", json!({"a": 1, "b": 1}))
                .await
                .unwrap(),
            json!({"sum": 2.0})
        );
        drop(server);
        wait_until_async("the hub to see the server gone", || {
            hub.status("py").unwrap().status == Status::Reconnecting
        })
        .await;
        let gone = client
            .call("py_add_numbers", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        assert_eq!(gone.envelope["type"], "unavailable", "{:?}", gone.envelope);
        assert!(
            !client
                .tools()
                .await
                .unwrap()
                .iter()
                .any(|tool| tool["name"] == "py_add_numbers")
        );
        assert!(registry.lookup("py_add_numbers").is_some());
        let heard = client.tool_list_changes();
        assert!(heard >= 1);

        let _back = python_http(port, &[]);
        // Up to the hub's longest backoff (30 s) after the server went away, and its start.
        poll_async(
            "the hub to connect to the server again",
            Duration::from_millis(50),
            Duration::from_secs(60),
            async || match hub.status("py").unwrap() {
                status if status.status == Status::Connected => Ok(()),
                status => Err(status),
            },
        )
        .await;
        wait_until_async("a list_changed once the server came back", || {
            client.tool_list_changes() > heard
        })
        .await;
        assert_eq!(
            client
                .call_ok::<Value>("py_add_numbers", json!({"a": 2, "b": 2}))
                .await
                .unwrap(),
            json!({"sum": 4.0})
        );
        client.close().await;
    });
}

#[test]
fn a_stdio_server_that_exits_is_started_again_and_stopped_when_unregistered() {
    let Setup {
        registry,
        hub,
        dispatcher,
    } = setup(vec![python_server(Revision::Auto)]);
    let first = hub.status("py").unwrap().pid.expect("a process");
    kill(first);
    poll(
        "the server to be started again",
        Duration::from_millis(25),
        Duration::from_secs(60),
        || match hub.status("py").unwrap() {
            status
                if status.status == Status::Connected
                    && status.pid.is_some_and(|pid| pid != first) =>
            {
                Ok(())
            }
            status => Err(Box::new(status)),
        },
    );
    assert_eq!(
        call(&dispatcher, "py_add_numbers", json!({"a": 1, "b": 2})),
        json!({"ok": true, "data": {"sum": 3.0}})
    );
    let second = hub.status("py").unwrap().pid.unwrap();
    assert!(hub.remove("py"));
    assert!(registry.tools_of("py").is_empty());
    assert_eq!(
        call(&dispatcher, "py_add_numbers", json!({"a": 1, "b": 2}))["type"],
        "not_found"
    );
    wait_until("the server's process to end", || !alive(second));
}

#[test]
fn bad_servers_are_said_and_everything_else_is_served() {
    let unreachable = format!("http://127.0.0.1:{}/mcp", free_port());
    let Setup {
        registry,
        hub,
        dispatcher,
    } = setup(vec![
        External::url("gone", &unreachable),
        External::command("quits", python(), [raw_server(), "exit".to_owned()]),
        External::command("noise", python(), [raw_server(), "garbage".to_owned()])
            .revision(Revision::V2025_11_25)
            .connect_timeout(Duration::from_secs(3)),
        External::command("awk", python(), [raw_server(), "awkward".to_owned()])
            .revision(Revision::V2025_11_25)
            .enable(true),
        External::command("clash", python(), [raw_server(), "awkward".to_owned()])
            .revision(Revision::V2025_11_25)
            .with_prefix("local_")
            .enable(true),
    ]);
    let gone = hub.status("gone").unwrap();
    assert_eq!(gone.status, Status::Failed, "{gone:?}");
    assert!(
        gone.last_error.as_deref().unwrap().contains(&unreachable),
        "{gone:?}"
    );
    let quits = hub.status("quits").unwrap();
    assert_eq!(quits.status, Status::Failed, "{quits:?}");
    assert!(
        quits
            .last_error
            .as_deref()
            .unwrap()
            .contains("refusing to start, as asked"),
        "{quits:?}"
    );
    let noise = hub.status("noise").unwrap();
    assert_eq!(noise.status, Status::Failed, "{noise:?}");
    assert!(
        noise
            .last_error
            .as_deref()
            .unwrap()
            .contains("it wrote `this is not JSON-RPC at all` to its standard output"),
        "{noise:?}"
    );

    let awk = hub.status("awk").unwrap();
    assert_eq!(awk.status, Status::Connected, "{awk:?}");
    let served: Vec<String> = registry
        .tools_of("awk")
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(served, ["awk_get_sum", "awk_good_tool", "awk_hello"]);
    let refused = awk.refused.join("\n");
    assert!(refused.contains("`get_sum`"), "{refused}");
    assert!(
        refused.contains("日本語") && refused.contains("no ASCII"),
        "{refused}"
    );
    assert!(
        refused.contains("bad_schema") && refused.contains("does not compile"),
        "{refused}"
    );
    let clash = hub.status("clash").unwrap();
    let refused = clash.refused.join("\n");
    assert!(
        refused.contains("`local_hello` of `clash`")
            && refused.contains("the linked tool `local_hello`"),
        "{refused}"
    );
    assert_eq!(
        call(&dispatcher, "awk_get_sum", json!({})),
        json!({"ok": true, "data": {"content": [
            {"type": "text", "text": "{\"called\": \"get-sum\", \"arguments\": {}}"}
        ]}})
    );
    assert_eq!(
        call(&dispatcher, "local_hello", json!({})),
        json!({"ok": true, "data": {"result": "hello"}})
    );
}

#[test]
fn ten_thousand_tools_are_listed_and_served() {
    let registry = fresh();
    let hub = Hub::of(registry);
    let before = resident_kib();
    let started = Instant::now();
    hub.add(
        External::command(
            "many",
            python(),
            [raw_server(), "many".to_owned(), "10000".to_owned()],
        )
        .revision(Revision::V2025_11_25)
        .enable(true),
    )
    .unwrap();
    hub.wait_settled(SETTLE);
    let listed = started.elapsed();
    let status = hub.status("many").unwrap();
    assert_eq!(status.status, Status::Connected, "{status:?}");
    assert_eq!(status.tools, 10_000, "{status:?}");
    assert!(status.refused.is_empty());
    eprintln!(
        "10,000 external tools: connected and listed in {:.2} s; resident memory grew by {} KiB",
        listed.as_secs_f64(),
        resident_kib().saturating_sub(before)
    );
    let dispatcher = DispatcherBuilder::default().registry(registry).build();
    assert_eq!(
        call(&dispatcher, "many_tool_9999", json!({"n": 1}))["ok"],
        true
    );
    assert_eq!(
        call(&dispatcher, "many_tool_9999", json!({"n": "x"}))["type"],
        "validation"
    );
}

#[test]
fn the_mcp_tools_register_list_and_unregister_servers() {
    let registry = fresh();
    let dispatcher = DispatcherBuilder::default()
        .registry(registry)
        .policy(buril::Policy::new().enable("mcp_register_external".parse().unwrap()))
        .build();
    let registered = call(
        &dispatcher,
        "mcp_register_external",
        json!({"name": "py", "command": python(), "args": [hub_server()], "enable": true}),
    );
    assert_eq!(registered["ok"], true, "{registered}");
    assert_eq!(registered["data"]["status"], "connected", "{registered}");
    assert_eq!(registered["data"]["tools"], 6, "{registered}");
    let listed = call(&dispatcher, "mcp_list_servers", json!({}));
    assert_eq!(listed["data"]["servers"][0]["name"], "py", "{listed}");
    assert_eq!(listed["data"]["servers"][0]["transport"], "stdio");
    assert_eq!(
        call(&dispatcher, "py_add_numbers", json!({"a": 1, "b": 1}))["data"],
        json!({"sum": 2.0})
    );
    let again = call(
        &dispatcher,
        "mcp_register_external",
        json!({"name": "py", "command": python()}),
    );
    assert_eq!(again["type"], "validation", "{again}");
    assert!(
        again["error"].as_str().unwrap().contains("already"),
        "{again}"
    );
    let wrong = call(
        &dispatcher,
        "mcp_register_external",
        json!({"name": "Bad Name", "url": "ftp://x"}),
    );
    assert_eq!(wrong["type"], "validation", "{wrong}");
    let removed = call(
        &dispatcher,
        "mcp_unregister_external",
        json!({"name": "py"}),
    );
    assert_eq!(
        removed,
        json!({"ok": true, "data": {"name": "py", "tools_withdrawn": 6}})
    );
    let unknown = call(
        &dispatcher,
        "mcp_unregister_external",
        json!({"name": "py"}),
    );
    assert_eq!(unknown["type"], "validation", "{unknown}");
    // Registering runs a program: off until the host enables it.
    let default = DispatcherBuilder::default().registry(fresh()).build();
    assert_eq!(
        call(
            &default,
            "mcp_register_external",
            json!({"name": "x", "command": "true"})
        )["type"],
        "disabled"
    );
}

#[test]
fn a_config_files_external_tables_connect_and_disconnect_live() {
    let folder = scratch();
    let config = folder.path().join("server.toml");
    std::fs::write(&config, "").unwrap();
    let registry = fresh();
    let dispatcher = DispatcherBuilder::default().registry(registry).build();
    runtime().block_on(async {
        let client = TestClient::builder(dispatcher)
            .protocol(Protocol::V2025_11_25)
            .server_options(
                ServerOptions::new()
                    .config_file(&config)
                    .config_poll_interval(Duration::from_millis(50))
                    .messages(|_| {}),
            )
            .connect()
            .await
            .unwrap();
        client.listen_for_tool_changes().await.unwrap();
        let table = format!(
            "enable = [\"family:py\"]\n\n[[external]]\nname = \"py\"\ncommand = {}\nargs = [{}]\n",
            toml_string(&python()),
            toml_string(&hub_server())
        );
        std::fs::write(&config, table).unwrap();
        // Unknown to the client until the server is connected and its tools are listed.
        let called = poll_async(
            "the table's server to answer through the client",
            Duration::from_millis(100),
            Duration::from_secs(60),
            async || match client.call("py_add_numbers", json!({"a": 2, "b": 3})).await {
                Ok(called) if called.envelope["ok"] == true => Ok(called),
                other => Err(other),
            },
        )
        .await;
        assert_eq!(called.envelope["data"], json!({"sum": 5.0}));
        assert!(client.tool_list_changes() >= 1);
        std::fs::write(&config, "# none now\n").unwrap();
        wait_until_async("the table's removal to be followed", || {
            registry.get("py_add_numbers").is_none()
        })
        .await;
        client.close().await;
    });
}

fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.split_whitespace()
            .nth(2)
            .is_none_or(|state| state != "Z")
    })
}

fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kib| kib.parse().ok())
        })
        .unwrap_or(0)
}
