//! Every tool is linked, named, documented and described by schemas providers accept.

use serde_json::Value;

// Links the library, and with it the tools it registers (the agent team's too: the library
// declares specialists), into this test binary.
use tools as _;

const TOOLS: &[&str] = &[
    "agent_team_cancel",
    "agent_team_handoff",
    "agent_team_list_specialists",
    "agent_team_list_traces",
    "agent_team_query",
    "agent_team_read_trace",
    "agent_team_record",
    "agent_team_replay",
    "asset_create_folder",
    "asset_create_material",
    "asset_delete",
    "asset_list",
    "asset_move",
    "asset_read",
    "asset_search",
    "console_clear",
    "console_log",
    "console_read",
    "editor_play_mode_set",
    "editor_selection_get",
    "editor_selection_set",
    "editor_state",
    "gameobject_add_component",
    "gameobject_create",
    "gameobject_destroy",
    "gameobject_find",
    "gameobject_get",
    "gameobject_remove_component",
    "gameobject_rename",
    "gameobject_set_active",
    "gameobject_set_parent",
    "gameobject_set_transform",
    "mcp_list_servers",
    "mcp_register_external",
    "mcp_unregister_external",
    "scene_close",
    "scene_create",
    "scene_list",
    "scene_list_gameobjects",
    "scene_open",
    "scene_render_map",
    "scene_save",
    "scene_set_active",
    "script_check",
    "script_create",
    "script_find_references",
    "script_list",
    "unity_clear_console",
    "unity_compile_scripts",
    "unity_execute_menu_item",
    "unity_read_console",
    "unity_run_tests",
    "unity_set_play_mode",
];

fn tools() -> Vec<&'static buril::ToolDescriptor> {
    buril::registry().linked().to_vec()
}

#[test]
fn every_tool_is_registered() {
    let names: Vec<&str> = tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, TOOLS);
    assert_eq!(
        buril::registry().families(),
        [
            "agent_team",
            "asset",
            "console",
            "editor",
            "gameobject",
            "mcp",
            "scene",
            "script",
            "unity"
        ]
    );
}

#[test]
fn names_follow_the_family_verb_rule() {
    for tool in tools() {
        let name = tool.name();
        assert!(
            name.starts_with(&format!("{}_", tool.family())),
            "{name} is not in its family {}",
            tool.family()
        );
        assert!(
            name.split('_')
                .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase())),
            "{name} is not lowercase snake case"
        );
    }
}

#[test]
fn flags_match_what_each_tool_does() {
    let dangerous: Vec<&str> = tools()
        .iter()
        .filter(|t| t.is_dangerous())
        .map(|t| t.name())
        .collect();
    // Registering an external server runs a program.
    // So do a menu item and the project's tests.
    assert_eq!(
        dangerous,
        [
            "asset_delete",
            "mcp_register_external",
            "unity_execute_menu_item",
            "unity_run_tests"
        ]
    );

    let off_thread: Vec<&str> = tools()
        .iter()
        .filter(|t| t.threading().is_off_thread())
        .map(|t| t.name())
        .collect();
    assert_eq!(
        off_thread,
        [
            "agent_team_cancel",
            "agent_team_handoff",
            "agent_team_list_specialists",
            "agent_team_list_traces",
            "agent_team_query",
            "agent_team_read_trace",
            "agent_team_record",
            "asset_list",
            "asset_read",
            "asset_search",
            "console_read",
            "mcp_list_servers",
            "mcp_register_external",
            "mcp_unregister_external",
            "scene_list",
            "script_check",
            "script_find_references",
            "script_list",
            "unity_compile_scripts",
            "unity_run_tests"
        ]
    );
    // The agent team's verbs run off the main thread so that a run can be polled and cancelled
    // while one of its main-thread tools holds it; they touch the team, not editor state. The
    // `mcp_` tools touch the hub's external servers, not editor state either; a `unity_` tool's
    // placement is the editor's, whose `[OffThread]` classes go back to its main thread for
    // what only that thread may do.
    for tool in tools().iter().filter(|t| {
        t.threading().is_off_thread() && !["agent_team", "mcp", "unity"].contains(&t.family())
    }) {
        assert_eq!(
            tool.annotations().read_only,
            Some(true),
            "{} runs off the main thread, so it must not change editor state",
            tool.name()
        );
    }

    let asynchronous: Vec<&str> = tools()
        .iter()
        .filter(|t| t.is_async())
        .map(|t| t.name())
        .collect();
    // The agent team's verbs that wait on a run's task (or start it) await, as does every call
    // of a tool done in the editor (its request on the way there).
    assert_eq!(
        asynchronous,
        [
            "agent_team_cancel",
            "agent_team_handoff",
            "agent_team_query",
            "agent_team_record",
            "asset_read",
            "mcp_register_external",
            "unity_clear_console",
            "unity_compile_scripts",
            "unity_execute_menu_item",
            "unity_read_console",
            "unity_run_tests",
            "unity_set_play_mode"
        ]
    );

    let aliased: Vec<(&str, Vec<&str>)> = tools()
        .iter()
        .filter(|t| !t.aliases().is_empty())
        .map(|t| (t.name(), t.aliases().iter().map(|a| a.as_ref()).collect()))
        .collect();
    assert_eq!(
        aliased,
        [
            ("console_read", vec!["console_get_logs"]),
            ("gameobject_set_transform", vec!["gameobject_set_position"]),
            ("scene_list_gameobjects", vec!["scene_get_hierarchy"]),
        ]
    );
}

