//! Every example tool called once through generated bindings against a real server: the
//! calls (an order that works on a fresh example project) and the check of what the program
//! that made them printed.

use std::path::Path;

use serde_json::{Value, json};

/// Every example tool, in an order that works on a fresh example project (a scene open before
/// the game-object tools, `"$id"` for the game object created last, `"$handle"` for the run
/// started last): (tool, input).
pub fn calls() -> Vec<(&'static str, Value)> {
    let main = "Assets/Scenes/Main.scene";
    let extra = "Assets/Scenes/Extra.scene";
    vec![
        ("editor_state", json!({})),
        ("scene_list", json!({})),
        ("scene_open", json!({"path": main})),
        (
            "scene_create",
            json!({"path": extra, "template": null, "open": false}),
        ),
        ("scene_open", json!({"path": extra, "additive": true})),
        ("scene_set_active", json!({"scene": main})),
        (
            "scene_list_gameobjects",
            json!({"include_components": true, "max_depth": 3}),
        ),
        ("scene_render_map", json!({"size": 64})),
        (
            "gameobject_create",
            json!({"name": "Enemy", "primitive": "cube", "position": {"x": 1.0, "y": 0.5, "z": -2.0}}),
        ),
        ("gameobject_get", json!({"id": "$id"})),
        (
            "gameobject_find",
            json!({"name": "Enemy", "include_inactive": true}),
        ),
        ("gameobject_rename", json!({"id": "$id", "name": "Boss"})),
        (
            "gameobject_set_active",
            json!({"id": "$id", "active": false}),
        ),
        (
            "gameobject_set_transform",
            json!({"id": "$id", "position": {"x": 0.0, "y": 1.0, "z": 0.0}, "scale": {"x": 2.0, "y": 2.0, "z": 2.0}}),
        ),
        (
            "gameobject_add_component",
            json!({"id": "$id", "component_type": "Rigidbody", "properties": {"mass": 2.5}}),
        ),
        (
            "gameobject_remove_component",
            json!({"id": "$id", "component_type": "Rigidbody"}),
        ),
        ("gameobject_create", json!({"name": "Loose"})),
        ("gameobject_set_parent", json!({"id": "$id"})),
        ("editor_selection_set", json!({"ids": ["$id"]})),
        ("editor_selection_get", json!({})),
        ("editor_play_mode_set", json!({"mode": "playing"})),
        ("editor_play_mode_set", json!({"mode": "stopped"})),
        ("gameobject_destroy", json!({"id": "$id"})),
        ("scene_save", json!({"scene": main})),
        (
            "scene_close",
            json!({"scene": extra, "discard_changes": true}),
        ),
        ("asset_list", json!({"recursive": true, "max_results": 50})),
        (
            "asset_read",
            json!({"path": "Assets/Scripts/PlayerController.cs"}),
        ),
        (
            "asset_search",
            json!({"query": "Player", "case_sensitive": false}),
        ),
        ("asset_create_folder", json!({"path": "Assets/Temp/Deep"})),
        (
            "asset_create_material",
            json!({"path": "Assets/Temp/Blue.mat", "color": {"r": 0.0, "g": 0.0, "b": 1.0}, "properties": {"_Glossiness": 0.5}}),
        ),
        (
            "asset_move",
            json!({"from": "Assets/Temp/Blue.mat", "to": "Assets/Temp/Deep/Blue.mat"}),
        ),
        (
            "asset_delete",
            json!({"path": "Assets/Temp", "recursive": true}),
        ),
        ("script_list", json!({})),
        ("script_create", json!({"class_name": "Spinner"})),
        ("script_check", json!({})),
        (
            "script_find_references",
            json!({"symbol": "PlayerController"}),
        ),
        (
            "console_log",
            json!({"message": "hello", "level": "warning"}),
        ),
        ("console_read", json!({"max_count": 10})),
        ("console_clear", json!({})),
        ("agent_team_list_specialists", json!({})),
        (
            "agent_team_handoff",
            json!({"specialist": "scene-inspector", "brief": "List the scenes."}),
        ),
        ("agent_team_query", json!({"handle": "$handle"})),
        ("agent_team_cancel", json!({"handle": "$handle"})),
        (
            "agent_team_record",
            json!({"handle": "$handle", "output_path": "trace.json"}),
        ),
        ("agent_team_replay", json!({"trace_path": "trace.json"})),
        ("agent_team_list_traces", json!({})),
        ("agent_team_read_trace", json!({"trace_path": "trace.json"})),
        ("mcp_list_servers", json!({})),
        (
            "mcp_register_external",
            json!({"name": "nowhere", "command": "/nonexistent/buril-test-server"}),
        ),
        ("mcp_unregister_external", json!({"name": "nowhere"})),
    ]
}

