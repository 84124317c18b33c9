/// Greets a region, the region mirrored into the `Mcp-Param-Region` header.
#[buril::tool(headers(region = "Region"))]
fn demo_greet(
    /// Where.
    region: String,
) -> String {
    format!("Hello, {region}!")
}

fn main() {
    let tool = buril::registry().get("demo_greet").unwrap();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["region"]["x-mcp-header"], "Region");
}
