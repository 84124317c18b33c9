//! `off_thread` keeps its promise over MCP: a sync tool that blocks (a Tokio runtime of its own
//! per call, a slow disk) runs on a thread that may block, however quick its earlier calls
//! were, and slows only its own calls. Each server runs on a runtime of one worker thread, the
//! client on another, so that a tool run in the server's task would stall every other call of
//! that server, and the client's waits (10 s for an answer) would see it.

use crate::common;

use std::net::SocketAddr;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use buril::Dispatcher;
use buril::server::{Server, ServerOptions};
use common::http;
use common::peer::Peer;
use serde_json::{Value, json};

/// Counts to `n` on a Tokio runtime it starts and drops for the call, as a tool using a
/// blocking HTTP client does.
#[buril::tool(off_thread, read_only)]
fn place_count_on_own_runtime(
    /// How far to count.
    n: u32,
) -> u32 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime of the tool's own");
    runtime.block_on(async move {
        tokio::task::yield_now().await;
        n
    })
}

/// Fetches a page: from the tool's cache when `cached`, else through a blocking client that
/// starts a Tokio runtime of its own for the request, as `reqwest::blocking` does.
#[buril::tool(off_thread, read_only)]
fn place_fetch_page(
    /// Whether the page is in the cache.
    cached: bool,
) -> &'static str {
    if cached {
        return "from the cache";
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime of the tool's own");
    runtime.block_on(async { "fetched" })
}

/// A disk the test can hold: whether its reads are held, and how many are held now.
struct Disk {
    state: Mutex<(bool, u32)>,
    moved: Condvar,
}

/// One disk a test (stdio, HTTP), so that tests running at once do not hold each other's.
static DISKS: [Disk; 2] = [Disk::new(), Disk::new()];

impl Disk {
    const fn new() -> Disk {
        Disk {
            state: Mutex::new((false, 0)),
            moved: Condvar::new(),
        }
    }

    /// Holds every read from now until [`Disk::release`].
    fn hold(&self) {
        self.state.lock().unwrap().0 = true;
    }

    fn is_held(&self) -> bool {
        self.state.lock().unwrap().0
    }

    /// Waits until a read is held (at most 20 s).
    fn wait_for_held_read(&self) {
        let state = self.state.lock().unwrap();
        let (state, timeout) = self
            .moved
            .wait_timeout_while(state, Duration::from_secs(20), |state| state.1 == 0)
            .unwrap();
        assert!(!timeout.timed_out(), "the held read never started");
        assert!(state.0, "the disk was released early");
    }

    fn release(&self) {
        self.state.lock().unwrap().0 = false;
        self.moved.notify_all();
    }

    fn read(&self) {
        let mut state = self.state.lock().unwrap();
        state.1 += 1;
        self.moved.notify_all();
        while state.0 {
            state = self.moved.wait(state).unwrap();
        }
        state.1 -= 1;
    }
}

/// Reads a block from a disk that is slow while the test holds it.
#[buril::tool(off_thread, read_only)]
fn place_read_disk(
    /// Which disk: 0 or 1.
    disk: usize,
) -> &'static str {
    DISKS[disk].read();
    "block"
}

/// Echoes a word.
#[buril::tool(off_thread, read_only)]
fn place_echo(
    /// The word.
    word: String,
) -> String {
    word
}

fn server() -> Server {
    Server::new(
        Dispatcher::new(),
        ServerOptions::new().timeout(Duration::from_secs(60)),
    )
    .unwrap()
}

/// The `structuredContent` of a `tools/call` answer, which must be a success.
fn ok(answer: &Value) -> &Value {
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    &answer["result"]["structuredContent"]
}

/// A runtime of one worker thread, for a server.
fn one_worker() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// 300 calls over stdio of a tool that starts a runtime in each: every one answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_tool_with_a_runtime_of_its_own_answers_every_call_over_stdio() {
    let servers = one_worker();
    let mut legacy = Peer::connect_on(servers.handle(), server(), json!({})).await;
    let mut stateless = Peer::stateless_on(servers.handle(), server()).await;
    for n in 0..300u32 {
        let answer = legacy
            .call("place_count_on_own_runtime", json!({"n": n}))
            .await;
        assert_eq!(ok(&answer)["result"], n, "call {n}: {answer}");
        let answer = stateless
            .call_stateless("place_count_on_own_runtime", json!({"n": n}), json!({}))
            .await;
        assert_eq!(ok(&answer)["result"], n, "stateless call {n}: {answer}");
    }
    servers.shutdown_background();
}

/// A tool that answers quickly from its cache most of the time and starts a runtime of its
/// own on a miss: every miss answers too, however many quick hits came before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_tool_quick_most_of_the_time_may_still_block_over_stdio() {
    let servers = one_worker();
    let mut peer = Peer::connect_on(servers.handle(), server(), json!({})).await;
    for round in 0..30 {
        for _ in 0..20 {
            let answer = peer.call("place_fetch_page", json!({"cached": true})).await;
            assert_eq!(ok(&answer)["result"], "from the cache");
        }
        let answer = peer
            .call("place_fetch_page", json!({"cached": false}))
            .await;
        assert_eq!(ok(&answer)["result"], "fetched", "miss {round}: {answer}");
    }
    servers.shutdown_background();
}

