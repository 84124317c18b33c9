//! The testing kit (`buril::testing`): an in-memory MCP client over both protocol revisions,
//! with typed calls, the envelope read back from the MCP result, progress and log messages
//! captured per call, a tool's questions answered in either revision's way, and task tools
//! followed through the tasks extension.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use buril::context::{Elicited, LogLevel};
use buril::testing::{Protocol, TestClient, TestError};
use buril::{Context, Dispatcher, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const BOTH: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

/// Where a test client met the kit's tools.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Greeting {
    /// The greeting.
    text: String,
    /// How many steps it reported.
    steps: u32,
}

/// Greets `name`, reporting two steps of progress and logging one line.
#[buril::tool(off_thread)]
fn kit_greet(
    /// Who to greet.
    name: String,
    ctx: &Context,
) -> Result<Greeting, ToolError> {
    ctx.report_progress(1.0, Some(2.0), Some("looking"));
    ctx.log_data(LogLevel::Info, json!({"greeting": name}));
    ctx.report_progress(2.0, Some(2.0), None);
    Ok(Greeting {
        text: format!("hello, {name}"),
        steps: 2,
    })
}

/// Doubles a number.
#[buril::tool(off_thread)]
fn kit_double(
    /// The number.
    n: i64,
) -> i64 {
    n * 2
}

/// Asks the caller for a name, then greets it.
#[buril::tool(off_thread)]
fn kit_ask(ctx: &Context) -> Result<String, ToolError> {
    match ctx.elicit::<AskedName>("Who is there?")? {
        Elicited::Accepted(asked) => Ok(format!("hello, {}", asked.name)),
        _ => Ok("nobody".to_owned()),
    }
}

/// What `kit_ask` asks for.
#[derive(Deserialize, JsonSchema)]
struct AskedName {
    /// A name.
    name: String,
}

/// Counts to three as a task, asking nothing.
#[buril::tool(off_thread, task)]
async fn kit_count(ctx: &Context) -> Result<u32, ToolError> {
    for step in 1..=3 {
        ctx.report_progress(f64::from(step), Some(3.0), None);
    }
    Ok(3)
}

async fn client_of(protocol: Protocol) -> TestClient {
    TestClient::builder(Dispatcher::new())
        .protocol(protocol)
        .connect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_answer_typed_data_and_the_envelope_in_both_revisions() {
    for protocol in BOTH {
        let client = client_of(protocol).await;
        assert_eq!(client.protocol(), protocol);
        let doubled: i64 = client
            .call_ok("kit_double", json!({"n": 21}))
            .await
            .unwrap();
        assert_eq!(doubled, 42, "{protocol:?}");
        let greeting: Greeting = client
            .call_ok("kit_greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        assert_eq!(greeting.text, "hello, Ada");
        // A refusal is the tool's error, with its envelope.
        let refused = client
            .call_ok::<i64>("kit_double", json!({"n": "x"}))
            .await
            .unwrap_err();
        let TestError::Tool(envelope) = refused else {
            panic!("{refused:?}");
        };
        assert_eq!(envelope["type"], "validation", "{protocol:?}: {envelope}");
        assert_eq!(envelope["problems"][0]["path"], "/n");
        // An unknown tool is a protocol error, as MCP has it.
        let unknown = client.call("kit_nothing", json!({})).await.unwrap_err();
        assert!(
            matches!(unknown, TestError::Protocol { code: -32602, .. }),
            "{protocol:?}: {unknown:?}"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_records_its_progress_and_log_messages() {
    for protocol in BOTH {
        let client = client_of(protocol).await;
        let called = client
            .call("kit_greet", json!({"name": "Grace"}))
            .await
            .unwrap();
        assert!(called.is_ok(), "{called:?}");
        assert_eq!(
            called.progress,
            vec![
                json!({"progress": 1.0, "total": 2.0, "message": "looking"}),
                json!({"progress": 2.0, "total": 2.0}),
            ],
            "{protocol:?}"
        );
        assert_eq!(called.logs.len(), 1, "{protocol:?}: {called:?}");
        assert_eq!(called.logs[0]["data"], json!({"greeting": "Grace"}));
        assert_eq!(called.logs[0]["level"], "info");
        assert_eq!(called.result["structuredContent"]["text"], "hello, Grace");
        assert_eq!(called.task, None);
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_are_answered_mid_call_and_in_rounds_alike() {
    for protocol in BOTH {
        let asked = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&asked);
        let client = TestClient::builder(Dispatcher::new())
            .protocol(protocol)
            .answer(move |request| {
                counted.fetch_add(1, Ordering::SeqCst);
                assert_eq!(request["method"], "elicitation/create", "{request}");
                json!({"action": "accept", "content": {"name": "Ada"}})
            })
            .connect()
            .await
            .unwrap();
        let called = client.call("kit_ask", json!({})).await.unwrap();
        assert_eq!(called.data::<Value>().unwrap()["result"], "hello, Ada");
        assert_eq!(called.questions.len(), 1, "{protocol:?}: {called:?}");
        assert_eq!(
            called.questions[0]["params"]["message"], "Who is there?",
            "{protocol:?}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{protocol:?}");
        client.close().await;
    }
    // Without answers, the client declares it can answer nothing: under 2025-11-25 the tool
    // hears so; under 2026-07-28 the call is refused as needing the capability.
    let client = client_of(Protocol::V2025_11_25).await;
    let called = client.call("kit_ask", json!({})).await.unwrap();
    assert_eq!(called.envelope["ok"], false, "{called:?}");
    let error = called.envelope["error"].as_str().unwrap();
    assert!(error.contains("`elicitation` capability"), "{error}");
    assert!(called.questions.is_empty());
    client.close().await;
    let client = client_of(Protocol::V2026_07_28).await;
    let refused = client.call("kit_ask", json!({})).await.unwrap_err();
    assert!(
        matches!(refused, TestError::Protocol { code: -32021, .. }),
        "{refused:?}"
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_tool_is_followed_to_its_end_when_the_client_follows_tasks() {
    let client = TestClient::builder(Dispatcher::new())
        .follow_tasks(true)
        .connect()
        .await
        .unwrap();
    let called = client.call("kit_count", json!({})).await.unwrap();
    let handle = called.task.clone().expect("it ran as a task");
    assert!(handle.starts_with("task_"), "{handle}");
    assert_eq!(called.data::<Value>().unwrap()["result"], 3, "{called:?}");
    client.close().await;
    // A client that does not follow tasks waits for the work in the call.
    let plain = client_of(Protocol::V2026_07_28).await;
    let called = plain.call("kit_count", json!({})).await.unwrap();
    assert_eq!(called.task, None);
    assert_eq!(called.data::<Value>().unwrap()["result"], 3);
    plain.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_listed_are_the_definitions_clients_see() {
    let client = client_of(Protocol::V2026_07_28).await;
    let tools = client.tools().await.unwrap();
    let greet = tools
        .iter()
        .find(|tool| tool["name"] == "kit_greet")
        .expect("listed");
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    assert!(greet["outputSchema"]["properties"]["steps"].is_object());
    client.close().await;
}
