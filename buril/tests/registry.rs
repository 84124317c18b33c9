//! The registry: lookup by name and alias, order, families, hand-built descriptors, duplicates,
//! and a dispatcher over a registry of its own.

use buril::__private::{Args, BoxFuture, Invoke};
use buril::__private::{InputSchema, root_schema};
use buril::{
    Context, Dispatcher, Policy, Registry, SourceLocation, ToolDescriptor, ToolError, ToolMeta,
};
use buril_test_support::call;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Value, json};

/// Opens a thing.
#[buril::tool(off_thread, title = "Open", read_only)]
fn reg_open(
    /// What to open.
    what: String,
) -> String {
    format!("opened {what}")
}

/// Closes a thing; once called `reg_shut` and `reg_end`.
#[buril::tool(aliases = ["reg_shut", "reg_end"])]
fn reg_close() {}

/// Lists the things.
#[buril::tool(off_thread)]
fn reg_list() -> Vec<String> {
    vec!["a".into()]
}

/// Hands the work over to another agent.
#[buril::tool(family = "agent_team", off_thread)]
fn agent_team_handoff(
    /// Who takes over.
    to: String,
) -> String {
    to
}

fn meta(name: &'static str, aliases: &'static [&'static str], file: &'static str) -> ToolMeta {
    let mut meta = ToolMeta::new(name);
    meta.description = "A hand-built tool.".into();
    meta.family = "hand".into();
    meta.aliases = aliases.iter().map(|alias| (*alias).into()).collect();
    meta.threading = buril::Threading::OffThread;
    meta.location = SourceLocation {
        file,
        line: 7,
        module: "registry::hand",
    };
    meta
}

fn text_input(generator: &mut SchemaGenerator) -> Schema {
    InputSchema::new(generator)
        .param::<String>("text", "The text.", true)
        .finish()
}

fn no_input(generator: &mut SchemaGenerator) -> Schema {
    InputSchema::new(generator).finish()
}

fn string_output(generator: &mut SchemaGenerator) -> Schema {
    root_schema::<String>(generator)
}

fn echo(_: &Context, mut args: Args) -> Result<Value, ToolError> {
    let text: Option<String> = args.required("text");
    args.finish()?;
    Ok(Value::String(text.unwrap_or_default()))
}

fn shout(_: Context, mut args: Args) -> BoxFuture {
    let text: Option<String> = args.required("text");
    Box::pin(async move {
        args.finish()?;
        Ok(Value::String(text.unwrap_or_default().to_uppercase()))
    })
}

fn leak(descriptor: ToolDescriptor) -> &'static ToolDescriptor {
    Box::leak(Box::new(descriptor))
}

fn echo_tool(
    name: &'static str,
    aliases: &'static [&'static str],
    file: &'static str,
) -> &'static ToolDescriptor {
    leak(ToolDescriptor::new(
        meta(name, aliases, file),
        Invoke::Sync(echo),
        text_input,
        string_output,
    ))
}

#[test]
fn the_binary_registry_is_sorted_with_families() {
    let registry = buril::try_registry().expect("no duplicates in this binary");
    let names: Vec<&str> = registry
        .linked()
        .iter()
        .copied()
        .map(|t| t.name())
        .collect();
    assert_eq!(
        names,
        ["agent_team_handoff", "reg_close", "reg_list", "reg_open"]
    );
    assert_eq!(registry.len(), 4);
    assert!(!registry.is_empty());
    assert_eq!(registry.linked().len(), 4);
    assert_eq!(registry.families(), ["agent_team", "reg"]);
    assert_eq!(
        format!("{registry:?}"),
        r#"["agent_team_handoff", "reg_close", "reg_list", "reg_open"]"#
    );
}

#[test]
fn lookup_by_name_and_by_alias() {
    let registry = buril::registry();
    let found = registry.lookup("reg_close").unwrap();
    assert_eq!(found.tool.name(), "reg_close");
    assert!(!found.via_alias);
    for alias in ["reg_shut", "reg_end"] {
        let found = registry.lookup(alias).unwrap();
        assert_eq!(found.tool.name(), "reg_close");
        assert!(found.via_alias);
        assert!(registry.get(alias).unwrap().same(&found.tool));
    }
    assert!(registry.lookup("reg_missing").is_none());
    assert!(registry.get("REG_OPEN").is_none());
    assert_eq!(registry.suggest("reg_opne"), ["reg_open"]);
    assert!(registry.suggest("zzzzzzzz").is_empty());
}

