//! A binary of small tools that misbehave on purpose (panic, sleep past their timeout, answer
//! megabytes), for testing MCP servers and clients: `cargo run -p tools --example mcp_fixture
//! -- serve`. The MCP interop tests drive it with real clients.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use buril::ToolError;
use schemars::JsonSchema;
use serde::Serialize;

/// Calls of `fixture_sleep` that were cancelled by their caller before their deadline.
static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Calls of `fixture_sleep` that started.
static STARTED: AtomicU64 = AtomicU64::new(0);

/// What `fixture_echo` answers.
#[derive(Serialize, JsonSchema)]
struct Echo {
    /// The number it was given.
    n: u64,
    /// The text it was given, if any.
    text: Option<String>,
}

/// Answers with its input, for checking that concurrent calls get their own answers.
#[buril::tool(off_thread, read_only, idempotent, title = "Echo")]
fn fixture_echo(
    /// Any whole number.
    n: u64,
    /// Any text.
    text: Option<String>,
) -> Echo {
    Echo { n, text }
}

/// Panics, to show that a panicking tool answers an error and the server keeps serving.
#[buril::tool(off_thread)]
fn fixture_panic(
    /// What the panic says.
    message: Option<String>,
) -> Result<(), ToolError> {
    panic!(
        "{}",
        message.unwrap_or_else(|| "the fixture panicked".to_owned())
    );
}

/// How long `fixture_sleep` slept.
#[derive(Serialize, JsonSchema)]
struct Slept {
    /// Milliseconds.
    ms: u64,
}

/// Sleeps for `ms` milliseconds, stopping early when the call is cancelled or times out.
#[buril::tool(off_thread, read_only)]
async fn fixture_sleep(
    /// How long to sleep, in milliseconds.
    ms: u64,
    ctx: &buril::Context,
) -> Result<Slept, ToolError> {
    STARTED.fetch_add(1, Ordering::SeqCst);
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(Slept { ms }),
        _ = ctx.cancelled() => {
            let timed_out = ctx.deadline().is_some_and(|deadline| Instant::now() >= deadline);
            if !timed_out {
                CANCELLED.fetch_add(1, Ordering::SeqCst);
            }
            Err(ToolError::cancelled())
        }
    }
}

/// What `fixture_stats` answers.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// Calls of `fixture_sleep` that started.
    sleeps_started: u64,
    /// Calls of `fixture_sleep` cancelled by their caller before their deadline.
    sleeps_cancelled: u64,
}

/// Counts what happened to the calls of `fixture_sleep`.
#[buril::tool(off_thread, read_only)]
fn fixture_stats() -> Stats {
    Stats {
        sleeps_started: STARTED.load(Ordering::SeqCst),
        sleeps_cancelled: CANCELLED.load(Ordering::SeqCst),
    }
}

/// What `fixture_big` answers.
#[derive(Serialize, JsonSchema)]
struct Big {
    /// Lines of text, 100 characters each.
    lines: Vec<String>,
}

/// Answers about `bytes` bytes of JSON, in lines of 100 characters.
#[buril::tool(off_thread, read_only, idempotent)]
fn fixture_big(
    /// Roughly how many bytes of JSON to answer.
    bytes: u64,
) -> Big {
    let count = usize::try_from(bytes / 103).unwrap_or(usize::MAX).max(1);
    let lines = (0..count)
        .map(|i| format!("{i:>8} {}", "x".repeat(91)))
        .collect();
    Big { lines }
}

/// Does `steps` steps of 50 ms, reporting progress after each.
#[buril::tool(off_thread, read_only)]
async fn fixture_progress(
    /// How many steps.
    steps: u32,
    ctx: &buril::Context,
) -> u32 {
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.report_progress(
            f64::from(step),
            Some(f64::from(steps)),
            Some(&format!("step {step} of {steps}")),
        );
    }
    steps
}

/// Who is there: the form `fixture_survey` shows.
#[derive(serde::Deserialize, JsonSchema)]
struct Visitor {
    /// The visitor's name.
    name: String,
}

/// What `fixture_survey` learned.
#[derive(Serialize, JsonSchema)]
struct Asked {
    /// The name the user gave, or `declined` / `cancelled`.
    name: String,
    /// The greeting the client's model wrote.
    greeting: String,
    /// The client's roots.
    roots: Vec<String>,
}

/// Asks the user for a name (elicitation), the client's model for a greeting (sampling) and
/// the client for its roots, one after the other, and answers with all three.
#[buril::tool(off_thread, read_only)]
fn fixture_survey(ctx: &buril::Context) -> Result<Asked, ToolError> {
    let name = match ctx.elicit::<Visitor>("Who is there?")? {
        buril::context::Elicited::Accepted(visitor) => visitor.name,
        buril::context::Elicited::Declined => "declined".to_owned(),
        buril::context::Elicited::Cancelled => "cancelled".to_owned(),
    };
    let greeting = ctx
        .sample(buril::context::Sampling::prompt(format!("Greet {name}.")).max_tokens(20))?
        .text;
    let roots = ctx.roots()?.into_iter().map(|root| root.uri).collect();
    Ok(Asked {
        name,
        greeting,
        roots,
    })
}

/// Pretends to wipe something; marked dangerous, so it is off until enabled.
#[buril::tool(off_thread, dangerous, destructive, title = "Wipe")]
fn fixture_wipe() -> &'static str {
    "wiped"
}

fn main() -> ExitCode {
    buril::cli::main()
}
