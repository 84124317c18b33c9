use buril_test_support::call;

/// Adds two numbers: returns at once and never blocks.
#[buril::tool(off_thread, inline)]
fn math_add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// The same, not inline.
#[buril::tool(off_thread, inline = false)]
fn math_sub(
    /// The minuend.
    a: i64,
    /// The subtrahend.
    b: i64,
) -> i64 {
    a - b
}

fn main() {
    let registry = buril::registry();
    let add = registry.get("math_add").unwrap();
    assert!(add.threading() == buril::Threading::Inline && add.threading().is_off_thread() && add.meta().threading == buril::Threading::Inline);
    let sub = registry.get("math_sub").unwrap();
    assert!(sub.threading() != buril::Threading::Inline && sub.threading().is_off_thread());
    let here = std::thread::current().id();
    let answer = call("math_add", serde_json::json!({"a": 2, "b": 3}));
    assert_eq!(answer, serde_json::json!({"ok": true, "data": {"result": 5}}));
    assert_eq!(std::thread::current().id(), here);
}
