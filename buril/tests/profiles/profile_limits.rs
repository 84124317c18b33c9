//! The limits each provider profile checks (`buril::profile::limits`): tool names, nesting
//! depth and enum sizes, refused or turning OpenAI's strict mode off with the reason; and
//! every tool either defined or reported by every profile.

use crate::profile_tools;

use buril::profile::{self, Profile, limits};
use profile_tools::{TOOL_NAMES, definitions, empty_input, hand, many_values, rejected, tool};

#[test]
fn every_tool_is_either_defined_or_reported_by_every_profile() {
    for profile in Profile::ALL {
        let (definitions, errors) = definitions(profile, buril::registry());
        let mut names: Vec<String> = definitions
            .iter()
            .map(|d| d["name"].as_str().expect("a name").to_owned())
            .chain(errors.iter().map(|e| e.tool.clone()))
            .collect();
        names.sort();
        assert_eq!(names, TOOL_NAMES, "{profile}");
        assert!(errors.iter().all(|e| e.profile == profile));
    }
}

#[test]
fn mcp_names_may_have_dots_but_at_most_128_characters() {
    assert!(profile::render(Profile::Mcp, hand("pf.dotted", empty_input)).is_ok());
    let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(126)).into_boxed_str());
    let error = rejected(Profile::Mcp, hand(long, empty_input));
    assert_eq!(error.tool, long);
    assert_eq!(error.pointer, "/name");
    assert!(
        error.reason.contains("129 characters, not 1 to 128"),
        "{error}"
    );
}

#[test]
fn openai_and_anthropic_names_allow_no_dots_and_at_most_64_characters() {
    for profile in [Profile::OpenAi, Profile::Anthropic] {
        let error = rejected(profile, hand("pf.dotted", empty_input));
        assert_eq!((error.tool.as_str(), error.profile), ("pf.dotted", profile));
        assert_eq!(error.pointer, "/name");
        assert_eq!(
            error.reason,
            "`pf.dotted` contains `.`: names must match `^[a-zA-Z0-9_-]{1,64}$`"
        );
        let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(62)).into_boxed_str());
        let error = rejected(profile, hand(long, empty_input));
        assert!(
            error.reason.contains("65 characters, not 1 to 64"),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("`{long}` cannot be given to {profile}"))
        );
    }
    assert_eq!(limits::OPENAI_NAME.check(&"a".repeat(64)), Ok(()));
}

#[test]
fn openai_limits_turn_strict_mode_off_with_the_reason() {
    let deep = profile::render(Profile::OpenAi, tool("pf_dig")).unwrap();
    assert_eq!(deep.value["strict"], false);
    assert_eq!(deep.notes[0].pointer, "/inputSchema/$defs/Level10");
    assert!(
        deep.notes[0].message.contains("more than 10 levels"),
        "{:?}",
        deep.notes
    );

    let many = profile::render(Profile::OpenAi, hand("pf_many", many_values)).unwrap();
    assert_eq!(many.value["strict"], false);
    assert!(
        many.notes[0]
            .message
            .contains("1001 enum values, more than 1000"),
        "{:?}",
        many.notes
    );
}

#[test]
fn gemini_checks_depth_enum_values_and_names() {
    let error = rejected(Profile::Gemini, tool("pf_dig"));
    assert_eq!(
        (error.tool.as_str(), error.profile),
        ("pf_dig", Profile::Gemini)
    );
    assert_eq!(error.pointer, "/inputSchema/$defs/Level10");
    assert_eq!(
        error.reason,
        "the schema nests more than 10 levels of objects and arrays"
    );

    let error = rejected(Profile::Gemini, hand("pf_many", many_values));
    assert_eq!(error.tool, "pf_many");
    assert_eq!(
        error.reason,
        "the schema has 1001 enum values, more than 1000"
    );

    let error = rejected(Profile::Gemini, hand("9lives", empty_input));
    assert_eq!(error.pointer, "/name");
    assert!(
        error.reason.contains("must start with a letter or `_`"),
        "{error}"
    );
    assert!(profile::render(Profile::Gemini, hand("pf.dotted:ok", empty_input)).is_ok());
    let long: &'static str = Box::leak(format!("pf_{}", "x".repeat(62)).into_boxed_str());
    assert!(
        rejected(Profile::Gemini, hand(long, empty_input))
            .reason
            .contains("not 1 to 64")
    );

    let error = rejected(Profile::Gemini, tool("pf_dashed"));
    assert_eq!(error.pointer, "/inputSchema/properties/with-dash");
    assert!(error.reason.contains("contains `-`"), "{error}");
}
