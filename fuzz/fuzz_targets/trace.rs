//! The trace reader used by replay: arbitrary bytes read as a trace file answer a trace or
//! an error; a trace that reads also writes and reads back.

#![no_main]

use std::sync::OnceLock;

use buril_team::trace::Trace;
use libfuzzer_sys::fuzz_target;
use tempfile::TempDir;

fn dir() -> &'static TempDir {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(|| TempDir::new().unwrap())
}

fuzz_target!(|data: &[u8]| {
    let path = dir().path().join("input.trace.json");
    std::fs::write(&path, data).unwrap();
    if let Ok(trace) = Trace::read(&path) {
        let copy = dir().path().join("copy.trace.json");
        trace.write(&copy).unwrap();
        let again = Trace::read(&copy).expect("a written trace reads back");
        assert_eq!(again.to_json(), trace.to_json());
    }
});
