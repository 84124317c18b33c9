//! Tools declared here and done in the editor (`#[tool(editor)]`): a call is validated here,
//! then handed to the link the host connected, and the answer is read back as the declared
//! output; with no link the call answers `unavailable` saying how to connect one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use buril::editor::{self, EditorLink};
use buril::{CallOptions, Dispatcher, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What the declared tool answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Moved {
    /// Where the object is now.
    pub position: [f64; 3],
    /// Its name.
    pub name: String,
}

/// Moves an object in the editor's open scene.
#[buril::tool(editor)]
fn editortest_move_object(
    /// The object's name.
    name: String,
    /// Where to, in world space.
    position: [f64; 3],
) -> Result<Moved, ToolError>;

/// Saves the open scenes in the editor.
#[buril::tool(editor, off_thread)]
fn editortest_save_scenes();

/// Lists the names of the open scenes in the editor.
#[buril::tool(editor, read_only)]
fn editortest_open_scenes() -> Result<Vec<String>, ToolError>;

/// Captures the editor's Game view as a PNG image.
#[buril::tool(editor, read_only)]
fn editortest_capture() -> Result<buril::content::Image, ToolError>;

/// The link is one per process: the tests of this file take turns.
fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// A link answering `answer` for every call, counting them and keeping the last input.
struct Scripted {
    answer: Result<Value, ToolError>,
    calls: AtomicUsize,
    last: Mutex<Option<(String, Value)>>,
}

impl EditorLink for Scripted {
    fn call(
        &self,
        _ctx: buril::Context,
        tool: &'static str,
        input: Value,
    ) -> buril::provided::BoxFuture {
        self.calls.fetch_add(1, Ordering::SeqCst);
        *self.last.lock().unwrap() = Some((tool.to_owned(), input));
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

fn connect(answer: Result<Value, ToolError>) -> Arc<Scripted> {
    let link = Arc::new(Scripted {
        answer,
        calls: AtomicUsize::new(0),
        last: Mutex::new(None),
    });
    editor::connect(Arc::clone(&link) as Arc<dyn EditorLink>);
    link
}

fn call(name: &str, input: Value) -> Value {
    Dispatcher::global()
        .invoke(name, input, CallOptions::default())
        .into_envelope()
}

#[test]
fn a_declaration_is_a_tool_like_any_other() {
    let tool = buril::registry().get("editortest_move_object").unwrap();
    let meta = tool.meta();
    assert!(meta.editor);
    assert_eq!(meta.family, "editortest");
    assert_eq!(
        meta.description,
        "Moves an object in the editor's open scene."
    );
    let input = tool.input_schema();
    assert_eq!(input["required"], json!(["name", "position"]), "{input}");
    assert_eq!(
        input["properties"]["name"]["description"],
        "The object's name."
    );
    let output = tool.output_schema();
    assert!(output["properties"]["position"].is_object(), "{output}");
    // The placement is the editor's; the hash says the tool is done there.
    let save = buril::registry().get("editortest_save_scenes").unwrap();
    assert_eq!(save.meta().threading, buril::Threading::OffThread);
    assert_ne!(tool.metadata_hash(), save.metadata_hash());
}

#[test]
fn without_a_link_a_call_answers_unavailable_and_says_how_to_connect() {
    let _turn = turn();
    editor::disconnect();
    let envelope = call(
        "editortest_move_object",
        json!({"name": "Player", "position": [0, 1, 2]}),
    );
    assert_eq!(envelope["ok"], false, "{envelope}");
    assert_eq!(envelope["type"], "unavailable", "{envelope}");
    let error = envelope["error"].as_str().unwrap();
    assert!(
        error.contains("`editortest_move_object` is done in the Unity editor"),
        "{error}"
    );
    assert!(error.contains("--editor"), "{error}");
}

#[test]
fn input_is_validated_here_and_never_reaches_the_editor_when_invalid() {
    let _turn = turn();
    let link = connect(Ok(json!({"position": [0.0, 1.0, 2.0], "name": "Player"})));
    let envelope = call(
        "editortest_move_object",
        json!({"name": 3, "position": [0, 1]}),
    );
    assert_eq!(envelope["type"], "validation", "{envelope}");
    let pointers: Vec<&str> = envelope["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| problem["path"].as_str().unwrap())
        .collect();
    assert!(pointers.contains(&"/name"), "{envelope}");
    assert!(pointers.contains(&"/position"), "{envelope}");
    assert_eq!(link.calls.load(Ordering::SeqCst), 0);

    let envelope = call(
        "editortest_move_object",
        json!({"name": "Player", "position": [0, 1, 2]}),
    );
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert_eq!(
        envelope["data"],
        json!({"position": [0.0, 1.0, 2.0], "name": "Player"})
    );
    assert_eq!(link.calls.load(Ordering::SeqCst), 1);
    let (tool, input) = link.last.lock().unwrap().clone().unwrap();
    assert_eq!(tool, "editortest_move_object");
    assert_eq!(input, json!({"name": "Player", "position": [0, 1, 2]}));
    editor::disconnect();
}

#[test]
fn an_answer_the_declaration_does_not_promise_is_a_runtime_failure() {
    let _turn = turn();
    connect(Ok(json!({"position": "nowhere"})));
    let envelope = call(
        "editortest_move_object",
        json!({"name": "Player", "position": [0, 1, 2]}),
    );
    assert_eq!(envelope["type"], "runtime", "{envelope}");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("not what its declaration promises"),
        "{envelope}"
    );
    editor::disconnect();
}

#[test]
fn the_editors_errors_keep_their_kind_and_a_unit_declaration_answers_the_empty_object() {
    let _turn = turn();
    connect(Err(ToolError::invalid("no object named `Ghost`")));
    let envelope = call(
        "editortest_move_object",
        json!({"name": "Ghost", "position": [0, 0, 0]}),
    );
    assert_eq!(envelope["type"], "validation", "{envelope}");
    assert_eq!(envelope["error"], "no object named `Ghost`");

    connect(Ok(json!({"anything": "the editor said"})));
    let envelope = call("editortest_save_scenes", json!({}));
    assert_eq!(envelope, json!({"ok": true, "data": {}}));
    editor::disconnect();
}

#[test]
fn an_output_that_is_not_an_object_comes_back_as_the_data_the_editor_gave() {
    let _turn = turn();
    // What the C# stub answers: the data as the output schema has it.
    connect(Ok(json!({"result": ["Main", "Menu"]})));
    let envelope = call("editortest_open_scenes", json!({}));
    assert_eq!(
        envelope,
        json!({"ok": true, "data": {"result": ["Main", "Menu"]}})
    );

    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    connect(Ok(json!({"content": [image.clone()]})));
    let envelope = call("editortest_capture", json!({}));
    assert_eq!(envelope, json!({"ok": true, "data": {"content": [image]}}));
    editor::disconnect();
}
