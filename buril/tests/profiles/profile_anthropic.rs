//! The Anthropic profile: the input schema unchanged, and a root `oneOf` refused for that tool
//! alone.

use crate::profile_tools;

use buril::profile::{self, Profile};
use profile_tools::{definitions, empty_input, hand, registry_of, rejected, rendered, root_one_of};
use serde_json::json;

#[test]
fn anthropic_gives_the_input_schema_unchanged() {
    assert_eq!(
        rendered(Profile::Anthropic, "pf_greet"),
        json!({
            "name": "pf_greet",
            "description": "Greets someone.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Who to greet."},
                    "times": {
                        "type": ["integer", "null"],
                        "minimum": 0,
                        "maximum": 4_294_967_295u64,
                        "description": "How many times.",
                    },
                },
                "required": ["name"],
                "additionalProperties": false,
            },
        })
    );
}

#[test]
fn anthropic_rejects_a_root_one_of_and_keeps_the_other_tools() {
    let either = hand("pf_either", root_one_of);
    let error = rejected(Profile::Anthropic, either);
    assert_eq!(error.tool, "pf_either");
    assert_eq!(error.pointer, "/inputSchema/oneOf");
    assert!(error.reason.contains("root `oneOf`"), "{error}");

    let registry = registry_of(vec![either, hand("pf_fine", empty_input)]);
    let (definitions, errors) = definitions(Profile::Anthropic, registry);
    assert_eq!(definitions.len(), 1);
    assert_eq!(definitions[0]["name"], "pf_fine");
    assert_eq!(errors, vec![error]);
    // MCP has no such rule.
    assert!(profile::render(Profile::Mcp, either).is_ok());
}
