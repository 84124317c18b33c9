//! A tool asking its caller mid-call through the dispatcher: the answers reach it, the keys
//! are the same each run, a caller that cannot answer is an error at once, and an async tool
//! waiting for an answer does not stall the other calls on the runtime.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use buril::context::{Asked, Elicited, InputKind, InputRequest, InputSource, Sampling};
use buril::{CallOptions, Context, Dispatcher, ToolError};
use serde_json::{Value, json};

/// What a form asks for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// A name.
    name: String,
}

/// Asks a name, a completion and the roots, and answers with all three.
#[buril::tool(off_thread)]
fn ask_three(ctx: &Context) -> Result<Value, ToolError> {
    let name = match ctx.elicit::<Name>("Who?")? {
        Elicited::Accepted(form) => form.name,
        _ => "nobody".to_owned(),
    };
    let text = ctx.sample(Sampling::prompt("Greet."))?.text;
    let roots = ctx.roots()?;
    Ok(json!({"name": name, "text": text, "roots": roots.len()}))
}

/// Asks for a confirmation from an async tool.
#[buril::tool(off_thread)]
async fn ask_async(ctx: &Context) -> Result<bool, ToolError> {
    ctx.confirm("Go on?")
}

/// Answers at once, from an async tool.
#[buril::tool(off_thread)]
async fn ask_quick() -> u32 {
    7
}

/// Answers from a list, in order, and records every key and method asked.
#[derive(Default)]
struct Listed {
    answers: Mutex<Vec<Value>>,
    asked: Mutex<Vec<(String, &'static str)>>,
}

impl InputSource for Listed {
    fn supports(&self, _kind: InputKind) -> bool {
        true
    }

    fn ask(&self, _ctx: &Context, key: &str, request: &InputRequest) -> Asked {
        self.asked
            .lock()
            .unwrap()
            .push((key.to_owned(), request.method()));
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            Asked::Refused("no answer left".into())
        } else {
            Asked::Answer(answers.remove(0))
        }
    }
}

fn answers() -> Vec<Value> {
    vec![
        json!({"action": "accept", "content": {"name": "Ada"}}),
        json!({"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "m"}),
        json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
    ]
}

#[test]
fn answers_reach_the_tool_under_the_same_keys_each_run() {
    let dispatcher = Dispatcher::builder().build();
    for _ in 0..2 {
        let source = Arc::new(Listed::default());
        *source.answers.lock().unwrap() = answers();
        let outcome = dispatcher.invoke(
            "ask_three",
            json!({}),
            CallOptions::new().input(Arc::clone(&source) as Arc<dyn InputSource>),
        );
        assert_eq!(
            outcome.data(),
            Some(&json!({"result": {"name": "Ada", "text": "Hello", "roots": 2}})),
            "{outcome:?}"
        );
        let asked = source.asked.lock().unwrap().clone();
        assert_eq!(
            asked,
            [
                ("elicit_1".to_owned(), "elicitation/create"),
                ("sample_2".to_owned(), "sampling/createMessage"),
                ("roots_3".to_owned(), "roots/list"),
            ]
        );
    }
}

#[test]
fn nobody_to_answer_is_an_error_at_once() {
    let dispatcher = Dispatcher::builder().build();
    let outcome = dispatcher.invoke("ask_three", json!({}), CallOptions::new());
    let error = outcome.error().expect("an error");
    assert!(
        error
            .message()
            .contains("`ask_three` asked its caller for input (elicitation/create)")
            && error.message().contains("cannot answer"),
        "{}",
        error.message()
    );
    // A source that refuses says why.
    let source = Arc::new(Listed::default());
    let outcome = dispatcher.invoke(
        "ask_three",
        json!({}),
        CallOptions::new().input(source as Arc<dyn InputSource>),
    );
    assert!(
        outcome
            .error()
            .is_some_and(|e| e.message().contains("no answer left")),
        "{outcome:?}"
    );
}

/// Says when a question reached it, then blocks its answer until it is told to go (or five
/// seconds pass, and then says no).
struct Gate {
    asked: Mutex<Sender<()>>,
    go: Mutex<Receiver<()>>,
}

impl InputSource for Gate {
    fn supports(&self, _kind: InputKind) -> bool {
        true
    }

    fn ask(&self, _ctx: &Context, _key: &str, _request: &InputRequest) -> Asked {
        let _ = self.asked.lock().unwrap().send(());
        let allowed = self
            .go
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(5))
            .is_ok();
        Asked::Answer(json!({"action": "accept", "content": {"confirm": allowed}}))
    }
}

/// An async tool waiting for its caller's answer on the runtime's only worker: the other
/// calls still run (the wait hands the worker's tasks on), and only once they are done does the
/// gate let the answer through. Were the worker stalled, they could not finish, the gate would
/// give up, and the answer would be no.
#[test]
fn an_async_tool_waiting_for_an_answer_does_not_stall_the_runtime() {
    let dispatcher = Dispatcher::builder().worker_threads(1).build();
    let (go, gate): (Sender<()>, Receiver<()>) = channel();
    let (asked, waiting) = channel();
    let source = Arc::new(Gate {
        asked: Mutex::new(asked),
        go: Mutex::new(gate),
    });
    let asking = {
        let dispatcher = dispatcher.clone();
        std::thread::spawn(move || {
            dispatcher.invoke(
                "ask_async",
                json!({}),
                CallOptions::new().input(source as Arc<dyn InputSource>),
            )
        })
    };
    // Once the asking call waits for its answer, the quick calls run meanwhile.
    waiting
        .recv_timeout(buril_test_support::WAIT)
        .expect("the asking call reached its question");
    for _ in 0..5 {
        let quick = dispatcher.invoke("ask_quick", json!({}), buril::CallOptions::default());
        assert_eq!(quick.data(), Some(&json!({"result": 7})), "{quick:?}");
    }
    go.send(()).unwrap();
    let asked = asking.join().unwrap();
    assert_eq!(asked.data(), Some(&json!({"result": true})), "{asked:?}");
}
