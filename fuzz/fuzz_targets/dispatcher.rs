//! The dispatcher: arbitrary bytes checked as raw input text, parsed as JSON and called
//! against every example tool (dangerous ones stay off). Every answer is an envelope.

#![no_main]

use std::sync::OnceLock;

use buril::Dispatcher;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tempfile::TempDir;

fn dispatcher() -> &'static Dispatcher {
    static FIXTURE: OnceLock<(TempDir, Dispatcher)> = OnceLock::new();
    &FIXTURE
        .get_or_init(|| {
            let dir = TempDir::new().unwrap();
            let project = tools::Project::open_or_create(dir.path()).unwrap();
            let dispatcher = Dispatcher::builder().state(project).build();
            (dir, dispatcher)
        })
        .1
}

fuzz_target!(|data: &[u8]| {
    let dispatcher = dispatcher();
    let _ = dispatcher.check_input_text(data);
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for tool in dispatcher.registry().linked().iter().copied() {
        let envelope = dispatcher
            .invoke(tool.name(), input.clone(), buril::CallOptions::default())
            .into_envelope();
        match envelope["ok"] {
            Value::Bool(true) => assert!(envelope.get("data").is_some(), "{envelope}"),
            Value::Bool(false) => {
                assert!(envelope["type"].is_string(), "{envelope}");
                assert!(envelope["error"].is_string(), "{envelope}");
                assert_ne!(envelope["type"], "panic", "{}: {envelope}", tool.name());
            }
            _ => panic!("not an envelope: {envelope}"),
        }
    }
});
