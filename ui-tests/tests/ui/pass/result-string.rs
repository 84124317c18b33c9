use buril_test_support::call;
use serde_json::json;

/// Finds an object by name.
#[buril::tool]
fn object_find(
    /// The object's name.
    name: String,
) -> Result<u32, String> {
    let id = lookup(&name).ok_or_else(|| format!("no object is named `{name}`"))?;
    Ok(id)
}

fn lookup(name: &str) -> Option<u32> {
    (name == "Cube").then_some(1)
}

fn main() {
    let envelope = call("object_find", json!({"name": "Sphere"}));
    assert_eq!(envelope["type"], "runtime");
    assert_eq!(envelope["error"], "no object is named `Sphere`");
    assert_eq!(call("object_find", json!({"name": "Cube"}))["data"]["result"], 1);
    // What the tool answers is what `ToolError::runtime` or `from_display` makes.
    let error = buril::ToolError::runtime(String::from("made by hand"));
    assert_eq!(error.message(), "made by hand");
}
