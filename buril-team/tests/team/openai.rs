//! The OpenAI-compatible client end to end, against a chat-completions server on loopback
//! written here: what it sends (tools in function form, the model, the temperature, the key
//! from the environment, the history), what it reads (tool calls, then the report), and how
//! failures and cancellation reach the run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::common::Fixture;
use buril_team::RunState;
use buril_team::{ModelReply, OpenAiCompatible, Team};
use buril_test_support::wait_until;
use serde_json::{Value, json};

/// One request the server received.
#[derive(Debug, Clone)]
struct Received {
    request_line: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
    body: Value,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers to one request.
#[derive(Clone)]
enum Answer {
    Json(u16, Value),
    /// Accept the request and never answer.
    Hang,
}

/// A chat-completions server on 127.0.0.1 that answers each request with the next answer of
/// its script, then stops. Serves until its script ends or the `Server` is dropped; the
/// connections it holds unanswered stay open as long as the `Server` does.
struct Server {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    held: Arc<Mutex<Vec<TcpStream>>>,
    /// Set when the `Server` is dropped, for its thread to stop at its next connection.
    stopped: Arc<AtomicBool>,
}

impl Server {
    fn start(answers: Vec<Answer>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let held = Arc::new(Mutex::new(Vec::new()));
        let holding = Arc::clone(&held);
        let stopped = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stopped);
        thread::spawn(move || {
            let mut answers = answers.into_iter();
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { return };
                let Some(answer) = answers.next() else { return };
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let request = read_request(&stream);
                log.lock().unwrap().push(request);
                match answer {
                    Answer::Json(status, body) => write_response(stream, status, &body),
                    Answer::Hang => holding.lock().unwrap().push(stream),
                }
            }
        });
        Server {
            addr,
            received,
            held,
            stopped,
        }
    }

    fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// How many requests it holds unanswered, their connections open.
    fn holding(&self) -> usize {
        self.held.lock().unwrap().len()
    }
}

impl Drop for Server {
    /// Stops its thread: the flag set, then a connection to wake its accept.
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn read_request(stream: &TcpStream) -> Received {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .expect("a content-length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Received {
        request_line: request_line.trim_end().to_owned(),
        headers,
        body: serde_json::from_slice(&body).unwrap(),
    }
}

fn write_response(mut stream: TcpStream, status: u16, body: &Value) {
    let body = body.to_string();
    let reason = if status == 200 { "OK" } else { "Error" };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}

fn tool_calls(calls: &[(&str, &str, Value)]) -> Answer {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })
        })
        .collect();
    Answer::Json(
        200,
        json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": calls},
            }],
        }),
    )
}

fn final_message(content: &str) -> Answer {
    Answer::Json(
        200,
        json!({
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "choices": [{
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }],
        }),
    )
}

/// An environment variable Cargo sets for every test process, used as the API key variable so
/// that the test needs no `set_var`.
const KEY_VAR: &str = "CARGO_PKG_NAME";

