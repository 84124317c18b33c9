#[derive(serde::Deserialize, schemars::JsonSchema)]
struct MoveArgs {
    /// The object to move.
    object: String,
    /// Where to, in world units.
    to: [f32; 3],
}

/// Moves an object.
#[buril::tool]
fn object_move(args: MoveArgs) {
    let _ = (args.object, args.to);
}

/// Moves an object by a path to its type.
#[buril::tool]
fn object_shift(args: self::MoveArgs) {
    let _ = args;
}

/// Renames an object: one undocumented `String` gets no struct hint.
#[buril::tool]
fn object_rename(name: String) {
    let _ = name;
}

/// Moves several objects: a struct beside other parameters gets no hint either.
#[buril::tool]
fn object_place(
    args: MoveArgs,
    /// Whether to snap to the grid.
    snap: bool,
) {
    let _ = (args, snap);
}

fn main() {}
