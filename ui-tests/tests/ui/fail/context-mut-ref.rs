/// Reports which tool runs.
#[buril::tool]
fn debug_whoami(ctx: &mut buril::Context) -> String {
    ctx.tool_name().to_owned()
}

fn main() {}