/// While one call of a tool blocks (after many quick ones), calls of another tool made over
/// stdio meanwhile are answered, before the blocked one is let go.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_blocked_call_over_stdio_slows_only_itself() {
    let servers = one_worker();
    let disk = &DISKS[0];
    let mut peer = Peer::connect_on(servers.handle(), server(), json!({})).await;
    for _ in 0..100 {
        let answer = peer.call("place_read_disk", json!({"disk": 0})).await;
        assert_eq!(ok(&answer)["result"], "block");
    }
    disk.hold();
    peer.send(
        json!({"jsonrpc": "2.0", "id": "held", "method": "tools/call",
        "params": {"name": "place_read_disk", "arguments": {"disk": 0}}}),
    )
    .await;
    tokio::task::spawn_blocking(|| DISKS[0].wait_for_held_read())
        .await
        .unwrap();
    let answered = async {
        for i in 0..50 {
            let word = format!("w{i}");
            let answer = peer.call("place_echo", json!({"word": word})).await;
            assert_eq!(ok(&answer)["result"], word.as_str());
        }
    };
    // The client's waits cannot see a server that never answers while the disk is held: the
    // disk is let go after 20 s whatever happened, and the answers must have come before.
    let outcome = tokio::time::timeout(Duration::from_secs(20), answered).await;
    let still_held = disk.is_held();
    disk.release();
    assert!(
        outcome.is_ok(),
        "calls of another tool waited for the held one"
    );
    assert!(still_held, "answered while the read was held");
    loop {
        let message = peer.read().await;
        if message["id"] == "held" {
            assert_eq!(ok(&message)["result"], "block");
            break;
        }
    }
    servers.shutdown_background();
}

/// A server on a loopback port, run by a runtime of one worker on a thread of its own.
fn serve_http_on_one_worker() -> SocketAddr {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        one_worker().block_on(async move {
            let bound = server()
                .bind_http("127.0.0.1:0".parse().unwrap())
                .await
                .unwrap();
            tx.send(bound.local_addr()).unwrap();
            bound.run_until(std::future::pending()).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// A `tools/call` request, with an id no other request of the test process has: a session's
/// requests in flight need ids of their own (JSON-RPC), and the held call is in flight while
/// the others are made.
fn call_body(name: &str, arguments: Value) -> String {
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// The cached fetch over Streamable HTTP: every miss answers, after any number of hits.
#[test]
fn a_tool_quick_most_of_the_time_may_still_block_over_http() {
    let addr = serve_http_on_one_worker();
    let session = http::open(addr, json!({}));
    for round in 0..30 {
        for _ in 0..20 {
            let body = call_body("place_fetch_page", json!({"cached": true}));
            let answer = http::post(addr, Some(&session), &[], &body).message();
            assert_eq!(ok(&answer)["result"], "from the cache");
        }
        let body = call_body("place_fetch_page", json!({"cached": false}));
        let answer = http::post(addr, Some(&session), &[], &body).message();
        assert_eq!(ok(&answer)["result"], "fetched", "miss {round}: {answer}");
    }
}

/// 300 calls over Streamable HTTP (a session, and stateless) of a tool that starts a runtime
/// in each: every one answers.
#[test]
fn a_tool_with_a_runtime_of_its_own_answers_every_call_over_http() {
    let addr = serve_http_on_one_worker();
    let session = http::open(addr, json!({}));
    for n in 0..300u32 {
        let body = call_body("place_count_on_own_runtime", json!({"n": n}));
        let answer = http::post(addr, Some(&session), &[], &body).message();
        assert_eq!(ok(&answer)["result"], n, "call {n}: {answer}");
        let answer = http::post_stateless(
            addr,
            &[],
            json!({}),
            json!({"name": "place_count_on_own_runtime", "arguments": {"n": n}}),
        )
        .message();
        assert_eq!(ok(&answer)["result"], n, "stateless call {n}: {answer}");
    }
}

/// While one call of a tool blocks over HTTP (after many quick ones), calls of another tool
/// are answered, before the blocked one is let go.
#[test]
fn a_blocked_call_over_http_slows_only_itself() {
    let addr = serve_http_on_one_worker();
    let session = http::open(addr, json!({}));
    let disk = &DISKS[1];
    let read = || call_body("place_read_disk", json!({"disk": 1}));
    for _ in 0..100 {
        let answer = http::post(addr, Some(&session), &[], &read()).message();
        assert_eq!(ok(&answer)["result"], "block");
    }
    disk.hold();
    let held = {
        let session = session.clone();
        let read = read();
        std::thread::spawn(move || http::post(addr, Some(&session), &[], &read).message())
    };
    disk.wait_for_held_read();
    let (answered_tx, answered) = mpsc::channel();
    std::thread::spawn(move || {
        for i in 0..50 {
            let word = format!("w{i}");
            let body = call_body("place_echo", json!({"word": word}));
            let answer = http::post(addr, Some(&session), &[], &body).message();
            assert_eq!(ok(&answer)["result"], word.as_str());
            let answer = http::post_stateless(
                addr,
                &[],
                json!({}),
                json!({"name": "place_echo", "arguments": {"word": word}}),
            )
            .message();
            assert_eq!(ok(&answer)["result"], word.as_str());
        }
        answered_tx.send(()).unwrap();
    });
    // The disk is let go after 20 s whatever happened; the answers must have come before.
    let outcome = answered.recv_timeout(Duration::from_secs(20));
    let still_held = disk.is_held();
    disk.release();
    assert!(
        outcome.is_ok(),
        "calls of another tool waited for the held one"
    );
    assert!(still_held, "answered while the read was held");
    assert_eq!(ok(&held.join().unwrap())["result"], "block");
}
