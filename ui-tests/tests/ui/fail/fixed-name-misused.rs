/// A name that follows the naming rule needs no exemption.
#[buril::tool(fixed_name = "no reason")]
fn scene_open() {}

/// MCP's own rule still holds.
#[buril::tool(name = "greet everyone", fixed_name = "a suite calls it so")]
fn greet_everyone() {}

/// The exemption says why.
#[buril::tool(fixed_name = " ")]
fn hello() {}

/// The length limit still holds.
#[buril::tool(
    name = "AVeryLongNameThatSomeoneElseChoseAndThatGoesOnAndOnPastTheLimitOfSixtyFour",
    fixed_name = "a client calls it so"
)]
fn long_name() {}

fn main() {}
