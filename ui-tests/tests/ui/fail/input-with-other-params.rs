#[derive(serde::Deserialize, schemars::JsonSchema)]
struct MoveArgs {
    x: f64,
}

/// Moves an object.
#[buril::tool]
fn object_move(
    buril::Input(args): buril::Input<MoveArgs>,
    /// The object's id.
    id: u64,
) -> f64 {
    args.x + id as f64
}

fn main() {}
