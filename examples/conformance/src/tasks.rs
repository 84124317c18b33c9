//! The suite's task fixtures (the `tasks-*` scenarios), as buril task tools: a slow one that
//! can be cancelled, one that fails, one that panics, two that ask inside the task, one that
//! asks first and becomes a task after (`deferred`), and one that answers a handle to callers
//! that cannot follow tasks, with the `job_*` tools that follow it.

use buril::context::{Elicited, InputRequest};
use buril::{Context, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;

/// Sleeps `seconds` seconds, then says it computed `label`; stops, cancelled, when the task
/// is cancelled: the task tool of the `tasks-*` scenarios (`seconds: 0` for the immediate
/// path).
#[buril::tool(task, read_only, off_thread)]
async fn slow_compute(
    /// How long the work takes, in seconds.
    seconds: f64,
    /// What the work is called.
    label: Option<String>,
    ctx: &Context,
) -> Result<String, ToolError> {
    let label = label.unwrap_or_else(|| "work".to_owned());
    let work = std::time::Duration::from_secs_f64(seconds.clamp(0.0, 3_600.0));
    tokio::select! {
        () = tokio::time::sleep(work) => Ok(format!("computed {label} in {seconds} s")),
        () = ctx.cancel_token().cancelled() => {
            // Said on standard error, so that a test can see that the tool saw it.
            eprintln!("slow_compute: {label} saw its cancellation");
            Err(ToolError::cancelled())
        }
    }
}

/// Fails after about a second, as a tool fails (a completed task with `isError`); always a
/// task: a client that cannot follow tasks is refused (`tasks-required-task-error`).
#[buril::tool(task = "required", read_only, off_thread)]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::runtime("the job failed, as it always does"))
}

/// Panics: a failed task, with the protocol-level error (`tasks-lifecycle`).
#[buril::tool(task, read_only, off_thread)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    panic!("the job broke")
}

/// Asks the user to confirm deleting `filename`, then says what it did: a task that waits for
/// its caller's answer (`tasks-mrtr-input`).
#[buril::tool(task, destructive, off_thread)]
fn confirm_delete(
    /// The file to delete.
    filename: String,
    ctx: &Context,
) -> Result<String, ToolError> {
    if ctx.confirm(format!("Delete {filename}?"))? {
        Ok(format!("deleted {filename}"))
    } else {
        Ok(format!("kept {filename}"))
    }
}

/// A name and a confirmation, asked for by `multi_input`.
#[derive(Debug, Deserialize, JsonSchema)]
struct NameAndConfirm {
    /// A name.
    name: Option<String>,
    /// Whether to go on.
    confirm: Option<bool>,
}

/// Asks two questions at once, then answers with both: a task with two questions pending
/// (`tasks-mrtr-input`'s partial answers).
#[buril::tool(task, read_only, off_thread)]
fn multi_input(ctx: &Context) -> Result<String, ToolError> {
    let answers = ctx.ask_all([
        (
            "first",
            InputRequest::elicit::<NameAndConfirm>("The first name?")?,
        ),
        (
            "second",
            InputRequest::elicit::<NameAndConfirm>("The second name?")?,
        ),
    ])?;
    let mut names = Vec::new();
    for answer in answers {
        let form: NameAndConfirm = serde_json::from_value(answer["content"].clone())
            .map_err(|error| ToolError::runtime(format!("an unreadable answer: {error}")))?;
        if form.confirm == Some(false) {
            return Err(ToolError::cancelled());
        }
        names.push(form.name.unwrap_or_else(|| "nobody".to_owned()));
    }
    Ok(format!("got {}", names.join(" and ")))
}

/// The user's name, asked for by `test_tool_with_task`.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserName {
    /// Your name.
    name: String,
}

/// Asks the user's name as the call's own question (an `input_required` round under
/// 2026-07-28), then becomes a task that greets them: what `tasks-mrtr-composition` checks
/// (the rounds first, the task on the last round, the answer in its result).
#[buril::tool(task = "deferred", read_only, off_thread)]
fn test_tool_with_task(ctx: &Context) -> Result<String, ToolError> {
    let name = match ctx.elicit::<UserName>("What is your name?")? {
        Elicited::Accepted(form) => form.name,
        Elicited::Declined | Elicited::Cancelled => return Err(ToolError::cancelled()),
    };
    // From here on the call is a task (for a client that follows tasks; else it goes on).
    ctx.start_task();
    std::thread::sleep(std::time::Duration::from_millis(300));
    Ok(format!("Hello, {name}! The long part is done."))
}

/// Counts to `to`, a tenth of a second a step, reporting progress: always a task, and a
/// caller that cannot follow tasks gets its handle and follows it with the `job_*` tools.
#[buril::tool(task = "handle", read_only, off_thread)]
async fn background_count(
    /// Where to stop.
    to: u32,
    ctx: &Context,
) -> u32 {
    for step in 1..=to {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        ctx.report_progress(f64::from(step), Some(f64::from(to)), None);
    }
    to
}

buril::task_tools!();
