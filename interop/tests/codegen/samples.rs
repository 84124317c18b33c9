//! Real values to round-trip through the generated code: inputs, and the data the Rust tools
//! answered with, for the zoo and for the example tools on a fresh project.

use serde_json::{Value, json};

/// One value of a tool's input or output type.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The tool.
    pub tool: String,
    /// `"input"` or `"output"`.
    pub side: &'static str,
    /// The value (for an output: the envelope's `data`).
    pub value: Value,
}

/// Calls: (tool, input). Zoo tools echo; example tools act on a fresh project.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "zoo_shape",
            json!({"shape": {"kind": "circle", "radius": 1.5}}),
        ),
        (
            "zoo_shape",
            json!({"shape": {"kind": "rect", "width": 2.0, "height": 3.0, "label": "door"},
                   "more": [{"kind": "point"}, {"kind": "rect", "width": 1.0, "height": 1.0}]}),
        ),
        ("zoo_loose", json!({"value": 4.25})),
        ("zoo_loose", json!({"value": "text"})),
        ("zoo_loose", json!({"value": {"left": 1, "right": -2}})),
        (
            "zoo_keywords",
            json!({"class": "c", "namespace": "n", "default": true, "function": -7,
                   "type": "right-now", "object": {"k": "v"}, "with-dash": 3}),
        ),
        (
            "zoo_keywords",
            json!({"class": "c", "default": false, "function": 0, "type": "default", "with-dash": 0}),
        ),
        (
            "zoo_numbers",
            json!({"big": 9_007_199_254_740_993u64, "signed": -9_007_199_254_740_993i64,
                   "small": -128, "medium": 4_294_967_295u32, "ratio": 0.5, "maybe": 18_446_744_073_709_551_615u64}),
        ),
        (
            "zoo_numbers",
            json!({"big": 0, "signed": 0, "small": 127, "medium": 0, "ratio": -1.25}),
        ),
        (
            "zoo_maps",
            json!({"tags": {"a": "x", "b": "y"}, "scores": {"s": 1.5},
                   "nested": {"n": [{"kind": "point"}, {"kind": "circle", "radius": 2.0}]}}),
        ),
        ("zoo_maps", json!({"tags": {}, "scores": {}})),
        (
            "zoo_free",
            json!({"value": [1, "two", {"three": null}, true]}),
        ),
        (
            "zoo_free",
            json!({"value": null, "object": {"nested": {"deep": [1.5]}}}),
        ),
        (
            "zoo_tree",
            json!({"root": {"name": "root", "detail": {"note": "n", "weight": 2.0}, "children": [
                {"name": "leaf", "children": [], "detail": null}]}}),
        ),
        ("zoo_unit", json!({})),
        ("zoo_list", json!({"count": 2})),
        ("zoo_renamed", json!({"urgency": "low"})),
        ("zoo_escape", json!({"text": "*/ \" ${x} </summary>"})),
        ("scene_list", json!({})),
        ("scene_open", json!({"path": "Assets/Scenes/Main.scene"})),
        (
            "scene_list_gameobjects",
            json!({"include_components": true}),
        ),
        (
            "gameobject_create",
            json!({"name": "Enemy", "primitive": "cube", "position": {"x": 1.0, "y": 0.5, "z": -2.0},
                   "components": [{"type": "Rigidbody", "properties": {"mass": 2.5}}]}),
        ),
        ("gameobject_find", json!({"name": "Enemy"})),
        ("gameobject_get", json!({"id": 1})),
        ("asset_list", json!({"recursive": true})),
        (
            "console_log",
            json!({"message": "hello", "level": "warning"}),
        ),
        ("console_read", json!({})),
        ("editor_state", json!({})),
        ("script_list", json!({})),
    ]
}

/// Runs every call through a dispatcher over a fresh project and returns the inputs and the
/// data answered. Panics when a call fails: the samples must be real successes.
pub fn samples() -> Vec<Sample> {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let project = tools::Project::open_or_create(folder.path().join("project")).expect("a project");
    let dispatcher = buril::Dispatcher::builder()
        .state(project)
        .policy(buril::Policy::new().allow_dangerous(true))
        .build();
    let mut out = Vec::new();
    for (tool, input) in calls() {
        let outcome = dispatcher.invoke(tool, input.clone(), buril::CallOptions::default());
        let data = match outcome.data() {
            Some(data) => data.clone(),
            None => panic!("sample call {tool} {input} failed: {:?}", outcome.error()),
        };
        out.push(Sample {
            tool: tool.to_owned(),
            side: "input",
            value: input,
        });
        out.push(Sample {
            tool: tool.to_owned(),
            side: "output",
            value: data,
        });
    }
    out
}

/// The samples as a JSON array of `{tool, side, value}`, for harnesses in other languages.
pub fn samples_json() -> Value {
    Value::Array(
        samples()
            .into_iter()
            .map(|s| json!({"tool": s.tool, "side": s.side, "value": s.value}))
            .collect(),
    )
}
