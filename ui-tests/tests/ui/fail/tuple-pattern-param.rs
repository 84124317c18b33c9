/// Moves an object.
#[buril::tool]
fn object_move(
    /// The new position.
    (x, y): (f64, f64),
) -> f64 {
    x + y
}

fn main() {}
