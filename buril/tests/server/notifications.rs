//! What a call tells its MCP client while it runs: progress, rate-limited, and log messages at
//! the level the client asked for, in order, over an in-memory stream.

use crate::common;

use buril::server::{Server, ServerOptions};
use common::peer::Peer;
use serde_json::{Value, json};

/// Reports progress on each of `count` items as fast as it can, logging at the start, half way
/// and the end.
#[buril::tool(off_thread)]
fn note_flood(
    /// How many items.
    count: u32,
    ctx: &buril::Context,
) -> u32 {
    ctx.log(buril::context::LogLevel::Info, "start");
    for item in 1..=count {
        ctx.report_progress(f64::from(item), Some(f64::from(count)), None);
        if item == count / 2 {
            ctx.log(buril::context::LogLevel::Info, "half");
        }
    }
    ctx.log(buril::context::LogLevel::Debug, "below the level");
    ctx.log(buril::context::LogLevel::Warning, "end");
    count
}

/// A call that reports progress on every one of 20,000 items: a few notifications (at most one
/// per 50 ms of the call, plus the last), increasing, the last one the final report; the log
/// messages at or above the level the client set all come, in order with the progress, and
/// the one below it does not.
#[tokio::test]
async fn progress_is_rate_limited_and_log_messages_keep_their_place() {
    let server = Server::new(
        buril::Dispatcher::new(),
        ServerOptions::new().messages(|_| {}),
    )
    .unwrap();
    let mut peer = Peer::connect(server).await;
    let set = peer
        .request("logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    let started = std::time::Instant::now();
    let params = json!({
        "name": "note_flood",
        "arguments": {"count": 20000},
        "_meta": {"progressToken": "flood"}
    });
    let answer = peer.request("tools/call", params).await;
    let elapsed = started.elapsed();
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 20000,
        "{answer}"
    );

    let notes: Vec<&Value> = peer
        .notifications
        .iter()
        .filter(|n| {
            n["method"] == "notifications/progress" || n["method"] == "notifications/message"
        })
        .collect();
    let progress: Vec<f64> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"]["progress"].as_f64().expect("a number"))
        .collect();
    let allowed = elapsed.as_millis() / 50 + 2 + 3;
    assert!(
        !progress.is_empty() && progress.len() as u128 <= allowed,
        "{} progress notifications in {elapsed:?}",
        progress.len()
    );
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    assert_eq!(progress.last(), Some(&20000.0), "{progress:?}");

    let logs: Vec<(&str, &str)> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| {
            (
                n["params"]["level"].as_str().expect("a level"),
                n["params"]["data"].as_str().expect("a message"),
            )
        })
        .collect();
    assert_eq!(
        logs,
        [("info", "start"), ("info", "half"), ("warning", "end")],
        "{notes:?}"
    );
    assert!(
        notes.iter().all(
            |n| n["method"] != "notifications/message" || n["params"]["logger"] == "note_flood"
        )
    );
    // `half` comes after progress up to half way and before any past it.
    let half = notes
        .iter()
        .position(|n| n["params"]["data"] == "half")
        .expect("half");
    let before = notes[..half]
        .iter()
        .filter_map(|n| n["params"]["progress"].as_f64())
        .next_back();
    let after = notes[half..]
        .iter()
        .filter_map(|n| n["params"]["progress"].as_f64())
        .next();
    assert!(before.is_none_or(|p| p <= 10000.0), "{before:?}");
    assert!(after.is_none_or(|p| p >= 10000.0), "{after:?}");
}
