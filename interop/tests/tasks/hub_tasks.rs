//! A task tool of another server stays a task through the hub: the fixture server's task tools
//! (`slow_compute`, over stdio, MCP 2026-07-28 and its tasks extension), served by a hub, become
//! tasks for a client that follows tasks, and plain calls that wait for the work for one that
//! does not; a cancelled task there ends cancelled.

use std::time::Duration;

use buril::hub::{External, Hub, Revision, Status};
use buril::testing::{Protocol, TestClient};
use buril::{DispatcherBuilder, Registry, TaskSupport};
use serde_json::json;

use crate::conformance_server;

fn served() -> (&'static Registry, buril::Dispatcher) {
    let registry = Registry::leaked(std::iter::empty()).expect("a registry");
    let hub = Hub::of(registry);
    hub.add(
        External::command("fx", conformance_server().display().to_string(), ["serve"])
            .revision(Revision::V2026_07_28)
            .enable(true),
    )
    .expect("a valid server");
    hub.wait_settled(Duration::from_secs(60));
    let status = hub.status("fx").expect("registered");
    assert_eq!(status.status, Status::Connected, "{status:?}");
    (
        registry,
        DispatcherBuilder::default().registry(registry).build(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_task_tool_stays_a_task() {
    let (registry, dispatcher) = served();
    let tool = registry.get("fx_slow_compute").expect("served");
    assert_eq!(tool.meta().task, TaskSupport::Deferred);

    let following = TestClient::builder(dispatcher.clone())
        .protocol(Protocol::V2026_07_28)
        .follow_tasks(true)
        .connect()
        .await
        .unwrap();
    let called = following
        .call("fx_slow_compute", json!({"seconds": 0.3, "label": "far"}))
        .await
        .unwrap();
    assert!(
        called.task.is_some(),
        "a task here too: {:?}",
        called.envelope
    );
    assert_eq!(
        called.envelope,
        json!({"ok": true, "data": {"result": "computed far in 0.3 s"}})
    );
    following.close().await;

    let waiting = TestClient::builder(dispatcher)
        .protocol(Protocol::V2025_11_25)
        .connect()
        .await
        .unwrap();
    let called = waiting
        .call("fx_slow_compute", json!({"seconds": 0.2, "label": "near"}))
        .await
        .unwrap();
    assert!(called.task.is_none());
    assert_eq!(
        called.envelope,
        json!({"ok": true, "data": {"result": "computed near in 0.2 s"}})
    );
    waiting.close().await;
}
