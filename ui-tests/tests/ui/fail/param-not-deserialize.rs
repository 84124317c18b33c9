struct Color(u8, u8, u8);

/// Paints the selection.
#[buril::tool]
fn scene_paint(
    /// The colour to paint with.
    color: Color,
) -> u8 {
    color.0
}

fn main() {}
