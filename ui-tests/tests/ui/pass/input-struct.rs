use buril_test_support::call;
use serde_json::json;

/// Where to move the object.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct MoveArgs {
    /// The object's id.
    id: u64,
    /// Metres along x.
    x: f64,
}

/// Moves an object along x.
#[buril::tool]
fn object_move(buril::Input(args): buril::Input<MoveArgs>) -> f64 {
    args.id as f64 + args.x
}

fn main() {
    let tool = buril::registry().get("object_move").unwrap();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["x"]["description"], "Metres along x.");
    let envelope = call("object_move", json!({"id": 1, "x": 0.5}));
    assert_eq!(envelope["data"]["result"], 1.5);
}
