/// Echoes a value.
#[buril::tool]
fn debug_echo<T: serde::Serialize>(
    /// The value.
    value: T,
) -> T {
    value
}

fn main() {}
