#[buril::tool(aliases = ["Open"], dangerous = "true")]
unsafe fn scene_open<T>(ctx: buril::Context, (a, b): (u8, u8)) -> Option<T> {
    let _ = (ctx, a, b);
    None
}

fn main() {}
