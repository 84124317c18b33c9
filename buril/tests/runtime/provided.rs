//! Tools provided at run time (`buril::provided`): a registry serves them beside its linked
//! tools, found by name, listed in order, validated, gated as a third party's, withdrawn and
//! made unavailable while their provider is gone, every change announced.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use buril::provided::{Args, BoxFuture, ProvidedTool, Provider};
use buril::{DispatcherBuilder, Policy, Registry, ToolDescriptor, ToolMeta};
use buril_test_support::call_on;
use serde_json::{Value, json};

/// Returns the length of its text.
#[buril::tool(off_thread)]
fn local_measure(
    /// The text.
    text: String,
) -> usize {
    text.len()
}

fn linked() -> &'static Registry {
    Registry::leaked([buril::registry()
        .get("local_measure")
        .and_then(|tool| tool.as_linked())
        .expect("the linked tool")])
    .expect("a registry")
}

/// A provided tool `name` that doubles `n`, counting the calls that reach it.
fn doubler(name: &str, calls: &Arc<AtomicUsize>) -> ToolDescriptor {
    let calls = Arc::clone(calls);
    let mut meta = ToolMeta::new(name.to_owned());
    meta.description = "Doubles a number.".into();
    ProvidedTool::new(
        meta,
        json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 0}},
            "required": ["n"],
            "additionalProperties": false,
        }),
    )
    .output_schema(json!({"type": "object", "properties": {"doubled": {"type": "integer"}}}))
    .original_name(format!("{name}-there"))
    .handler(move |_ctx, args: Args| {
        calls.fetch_add(1, Ordering::SeqCst);
        let n = args.into_value()["n"].as_i64().unwrap_or_default();
        Box::pin(async move { Ok(json!({"doubled": n * 2})) }) as BoxFuture
    })
    .build()
    .expect("a valid provided tool")
}

fn dispatcher(registry: &'static Registry, policy: Policy) -> buril::Dispatcher {
    DispatcherBuilder::default()
        .registry(registry)
        .policy(policy)
        .build()
}

