//! Panics are contained: a tool that panics, sync or async, on the main thread or off it,
//! answers a `panic` envelope naming the tool and its message, and the dispatcher keeps
//! serving, in blocking and async calls alike.

use crate::common;

use buril::{Dispatcher, ToolError};
use common::gates::{kind, with_long_timeout};
use serde_json::json;

/// Panics with a static message, on the main thread.
#[buril::tool]
fn pt_boom() -> u8 {
    panic!("the main-thread tool exploded")
}

/// Panics with a formatted message, off the main thread.
#[buril::tool(off_thread)]
fn pt_boom_fmt(
    /// A number for the message.
    n: u32,
) -> u8 {
    panic!("bad number {n}")
}

/// Panics with a payload that is not a string.
#[buril::tool(off_thread)]
fn pt_boom_any() -> u8 {
    std::panic::panic_any(42_u32)
}

/// Panics inside an async tool.
#[buril::tool(off_thread)]
async fn pt_boom_async(
    /// Whether to panic.
    really: bool,
) -> Result<u8, ToolError> {
    tokio::task::yield_now().await;
    if really {
        panic!("the async tool exploded");
    }
    Ok(1)
}

/// Panics inside an async main-thread tool.
#[buril::tool]
async fn pt_boom_async_main() -> u8 {
    tokio::task::yield_now().await;
    panic!("the async main-thread tool exploded")
}

/// Echoes a number, on the main thread.
#[buril::tool]
fn pt_echo_main(
    /// The number.
    n: i64,
) -> i64 {
    n
}

/// Echoes a number, anywhere.
#[buril::tool(off_thread)]
fn pt_echo_off(
    /// The number.
    n: i64,
) -> i64 {
    n
}

#[test]
fn panicking_sync_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.invoke("pt_boom", json!({}), buril::CallOptions::default())
            .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom` panicked: the main-thread tool exploded"
        })
    );
    // The owned main thread survived.
    assert_eq!(
        d.invoke(
            "pt_echo_main",
            json!({"n": 1}),
            buril::CallOptions::default()
        )
        .into_envelope()["data"]["result"],
        1
    );
    assert_eq!(
        d.invoke(
            "pt_boom_fmt",
            json!({"n": 7}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_fmt` panicked: bad number 7"
        })
    );
    assert_eq!(
        d.invoke("pt_boom_any", json!({}), buril::CallOptions::default())
            .into_envelope()["error"],
        "the tool `pt_boom_any` panicked: no message"
    );
    // Off the main thread on a worker (a call with a timeout).
    let outcome = d.invoke("pt_boom_fmt", json!({"n": 8}), with_long_timeout());
    assert_eq!(
        outcome.error().unwrap().message(),
        "the tool `pt_boom_fmt` panicked: bad number 8"
    );
    for n in 0..5 {
        assert_eq!(
            d.invoke(
                "pt_echo_main",
                json!({"n": n}),
                buril::CallOptions::default()
            )
            .into_envelope()["data"]["result"],
            n
        );
        assert_eq!(
            d.invoke(
                "pt_echo_off",
                json!({"n": n}),
                buril::CallOptions::default()
            )
            .into_envelope()["data"]["result"],
            n
        );
    }
}

#[test]
fn panicking_async_tools_answer_panic_and_the_dispatcher_keeps_serving() {
    let d = Dispatcher::new();
    assert_eq!(
        d.invoke(
            "pt_boom_async",
            json!({"really": true}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async` panicked: the async tool exploded"
        })
    );
    assert_eq!(
        d.invoke(
            "pt_boom_async_main",
            json!({}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({
            "ok": false,
            "type": "panic",
            "error": "the tool `pt_boom_async_main` panicked: the async main-thread tool exploded"
        })
    );
    assert_eq!(
        d.invoke(
            "pt_boom_async",
            json!({"really": false}),
            buril::CallOptions::default()
        )
        .into_envelope(),
        json!({"ok": true, "data": {"result": 1}})
    );
    assert_eq!(
        d.invoke(
            "pt_echo_main",
            json!({"n": 2}),
            buril::CallOptions::default()
        )
        .into_envelope()["data"]["result"],
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn panics_are_contained_in_async_calls_too() {
    let d = Dispatcher::new();
    for name in ["pt_boom", "pt_boom_async_main"] {
        let envelope = d
            .invoke_async(name, json!({}), buril::CallOptions::default())
            .await
            .into_envelope();
        assert_eq!(kind(&envelope), "panic", "{envelope}");
    }
    let envelope = d
        .invoke_async(
            "pt_boom_fmt",
            json!({"n": 3}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(
        envelope["error"],
        "the tool `pt_boom_fmt` panicked: bad number 3"
    );
    let envelope = d
        .invoke_async(
            "pt_boom_async",
            json!({"really": true}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(kind(&envelope), "panic");
    let envelope = d
        .invoke_async(
            "pt_echo_main",
            json!({"n": 4}),
            buril::CallOptions::default(),
        )
        .await
        .into_envelope();
    assert_eq!(envelope["data"]["result"], 4);
}
