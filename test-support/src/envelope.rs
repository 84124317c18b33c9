//! A call's envelope in one line.

use buril_core::{CallOptions, Dispatcher};
use serde_json::Value;

/// The envelope of a call of `name` with `input` through the process's global dispatcher (the
/// binary's tools, default settings).
pub fn call(name: &str, input: Value) -> Value {
    call_on(Dispatcher::global(), name, input)
}

/// The envelope of a call of `name` with `input` through `dispatcher`.
pub fn call_on(dispatcher: &Dispatcher, name: &str, input: Value) -> Value {
    dispatcher
        .invoke(name, input, CallOptions::default())
        .into_envelope()
}
