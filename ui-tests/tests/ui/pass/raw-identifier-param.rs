use buril_test_support::call;
use serde_json::json;

/// Creates an asset.
#[buril::tool]
fn asset_create(
    /// The asset type.
    r#type: String,
) -> String {
    r#type
}

fn main() {
    let tool = buril::registry().get("asset_create").unwrap();
    assert_eq!(tool.input_schema()["required"], json!(["type"]));
    let envelope = call("asset_create", json!({"type": "mesh"}));
    assert_eq!(envelope["data"]["result"], "mesh");
}
