struct Stats {
    count: usize,
}

/// Counts the objects in the scene.
#[buril::tool]
fn scene_stats() -> Stats {
    Stats { count: 0 }
}

fn main() {}
