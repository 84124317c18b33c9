mod support {
    pub use buril as my_buril;
}

use buril_test_support::call;
use support::my_buril;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: f64,
}

/// Reports which tool runs.
#[my_buril::tool(crate = my_buril)]
fn debug_whoami(ctx: &my_buril::Context) -> String {
    ctx.tool_name().to_owned()
}

/// Reads x.
#[my_buril::tool(crate = my_buril)]
fn point_x(my_buril::Input(point): my_buril::Input<Point>) -> f64 {
    point.x
}

fn main() {
    let envelope = call("debug_whoami", serde_json::json!({}));
    assert_eq!(envelope["data"]["result"], "debug_whoami");
    let envelope = call("point_x", serde_json::json!({"x": 2.0}));
    assert_eq!(envelope["data"]["result"], 2.0);
}
