//! The security model's promises about which tools run: dangerous tools are off by default,
//! the policy decides by the tool's own name, and a tool view cannot be escaped by an alias, a
//! change of case, a glob or a lookalike name.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use buril::policy::ToolPattern;
use buril::{CallOptions, Dispatcher, Policy, ToolView};
use serde_json::json;

/// How many times `sec_wipe` actually ran.
static WIPES: AtomicUsize = AtomicUsize::new(0);

/// Reads something harmless.
#[buril::tool(aliases = ["view_peek"])]
fn sec_read() -> u8 {
    1
}

/// Wipes everything (a stand-in for a destructive tool).
#[buril::tool(dangerous, aliases = ["view_wipe", "sec_clear"])]
fn sec_wipe() -> u8 {
    WIPES.fetch_add(1, Ordering::SeqCst);
    2
}

const WIPE_NAMES: [&str; 3] = ["sec_wipe", "view_wipe", "sec_clear"];

#[test]
fn dangerous_tools_are_off_by_default_under_every_name() {
    let dispatcher = Dispatcher::new();
    for name in WIPE_NAMES {
        let envelope = dispatcher
            .invoke(name, json!({}), buril::CallOptions::default())
            .into_envelope();
        assert_eq!(envelope["type"], "disabled", "{name}: {envelope}");
    }
    for name in [
        "SEC_WIPE",
        "Sec_Wipe",
        "sec_wipe ",
        " sec_wipe",
        "sec_wip\u{0435}",
        "sec_*",
        "*",
    ] {
        let envelope = dispatcher
            .invoke(name, json!({}), buril::CallOptions::default())
            .into_envelope();
        assert_eq!(envelope["type"], "not_found", "{name:?}: {envelope}");
    }
    assert_eq!(WIPES.load(Ordering::SeqCst), 0);
}

#[test]
fn a_disable_rule_holds_against_aliases_and_wins_over_enable() {
    let policy = Policy::new()
        .allow_dangerous(true)
        .enable("sec_*".parse().unwrap())
        .disable("sec_wipe".parse().unwrap());
    let dispatcher = Dispatcher::builder().policy(policy).build();
    for name in WIPE_NAMES {
        let envelope = dispatcher
            .invoke(name, json!({}), buril::CallOptions::default())
            .into_envelope();
        assert_eq!(envelope["type"], "disabled", "{name}: {envelope}");
    }
    // Enabling by an alias's prefix does not enable the tool: rules match its own name.
    let policy = Policy::new().enable("view_*".parse().unwrap());
    let dispatcher = Dispatcher::builder().policy(policy).build();
    assert_eq!(
        dispatcher
            .invoke("view_wipe", json!({}), buril::CallOptions::default())
            .into_envelope()["type"],
        "disabled"
    );
    assert_eq!(WIPES.load(Ordering::SeqCst), 0);
}

#[test]
fn tool_views_cannot_be_escaped() {
    let dispatcher = Dispatcher::builder()
        .policy(Policy::new().allow_dangerous(true))
        .build();
    let call = |view: &ToolView, name: &str| {
        let options = CallOptions::new().view(Arc::new(view.clone()));
        dispatcher.invoke(name, json!({}), options).into_envelope()
    };
    // A view naming the alias prefix, the reader, or the reader's family.
    for patterns in [
        vec!["view_*"],
        vec!["sec_read"],
        vec!["sec_read", "view_peek"],
    ] {
        let view = ToolView::parse(patterns.iter().copied()).unwrap();
        for name in WIPE_NAMES {
            let envelope = call(&view, name);
            assert_ne!(envelope["ok"], true, "{patterns:?} let {name} through");
        }
        if view.allows("sec_read") {
            assert_eq!(call(&view, "sec_read")["ok"], true);
            // The allowed tool's alias works: it is the same tool.
            assert_eq!(call(&view, "view_peek")["ok"], true);
        }
    }
    // Patterns that would widen a view by case, globs in the middle, or odd characters are
    // refused rather than read loosely.
    for text in [
        "SEC_*",
        "sec_*_x",
        "*sec",
        "sec_wipe|sec_read",
        "sec_**",
        "sec wipe",
        "sec_?",
        "",
    ] {
        assert!(text.parse::<ToolPattern>().is_err(), "{text:?} parsed");
    }
    assert_eq!(WIPES.load(Ordering::SeqCst), 0);
}
