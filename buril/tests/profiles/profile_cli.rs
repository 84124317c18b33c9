//! The CLI's `schema` command: every tool's definition for a provider profile (MCP by
//! default) or one by name, notes and refusals on standard error, its exit codes, and a
//! registry of its own.

use crate::profile_tools;

use std::process::ExitCode;

use buril::cli::Cli;
use buril::profile::Profile;
use profile_tools::{
    TOOL_NAMES, definitions, empty_input, hand, registry_of, rendered, root_one_of,
};
use serde_json::Value;

fn run(cli: Cli, args: &[&str]) -> (ExitCode, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let args = std::iter::once("tools").chain(args.iter().copied());
    let code = cli.run_with(args, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn schema_prints_mcp_definitions_by_default() {
    let (code, out, err) = run(Cli::new(), &["schema"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert_eq!(err, "");
    let printed: Value = serde_json::from_str(&out).unwrap();
    let (expected, _) = definitions(Profile::Mcp, buril::registry());
    assert_eq!(printed, Value::Array(expected));
}

#[test]
fn schema_prints_one_definition_by_name() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "openai", "pf_greet"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed, rendered(Profile::OpenAi, "pf_greet"));

    let (code, out, _) = run(
        Cli::new(),
        &[
            "schema",
            "--profile",
            "openai",
            "--chat-completions",
            "pf_greet",
        ],
    );
    assert_eq!(code, ExitCode::SUCCESS);
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed["function"]["name"], "pf_greet");
}

#[test]
fn schema_notes_non_strict_tools_on_stderr_and_exits_0() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "openai"]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed.as_array().unwrap().len(), TOOL_NAMES.len());
    assert!(
        err.contains(
            "note: `pf_scale`: not strict: an open map (`additionalProperties` with a schema)"
        ),
        "{err}"
    );
}

#[test]
fn schema_lists_rejected_tools_on_stderr_and_exits_1() {
    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "gemini"]);
    assert_eq!(code, ExitCode::from(1));
    let printed: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = printed
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "pf_act", "pf_draw", "pf_greet", "pf_label", "pf_move", "pf_ping", "pf_scale",
            "pf_walk"
        ]
    );
    // The tools given as full JSON Schema are noted, with the reason.
    assert!(
        err.contains(
            "note: `pf_walk`: given as `parametersJsonSchema` (full JSON Schema), since Gemini's \
             OpenAPI subset cannot express it: a recursive type"
        ),
        "{err}"
    );
    assert!(
        err.contains("note: `pf_scale`: given as `parametersJsonSchema`"),
        "{err}"
    );
    // Names and sizes Gemini refuses in either form are errors.
    assert!(
        err.contains("2 tools cannot be given to gemini:\n"),
        "{err}"
    );
    for name in ["pf_dashed", "pf_dig"] {
        assert!(err.contains(&format!("  `{name}` at ")), "{err}");
    }

    let (code, out, err) = run(Cli::new(), &["schema", "--profile", "gemini", "pf_dig"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(out, "");
    assert!(
        err.starts_with("1 tool cannot be given to gemini:\n  `pf_dig` at "),
        "{err}"
    );
}

#[test]
fn schema_over_a_registry_of_its_own() {
    let registry = registry_of(vec![
        hand("pf_either", root_one_of),
        hand("pf_fine", empty_input),
    ]);
    let (code, out, err) = run(
        Cli::new().registry(registry),
        &["schema", "--profile", "anthropic"],
    );
    assert_eq!(code, ExitCode::from(1));
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed.as_array().unwrap().len(), 1);
    assert!(
        err.contains("`pf_either` at /inputSchema/oneOf: the input schema has a root `oneOf`"),
        "{err}"
    );

    let (code, _, err) = run(
        Cli::new().registry(registry),
        &["schema", "--profile", "mcp"],
    );
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
}

#[test]
fn schema_usage_errors() {
    let (code, _, err) = run(Cli::new(), &["schema", "--profile", "claude"]);
    assert_eq!(code, ExitCode::from(2));
    assert!(
        err.contains("[possible values: mcp, openai, anthropic, gemini]"),
        "{err}"
    );

    let (code, _, err) = run(
        Cli::new(),
        &["schema", "--profile", "gemini", "--chat-completions"],
    );
    assert_eq!(code, ExitCode::from(2));
    assert!(
        err.contains("--chat-completions applies to --profile openai only"),
        "{err}"
    );

    let (code, out, err) = run(Cli::new(), &["schema", "pf_gret"]);
    assert_eq!(code, ExitCode::from(1));
    assert_eq!(out, "");
    assert!(err.contains("did you mean `pf_greet`"), "{err}");
}