#[test]
fn descriptors_carry_what_the_attribute_says() {
    let open = buril::registry().get("reg_open").unwrap();
    assert_eq!(open.description(), "Opens a thing.");
    assert_eq!(open.family(), "reg");
    assert!(open.threading().is_off_thread() && !open.is_dangerous() && !open.is_async());
    assert_eq!(open.annotations().title.as_deref(), Some("Open"));
    assert_eq!(open.annotations().read_only, Some(true));
    assert_eq!(open.annotations().destructive, None);
    assert!(open.location().file.ends_with("registry.rs"));
    assert_eq!(open.location().module, "registry");
    assert!(open.location().line > 0);

    let close = buril::registry().get("reg_close").unwrap();
    assert_eq!(close.aliases(), ["reg_shut", "reg_end"]);
    assert!(!close.threading().is_off_thread());
    assert!(close.meta().returns_unit);

    let handoff = buril::registry().get("agent_team_handoff").unwrap();
    assert_eq!(handoff.family(), "agent_team");
}

#[test]
fn a_hand_built_registry_sorts_and_looks_up() {
    let registry = Registry::new([
        echo_tool("hand_zeta", &[], "z.rs"),
        echo_tool("hand_alpha", &["hand_first"], "a.rs"),
        echo_tool("hand_mid", &[], "m.rs"),
    ])
    .unwrap();
    let names: Vec<&str> = registry
        .linked()
        .iter()
        .copied()
        .map(|t| t.name())
        .collect();
    assert_eq!(names, ["hand_alpha", "hand_mid", "hand_zeta"]);
    assert_eq!(registry.families(), ["hand"]);
    assert!(registry.lookup("hand_first").unwrap().via_alias);
    assert_eq!(registry.get("hand_first").unwrap().name(), "hand_alpha");
    assert!(Registry::new([]).unwrap().is_empty());
}

#[test]
fn two_tools_with_one_name_are_rejected_naming_both_places() {
    let error = Registry::new([
        echo_tool("hand_echo", &[], "first.rs"),
        echo_tool("hand_echo", &[], "second.rs"),
        echo_tool("hand_other", &[], "third.rs"),
    ])
    .expect_err("a duplicate name must be rejected");
    assert_eq!(
        error.duplicates,
        [(
            "hand_echo".to_owned(),
            vec![
                "`hand_echo` at first.rs:7".to_owned(),
                "`hand_echo` at second.rs:7".to_owned()
            ]
        )]
    );
    assert_eq!(
        error.to_string(),
        "tool names must be unique in a binary, but:\n  `hand_echo` is claimed by `hand_echo` at \
         first.rs:7 and `hand_echo` at second.rs:7\nrename one of them, or drop the alias"
    );
}

#[test]
fn an_alias_that_is_another_tools_name_is_rejected_naming_both_places() {
    let error = Registry::new([
        echo_tool("hand_old", &[], "old.rs"),
        echo_tool("hand_new", &["hand_old"], "new.rs"),
    ])
    .expect_err("an alias equal to a name must be rejected");
    assert_eq!(error.duplicates.len(), 1);
    let (name, places) = &error.duplicates[0];
    assert_eq!(name, "hand_old");
    assert_eq!(
        places,
        &[
            "an alias of `hand_new` at new.rs:7".to_owned(),
            "`hand_old` at old.rs:7".to_owned()
        ]
    );
    let text = error.to_string();
    assert!(
        text.contains(
            "`hand_old` is claimed by an alias of `hand_new` at new.rs:7 and `hand_old` at old.rs:7"
        ),
        "{text}"
    );

    // Two aliases claiming one name, and several duplicates at once, sorted.
    let error = Registry::new([
        echo_tool("hand_a", &["hand_shared"], "a.rs"),
        echo_tool("hand_b", &["hand_shared"], "b.rs"),
        echo_tool("hand_c", &[], "c1.rs"),
        echo_tool("hand_c", &[], "c2.rs"),
    ])
    .expect_err("shared names must be rejected");
    let names: Vec<&str> = error.duplicates.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["hand_c", "hand_shared"]);
}