/// The failures a tool may answer with in [`calls`]: an agent team's tools have no model to
/// reach (`runtime`); registering a server is dangerous, off unless the server allows dangerous
/// tools (`disabled`), and unregistering it then finds none (`validation`).
fn may_fail_with(tool: &str) -> Option<&'static str> {
    if tool.starts_with("agent_team_") {
        return Some("runtime");
    }
    match tool {
        "mcp_register_external" => Some("disabled"),
        "mcp_unregister_external" => Some("validation"),
        _ => None,
    }
}

/// Writes [`calls`] to `file` as a JSON array of `{tool, input}`.
pub fn write_calls(file: &Path) {
    let list: Vec<Value> = calls()
        .iter()
        .map(|(tool, input)| json!({"tool": tool, "input": input}))
        .collect();
    std::fs::write(file, serde_json::to_string(&list).expect("JSON")).expect("written");
}

/// Checks what a program that made [`calls`] printed (`{serverMetadataHash, outcomes: [{tool,
/// input, ok, data | toolError, type, error | text}]}`): every registry tool called, each input
/// as sent valid against the tool's input schema, each answer either data valid against the
/// output schema or (agent-team tools only, with no model reachable) a `runtime` envelope from
/// the server; never a transport failure or a refusal of the input; and the server's hash read
/// back as `hash`. The server's tools are the registry's but for the test-only `zoo` family
/// (linked into some test binaries, never into the `tools` binary).
pub fn check(result: &Value, hash: &str) {
    let calls = calls();
    let registry = buril::registry();
    let mut called: Vec<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    called.sort_unstable();
    called.dedup();
    let mut names: Vec<&str> = registry
        .linked()
        .iter()
        .copied()
        // A tool done in the editor answers `unavailable` here, with no editor connected
        // (interop/tests/csharp/editor.rs calls them through one).
        .filter(|d| d.family() != "zoo" && !d.meta().editor)
        .map(|d| d.name())
        .collect();
    names.sort_unstable();
    assert_eq!(called, names, "the tools called are the server's");
    assert_eq!(names.len(), 47, "the example tools: {names:?}");

    assert_eq!(result["serverMetadataHash"], hash, "{result}");
    let outcomes = result["outcomes"].as_array().expect("outcomes");
    assert_eq!(outcomes.len(), calls.len(), "{result}");
    for ((tool, _), outcome) in calls.iter().zip(outcomes) {
        assert_eq!(outcome["tool"], *tool);
        let descriptor = registry.get(tool).expect("a tool");
        let input = jsonschema::validator_for(descriptor.input_schema()).expect("a schema");
        assert!(
            input.is_valid(&outcome["input"]),
            "{tool}: the sample is not valid input: {}",
            outcome["input"]
        );
        if outcome["ok"] == true {
            let output = jsonschema::validator_for(descriptor.output_schema()).expect("a schema");
            assert!(
                output.is_valid(&outcome["data"]),
                "{tool}: the output does not match its schema: {}",
                outcome["data"]
            );
        } else {
            let expected = may_fail_with(tool);
            assert!(expected.is_some(), "{tool} failed: {outcome}");
            assert_eq!(outcome["toolError"], true, "{tool}: {outcome}");
            assert_eq!(
                outcome["type"],
                expected.unwrap_or_default(),
                "{tool}: {outcome}"
            );
        }
    }
}
