/// Reports which tool runs.
#[buril::tool]
fn debug_whoami(ctx: &buril::Context, again: &buril::Context) -> String {
    format!("{} {}", ctx.tool_name(), again.tool_name())
}

fn main() {}