#[test]
fn a_dispatcher_serves_a_custom_registry() {
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::new([
            echo_tool("hand_echo", &["hand_say"], "echo.rs"),
            leak(ToolDescriptor::new(
                {
                    let mut meta = meta("hand_shout", &[], "shout.rs");
                    meta.threading = buril::Threading::Main;
                    meta
                },
                Invoke::Async(shout),
                text_input,
                string_output,
            )),
            leak(ToolDescriptor::new(
                {
                    let mut meta = meta("hand_danger", &[], "danger.rs");
                    meta.dangerous = true;
                    meta
                },
                Invoke::Sync(echo),
                text_input,
                string_output,
            )),
        ])
        .unwrap(),
    ));
    let d = Dispatcher::builder().registry(registry).build();
    assert!(std::ptr::eq(d.registry(), registry));
    assert_eq!(
        d.invoke(
            "hand_echo",
            json!({"text": "hi"}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": "hi"}})
    );
    assert_eq!(
        d.invoke(
            "hand_shout",
            json!({"text": "hi"}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": "HI"}})
    );
    let envelope = d
        .invoke(
            "hand_say",
            json!({"text": "x"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["data"]["result"], "x");
    assert_eq!(envelope["warnings"].as_array().unwrap().len(), 1);
    // Validation uses the hand-written schema.
    let envelope = d
        .invoke(
            "hand_echo",
            json!({"txt": "hi"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "validation");
    assert_eq!(envelope["problems"].as_array().unwrap().len(), 2);
    // The policy applies to hand-built tools.
    assert_eq!(
        d.invoke(
            "hand_danger",
            json!({"text": "x"}),
            buril::CallOptions::default()
        )
        .into_envelope()["type"],
        "disabled"
    );
    let allowed = Dispatcher::builder()
        .registry(registry)
        .policy(Policy::new().allow_dangerous(true))
        .build();
    assert_eq!(
        allowed
            .invoke(
                "hand_danger",
                json!({"text": "x"}),
                buril::CallOptions::default()
            )
            .into_envelope()["ok"],
        true
    );
    // The binary's own tools are not in it.
    let envelope = d
        .invoke(
            "reg_open",
            json!({"what": "x"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "not_found");
    // And the binary's dispatcher does not know the hand-built tools.
    assert_eq!(call("hand_echo", json!({"text": "x"}))["type"], "not_found");
}

#[test]
fn a_tool_whose_input_schema_is_not_an_object_is_reported_as_misconfigured() {
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::new([leak(ToolDescriptor::new(
            meta("hand_bad", &[], "bad.rs"),
            Invoke::Sync(echo),
            string_output,
            string_output,
        ))])
        .unwrap(),
    ));
    let d = Dispatcher::builder().registry(registry).build();
    let envelope = d
        .invoke(
            "hand_bad",
            json!({"text": "x"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "runtime");
    let error = envelope["error"].as_str().unwrap();
    assert!(error.starts_with("the tool is misconfigured: "), "{error}");
    assert!(
        error.contains("`hand_bad`") && error.contains("root `type: \"object\"`"),
        "{error}"
    );
}

#[test]
fn a_tool_without_parameters_accepts_only_the_empty_object() {
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::new([leak(ToolDescriptor::new(
            meta("hand_none", &[], "none.rs"),
            Invoke::Sync(|_, args| {
                args.finish()?;
                Ok(json!("done"))
            }),
            no_input,
            string_output,
        ))])
        .unwrap(),
    ));
    let d = Dispatcher::builder().registry(registry).build();
    assert_eq!(
        d.invoke("hand_none", json!({}), buril::CallOptions::default())
            .into_envelope(),
        json!({"ok": true, "data": {"result": "done"}})
    );
    assert_eq!(
        d.invoke("hand_none", json!({"x": 1}), buril::CallOptions::default())
            .into_envelope()["type"],
        "validation"
    );
}

#[test]
fn the_global_dispatcher_cannot_be_replaced_once_used() {
    let global = Dispatcher::global();
    assert!(std::ptr::eq(global.registry(), buril::registry()));
    assert!(Dispatcher::new().install_global().is_err());
    assert_eq!(
        call("reg_open", json!({"what": "door"})),
        json!({"ok": true, "data": {"result": "opened door"}})
    );
}
