//! A binary of task tools for testing the studio's Tasks page: one that counts slowly with
//! progress until it is cancelled or done, one that asks a question first. `cargo run -p tools
//! --example studio_fixture -- studio`.

use std::process::ExitCode;
use std::time::Duration;

use buril::ToolError;
use schemars::JsonSchema;

/// Counts to `to`, one step every `every_ms` milliseconds, reporting progress after each;
/// stops when cancelled.
#[buril::tool(task, off_thread, read_only)]
async fn fixture_count(
    /// How far to count.
    to: u32,
    /// Milliseconds between steps.
    every_ms: u16,
    ctx: &buril::Context,
) -> Result<u32, ToolError> {
    for step in 1..=to {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(u64::from(every_ms))) => {}
            () = ctx.cancelled() => return Err(ToolError::cancelled()),
        }
        ctx.report_progress(
            f64::from(step),
            Some(f64::from(to)),
            Some(&format!("counted {step} of {to}")),
        );
    }
    Ok(to)
}

/// Who to greet: the question `fixture_greet` asks.
#[derive(serde::Deserialize, JsonSchema)]
struct Guest {
    /// The guest's name.
    name: String,
}

/// Asks for a name, then greets it.
#[buril::tool(task, off_thread, read_only)]
fn fixture_greet(ctx: &buril::Context) -> Result<String, ToolError> {
    match ctx.elicit::<Guest>("Who should be greeted?")? {
        buril::context::Elicited::Accepted(guest) => Ok(format!("Hello, {}!", guest.name)),
        buril::context::Elicited::Declined => Ok("nobody to greet".to_owned()),
        buril::context::Elicited::Cancelled => Err(ToolError::cancelled()),
    }
}

fn main() -> ExitCode {
    buril::cli::main()
}
