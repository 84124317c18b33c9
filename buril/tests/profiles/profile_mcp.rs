//! Provider profiles by name, and the MCP profile: the tool object of `tools/list`, with the
//! registry's schemas made portable.

use crate::profile_tools;

use buril::profile::Profile;
use profile_tools::{rendered, tool, walk};
use serde_json::json;

#[test]
fn profiles_parse_and_print_their_names() {
    for (profile, name) in Profile::ALL.into_iter().zip(Profile::NAMES) {
        assert_eq!(profile.to_string(), name);
        assert_eq!(name.parse::<Profile>(), Ok(profile));
    }
    let error = "claude".parse::<Profile>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "no profile is named `claude`; the profiles are mcp, openai, anthropic, gemini"
    );
}

#[test]
fn mcp_gives_the_tool_object_of_tools_list() {
    let definition = rendered(Profile::Mcp, "pf_move");
    let moved = tool("pf_move");
    // The registry's schema, with its one `type: ["string", "null"]` written as an `anyOf`.
    let mut portable = moved.input_schema().clone();
    assert_eq!(
        portable["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    portable["properties"]["note"] = json!({
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "description": "A note for the log.",
    });
    assert_eq!(
        definition,
        json!({
            "name": "pf_move",
            "title": "Move",
            "description": "Moves a point.",
            "inputSchema": portable,
            "outputSchema": moved.output_schema(),
            "annotations": {"title": "Move", "readOnlyHint": true, "idempotentHint": true},
        })
    );
    // No type arrays: the nullable types are `anyOf`s, which portability checks accept.
    walk(&definition, "", &mut |schema, pointer| {
        if let Some(kind) = schema.get("type") {
            assert!(kind.is_string(), "{pointer}: {kind}");
        }
    });
    let ping = rendered(Profile::Mcp, "pf_ping");
    assert_eq!(
        ping,
        json!({
            "name": "pf_ping",
            "description": "Answers.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        })
    );
    let input = &definition["inputSchema"];
    assert_eq!(input["type"], "object");
    assert!(input.get("$schema").is_none());
}