#[test]
fn provided_tools_are_served_beside_linked_ones() {
    let registry = linked();
    let calls = Arc::new(AtomicUsize::new(0));
    let provider = Provider::new("maths");
    provider.set_enabled(true);
    let clashes = registry.provide(&provider, vec![doubler("maths_double", &calls)]);
    assert!(clashes.is_empty(), "{clashes:?}");
    let names: Vec<String> = registry.iter().map(|tool| tool.name().to_owned()).collect();
    assert_eq!(names, ["local_measure", "maths_double"]);
    assert_eq!(registry.len(), 2);
    assert_eq!(registry.families(), ["local", "maths"]);
    let tool = registry.get("maths_double").expect("found by name");
    assert!(tool.as_linked().is_none());
    let provenance = tool.provenance().expect("provided");
    assert_eq!(provenance.provider().name(), "maths");
    assert_eq!(provenance.original_name(), Some("maths_double-there"));
    assert!(
        registry
            .get("local_measure")
            .unwrap()
            .provenance()
            .is_none()
    );

    let dispatcher = dispatcher(registry, Policy::new());
    assert_eq!(
        call_on(&dispatcher, "maths_double", json!({"n": 21})),
        json!({"ok": true, "data": {"doubled": 42}})
    );
    assert_eq!(
        call_on(&dispatcher, "local_measure", json!({"text": "four"})),
        json!({"ok": true, "data": {"result": 4}})
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn invalid_input_never_reaches_a_provided_tool() {
    let registry = linked();
    let calls = Arc::new(AtomicUsize::new(0));
    let provider = Provider::new("maths");
    provider.set_enabled(true);
    registry.provide(&provider, vec![doubler("maths_double", &calls)]);
    let dispatcher = dispatcher(registry, Policy::new());
    let envelope = call_on(&dispatcher, "maths_double", json!({"n": -1, "m": true}));
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "validation");
    let problems = envelope["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 2, "{envelope}");
    let pointers: Vec<&str> = problems
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert!(pointers.contains(&"/n"), "{envelope}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_third_partys_tools_stay_off_until_enabled() {
    let registry = linked();
    let calls = Arc::new(AtomicUsize::new(0));
    let provider = Provider::new("maths");
    registry.provide(&provider, vec![doubler("maths_double", &calls)]);

    let off = dispatcher(registry, Policy::new().allow_dangerous(true));
    let envelope = call_on(&off, "maths_double", json!({"n": 1}));
    assert_eq!(envelope["type"], "disabled", "{envelope}");
    let error = envelope["error"].as_str().unwrap();
    assert!(
        error.contains("third party") && error.contains("family:maths"),
        "{error}"
    );

    let by_rule = dispatcher(registry, Policy::new().enable("maths_*".parse().unwrap()));
    assert_eq!(
        call_on(&by_rule, "maths_double", json!({"n": 1}))["ok"],
        true
    );

    provider.set_enabled(true);
    assert_eq!(call_on(&off, "maths_double", json!({"n": 2}))["ok"], true);
    let disabled = dispatcher(
        registry,
        Policy::new().disable("maths_double".parse().unwrap()),
    );
    assert_eq!(
        call_on(&disabled, "maths_double", json!({"n": 2}))["type"],
        "disabled"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn a_clash_is_refused_naming_both_tools_and_the_rest_are_served() {
    let registry = linked();
    let calls = Arc::new(AtomicUsize::new(0));
    let first = Provider::new("first");
    assert!(
        registry
            .provide(&first, vec![doubler("shared_double", &calls)])
            .is_empty()
    );
    let second = Provider::new("second");
    let clashes = registry.provide(
        &second,
        vec![
            doubler("local_measure", &calls),
            doubler("shared_double", &calls),
            doubler("second_double", &calls),
        ],
    );
    let said: Vec<String> = clashes.iter().map(ToString::to_string).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].contains("`local_measure` of `second`")
            && said[0].contains("the linked tool `local_measure`")
            && said[0].contains("provided.rs"),
        "{said:?}"
    );
    assert!(
        said[1].contains("the tool `shared_double` of `first`"),
        "{said:?}"
    );
    assert_eq!(registry.tools_of("second").len(), 1);
    assert!(registry.get("second_double").is_some());
    assert!(
        registry
            .get("local_measure")
            .unwrap()
            .provenance()
            .is_none()
    );
}

#[test]
fn withdrawn_and_unavailable_tools_leave_the_listing_and_say_why() {
    let registry = linked();
    let calls = Arc::new(AtomicUsize::new(0));
    let provider = Provider::new("maths");
    provider.set_enabled(true);
    let mut changes = registry.changes();
    let before = *changes.borrow_and_update();
    registry.provide(&provider, vec![doubler("maths_double", &calls)]);
    assert!(changes.has_changed().unwrap());
    let dispatcher = dispatcher(registry, Policy::new());

    registry.set_unavailable(&provider, Some("its process exited".into()));
    assert_eq!(registry.len(), 1, "listed only while its provider answers");
    let envelope = call_on(&dispatcher, "maths_double", json!({"n": 1}));
    assert_eq!(envelope["type"], "unavailable", "{envelope}");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("its process exited")
    );
    registry.set_unavailable(&provider, None);
    assert_eq!(registry.len(), 2);
    assert_eq!(
        call_on(&dispatcher, "maths_double", json!({"n": 1}))["ok"],
        true
    );

    assert!(registry.withdraw("maths"));
    assert!(!registry.withdraw("maths"));
    assert_eq!(
        call_on(&dispatcher, "maths_double", json!({"n": 1}))["type"],
        "not_found"
    );
    assert_eq!(*changes.borrow_and_update(), before + 4);
}

#[test]
fn a_provided_tool_that_cannot_be_served_is_refused_with_the_reason() {
    let handler = |_ctx, _args| -> BoxFuture { Box::pin(async { Ok(json!({})) }) };
    let made = |name: &str, input: Value| {
        ProvidedTool::new(ToolMeta::new(name.to_owned()), input)
            .handler(handler)
            .build()
    };
    let error = made(
        "x_bad",
        json!({"type": "object", "properties": {"a": {"type": 12}}}),
    )
    .unwrap_err();
    assert!(error.reason.contains("does not compile"), "{error}");
    let error = made("x_bad", json!({"type": "string"})).unwrap_err();
    assert!(error.reason.contains("root"), "{error}");
    let error = made("Bad-Name", json!({"type": "object"})).unwrap_err();
    assert!(
        error.to_string().contains("lowercase snake case"),
        "{error}"
    );
    let error = ProvidedTool::new(ToolMeta::new("x_fine"), json!({"type": "object"}))
        .build()
        .unwrap_err();
    assert!(error.reason.contains("no handler"), "{error}");
}
