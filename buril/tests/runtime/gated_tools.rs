//! Tools held at a gate or watching for their cancellation (`common::gates`), shared by the
//! tests of timeouts and of cancellation (`timeouts.rs`, `cancellation.rs`).

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use buril::ToolError;

use crate::common::gates::{Event, WAIT, hold, hold_async, record, saw_cancel_async};

/// Run counts of `pt_count_main`, one slot per test that uses it (0 in `timeouts.rs`, 1 in
/// `cancellation.rs`).
pub static RUNS: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// Echoes a number, on the main thread.
#[buril::tool]
fn pt_echo(
    /// The number.
    n: i64,
) -> i64 {
    n
}

/// Held at the gate of `tag` until the test opens it, ignoring cancellation, anywhere.
#[buril::tool(off_thread)]
fn pt_block(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold(&tag);
    0
}

/// Held at the gate of `tag`, ignoring cancellation, on the main thread.
#[buril::tool]
fn pt_block_main(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold(&tag);
    0
}

/// Held at the gate of `tag` asynchronously, ignoring cancellation.
#[buril::tool(off_thread)]
async fn pt_block_async(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold_async(&tag).await;
    0
}

/// Held at the gate of `tag` asynchronously on the main thread, ignoring cancellation.
#[buril::tool]
async fn pt_block_async_main(
    /// The gate.
    tag: String,
) -> u8 {
    let _ending = hold_async(&tag).await;
    0
}

/// Counts its runs in `slot`, on the main thread.
#[buril::tool]
fn pt_count_main(
    /// Which counter.
    slot: usize,
) -> usize {
    RUNS[slot].fetch_add(1, Ordering::SeqCst) + 1
}

/// Works until its call is cancelled or times out (at most `WAIT`), then records that it saw it.
#[buril::tool(off_thread)]
fn pt_watch(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    watch(&tag, ctx)
}

/// As `pt_watch`, on the main thread.
#[buril::tool]
fn pt_watch_main(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    watch(&tag, ctx)
}

fn watch(tag: &str, ctx: &buril::Context) -> Result<u8, ToolError> {
    record(Event::Entered, tag);
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if ctx.is_cancelled() {
            record(Event::SawCancel, tag);
            return Err(ToolError::cancelled());
        }
        // A step of its work between looks at its cancellation, as a sync tool checks it.
        thread::sleep(Duration::from_millis(1));
    }
    Ok(0)
}

/// Waits for its call's cancellation asynchronously (at most `WAIT`), then records that it saw
/// it.
#[buril::tool(off_thread)]
async fn pt_watch_async(
    /// Which call.
    tag: String,
    ctx: &buril::Context,
) -> Result<u8, ToolError> {
    if saw_cancel_async(&tag, ctx).await {
        return Err(ToolError::cancelled());
    }
    Ok(0)
}
