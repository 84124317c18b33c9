/// Builds the player.
#[buril::tool(task)]
async fn player_build() -> u32 {
    1
}

/// Bakes the lighting.
#[buril::tool(task = "sometimes", off_thread)]
fn lighting_bake() -> u32 {
    2
}

/// Counts the assets.
#[buril::tool(task, off_thread, inline)]
fn asset_count() -> u32 {
    3
}

/// Imports the assets.
#[buril::tool(task(required), off_thread)]
fn asset_reimport() -> u32 {
    4
}

/// Cleans the project.
#[buril::tool(task = 3, off_thread)]
fn project_clean() -> u32 {
    5
}

fn main() {}
