use serde_json::json;

/// Adds two numbers.
#[buril::tool]
fn math_add(
    /// The first addend.
    a: f64,
    /// The second addend.
    b: Option<f64>,
) -> f64 {
    a + b.unwrap_or(0.0)
}

#[test]
fn smoke() {
    let tool = buril::registry().get("math_add").unwrap();
    println!("{}", serde_json::to_string_pretty(tool.input_schema()).unwrap());
    println!("{}", serde_json::to_string_pretty(tool.output_schema()).unwrap());
    println!("{}", buril::call("math_add", json!({"a": 1, "b": 2})));
    println!("{}", buril::call("math_add", json!({"a": "x", "c": 2})));
    println!("{}", buril::call("math_ad", json!({})));
}