#[test]
fn annotations_are_consistent() {
    for tool in tools() {
        let a = tool.annotations();
        assert!(
            a.title.as_ref().is_some_and(|t| !t.is_empty()),
            "{} has no title",
            tool.name()
        );
        if a.read_only == Some(true) {
            assert_ne!(
                a.destructive,
                Some(true),
                "{} is read-only and destructive",
                tool.name()
            );
        }
    }
    for name in [
        "asset_delete",
        "console_clear",
        "gameobject_destroy",
        "scene_close",
    ] {
        let tool = buril::registry().get(name).unwrap();
        assert_eq!(tool.annotations().destructive, Some(true), "{name}");
    }
}

#[test]
fn every_tool_and_parameter_is_described() {
    for tool in tools() {
        assert!(
            tool.description().len() > 30,
            "{} has a thin description",
            tool.name()
        );
        let schema = tool.input_schema();
        let properties = schema["properties"].as_object().unwrap();
        for (name, property) in properties {
            let description = property["description"].as_str().unwrap_or_default();
            assert!(
                !description.is_empty(),
                "{}.{name} has no description",
                tool.name()
            );
        }
    }
}

/// Every array schema inside `schema` has `items`; no `$schema` key anywhere.
fn check_schema(tool: &str, which: &str, schema: &Value, at: &str) {
    match schema {
        Value::Object(map) => {
            assert!(
                !map.contains_key("$schema"),
                "{tool} {which} schema has $schema at {at}"
            );
            let is_array = match map.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
                _ => false,
            };
            if is_array {
                assert!(
                    map.contains_key("items"),
                    "{tool} {which} schema: array without items at {at}"
                );
            }
            for (key, value) in map {
                check_schema(tool, which, value, &format!("{at}/{key}"));
            }
        }
        Value::Array(values) => {
            for (i, value) in values.iter().enumerate() {
                check_schema(tool, which, value, &format!("{at}/{i}"));
            }
        }
        _ => {}
    }
}

#[test]
fn schemas_are_objects_that_providers_accept() {
    for tool in tools() {
        for (which, schema) in [
            ("input", tool.input_schema()),
            ("output", tool.output_schema()),
        ] {
            assert_eq!(
                schema["type"],
                "object",
                "{} {which} schema root",
                tool.name()
            );
            check_schema(tool.name(), which, schema, "");
        }
        assert_eq!(
            tool.input_schema()["additionalProperties"],
            false,
            "{} accepts unknown properties",
            tool.name()
        );
    }
}

#[test]
fn vectors_are_structs_not_tuples() {
    let tool = buril::registry().get("gameobject_set_transform").unwrap();
    let vec3 = &tool.input_schema()["$defs"]["Vec3"];
    assert_eq!(vec3["type"], "object");
    assert_eq!(vec3["required"], serde_json::json!(["x", "y", "z"]));
}