#[test]
fn a_run_over_http_sends_tools_model_temperature_and_key_and_reads_calls_then_the_report() {
    let server = Server::start(vec![
        tool_calls(&[
            ("call_a", "scene_list", json!({})),
            (
                "call_b",
                "gameobject_find",
                json!({"name": "Player", "match_mode": null}),
            ),
        ]),
        final_message(r#"{"report": "The player is object 4.", "artifact": {"player": 4}}"#),
    ]);
    let client = OpenAiCompatible::new(server.base_url(), "server-default").api_key_env(KEY_VAR);
    let fx = Fixture::with(Team::builder().model("local", client));
    let handle = fx.handoff(json!({
        "specialist": "scene-inspector",
        "brief": "Where is the player?",
        "model": "local/qwen-test",
        "temperature": 0.3,
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Done, "{run:?}");
    assert_eq!(run.report.as_deref(), Some("The player is object 4."));
    assert_eq!(run.artifact, Some(json!({"player": 4})));
    let tools: Vec<&str> = run.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["scene_list", "gameobject_find"]);
    assert!(run.calls.iter().all(|c| c.ok), "{run:?}");

    let received = server.received();
    assert_eq!(received.len(), 2);
    let first = &received[0];
    assert_eq!(first.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!(
        first.header("authorization"),
        Some(format!("Bearer {}", env!("CARGO_PKG_NAME")).as_str())
    );
    assert_eq!(first.header("host"), Some(server.addr.to_string().as_str()));
    let body = &first.body;
    assert_eq!(body["model"], "qwen-test");
    assert_eq!(body["temperature"], 0.3);
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You inspect the scenes")
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Where is the player?"})
    );
    // Every tool of the view, in the Chat Completions function form, and nothing else.
    let tools = body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names.contains(&"scene_list") && names.contains(&"gameobject_get"));
    for tool in tools {
        assert_eq!(tool["type"], "function", "{tool}");
        let function = tool["function"].as_object().unwrap();
        assert!(function["description"].as_str().unwrap().len() > 20);
        assert_eq!(function["parameters"]["type"], "object");
        assert!(function.get("type").is_none());
    }
    let find = tools
        .iter()
        .find(|t| t["function"]["name"] == "gameobject_find")
        .unwrap();
    assert_eq!(find["function"]["strict"], true);

    // The second request carries the calls and their envelopes.
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5);
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_a");
    assert_eq!(
        messages[2]["tool_calls"][1]["function"]["name"],
        "gameobject_find"
    );
    let arguments: Value = serde_json::from_str(
        messages[2]["tool_calls"][1]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(arguments, json!({"name": "Player", "match_mode": null}));
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_a");
    let envelope: Value = serde_json::from_str(messages[3]["content"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["data"]["scenes"][0]["name"], "Main");
    assert_eq!(messages[4]["tool_call_id"], "call_b");
    let envelope: Value = serde_json::from_str(messages[4]["content"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["data"]["results"][0]["id"], 4);

    // Recorded like any run, and replayed without the server.
    let trace = fx.team.trace(&handle).unwrap();
    assert_eq!(trace.model, "local/qwen-test");
    assert_eq!(trace.temperature, Some(0.3));
    let (_dir, dispatcher) = crate::common::fresh_project();
    let report =
        buril_team::replay(&trace, &dispatcher, &buril_team::ReplayOptions::default()).unwrap();
    assert!(report.is_match(), "{}", report.message);
}

#[test]
fn without_the_key_variable_no_authorization_is_sent_and_the_endpoint_model_is_used() {
    let server = Server::start(vec![final_message("Nothing to do.")]);
    let client = OpenAiCompatible::new(server.base_url(), "server-default")
        .api_key_env("BURIL_TEAM_TEST_KEY_THAT_IS_NEVER_SET");
    let fx = Fixture::with(Team::builder().model("default", client));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Done);
    assert_eq!(run.report.as_deref(), Some("Nothing to do."));
    let received = server.received();
    assert_eq!(received[0].header("authorization"), None);
    assert_eq!(received[0].body["model"], "server-default");
    assert!(received[0].body.get("temperature").is_none());
}

#[test]
fn a_server_error_errors_the_run_with_its_message() {
    let server = Server::start(vec![Answer::Json(
        500,
        json!({"error": {"message": "the model is overloaded", "type": "server_error"}}),
    )]);
    let client = OpenAiCompatible::new(server.base_url(), "m");
    let fx = Fixture::with(Team::builder().model("default", client));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored);
    let error = run.error.unwrap();
    assert!(
        error.starts_with("the model failed: http://127.0.0.1:")
            && error.ends_with("/v1/chat/completions answered HTTP 500: the model is overloaded"),
        "{error}"
    );
}

#[test]
fn an_unreachable_or_silent_server_errors_within_the_timeout() {
    // Nothing listens on the port of a listener that was closed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = OpenAiCompatible::new(format!("http://127.0.0.1:{port}/v1"), "m");
    let fx = Fixture::with(Team::builder().model("default", client));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored);
    assert!(run.error.unwrap().contains("cannot connect"));

    // A server that never answers and holds the connection open as long as the test runs:
    // only the client's timeout can end the run, and it does, saying so.
    let server = Server::start(vec![Answer::Hang]);
    let client = OpenAiCompatible::new(server.base_url(), "m").timeout(Duration::from_millis(200));
    let fx = Fixture::with(Team::builder().model("default", client));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored);
    assert!(run.error.unwrap().contains("did not answer within 0.2 s"));
}

#[test]
fn cancelling_while_the_model_thinks_ends_the_run_at_once() {
    let server = Server::start(vec![Answer::Hang]);
    let client = OpenAiCompatible::new(server.base_url(), "m");
    let fx = Fixture::with(Team::builder().model("default", client));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    wait_until("the model's request to arrive", || server.holding() > 0);
    // The server never answers and holds the connection open as long as the test runs, and
    // the client's own timeout is two minutes, far past the wait below: only the cancellation
    // can end the run.
    fx.ok("agent_team_cancel", json!({"handle": handle}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Cancelled);
}

#[test]
fn replies_are_read_in_the_forms_servers_give() {
    // Ollama may give arguments as an object, and llama.cpp may leave ids out.
    let reply = OpenAiCompatible::parse_reply(&json!({
        "choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "scene_list", "arguments": {}}},
            {"function": {"name": "gameobject_get", "arguments": "{\"id\": 4}"}},
            {"function": {"name": "console_read", "arguments": ""}},
        ]}}],
    }))
    .unwrap();
    let ModelReply::ToolCalls(calls) = reply else {
        panic!("{reply:?}")
    };
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1", "call_2"]);
    assert_eq!(calls[1].input, json!({"id": 4}));
    assert_eq!(calls[2].input, json!({}));

    // Content as parts; a plain-text report.
    let reply = OpenAiCompatible::parse_reply(&json!({
        "choices": [{"message": {"content": [{"type": "text", "text": "All "}, {"type": "text", "text": "done."}]}}],
    }))
    .unwrap();
    assert_eq!(
        reply,
        ModelReply::Report(buril_team::Report::text("All done."))
    );

    // An error object, and an answer with no choices.
    let error =
        OpenAiCompatible::parse_reply(&json!({"error": {"message": "bad key"}})).unwrap_err();
    assert_eq!(error.to_string(), "the model server refused: bad key");
    assert!(OpenAiCompatible::parse_reply(&json!({"choices": []})).is_err());
}

#[test]
fn request_bodies_leave_out_what_is_not_set() {
    let client = OpenAiCompatible::new("http://127.0.0.1:1/v1/", "m");
    assert_eq!(client.endpoint(), "http://127.0.0.1:1/v1/chat/completions");
    let body = client.request_body(&buril_team::ModelRequest {
        specialist: "x".to_owned(),
        model: None,
        temperature: None,
        system_prompt: "s".to_owned(),
        brief: "b".to_owned(),
        tools: Vec::new(),
        history: Vec::new(),
    });
    assert_eq!(
        body,
        json!({"model": "m", "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "b"},
        ]})
    );
}
