//! The floor: what any dispatcher has to do at least. `serde_json::from_value` into the
//! argument struct, the call, and `serde_json::to_value` into the same envelope buril answers
//! with. No lookup, no validation beyond what serde does (it stops at the first problem).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::work::{self, PlaceArgs, SpawnArgs};

/// The three-field tool.
pub fn spawn(input: Value) -> Value {
    run(input, |a: SpawnArgs| work::spawn(a.name, a.x, a.tag))
}

/// The nested tool.
pub fn place(input: Value) -> Value {
    run(input, |a: PlaceArgs| work::place(a.scene, a.object))
}

#[inline]
fn run<A: DeserializeOwned, R: Serialize>(input: Value, tool: impl FnOnce(A) -> R) -> Value {
    match serde_json::from_value::<A>(input) {
        Ok(args) => match serde_json::to_value(tool(args)) {
            Ok(data) => {
                let mut map = Map::new();
                map.insert("ok".into(), Value::Bool(true));
                map.insert("data".into(), data);
                Value::Object(map)
            }
            Err(error) => failure("runtime", error.to_string()),
        },
        Err(error) => failure("validation", error.to_string()),
    }
}

fn failure(kind: &str, message: String) -> Value {
    let mut map = Map::new();
    map.insert("ok".into(), Value::Bool(false));
    map.insert("type".into(), Value::String(kind.into()));
    map.insert("error".into(), Value::String(message));
    Value::Object(map)
}
