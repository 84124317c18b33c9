//! A `buril_mcp::server::Server` of the test binary's tools on a loopback port, run by a
//! multi-threaded runtime of its own on a thread of its own, so that a test can drive it with
//! blocking requests.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use buril_core::Dispatcher;
use buril_mcp::server::{Server, ServerOptions};

/// A server with `options` over `Dispatcher::new()`, bound to `127.0.0.1:0` and serving
/// Streamable HTTP until the test process ends: its address.
pub fn serve_http(options: ServerOptions) -> SocketAddr {
    spawn_http(options, std::future::pending()).0
}

/// [`serve_http`] until the returned sender sends (`HttpServer::run_until`): its address, the
/// sender, and a receiver that gets a message once the server returned.
pub fn serve_http_until(options: ServerOptions) -> (SocketAddr, Sender<()>, Receiver<()>) {
    let (stop_tx, stop_rx) = channel::<()>();
    let stop = async move {
        let _ = tokio::task::spawn_blocking(move || stop_rx.recv()).await;
    };
    let (addr, done) = spawn_http(options, stop);
    (addr, stop_tx, done)
}

/// Runs the server on a runtime and thread of its own until `stop` completes: its address,
/// and a receiver that gets a message once `run_until` returned.
fn spawn_http(
    options: ServerOptions,
    stop: impl Future<Output = ()> + Send + 'static,
) -> (SocketAddr, Receiver<()>) {
    let (tx, rx) = channel();
    let (done_tx, done_rx) = channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = Server::new(Dispatcher::new(), options).unwrap();
            match server.bind_http("127.0.0.1:0".parse().unwrap()).await {
                Ok(bound) => {
                    tx.send(Ok(bound.local_addr())).unwrap();
                    bound.run_until(stop).await.unwrap();
                    let _ = done_tx.send(());
                }
                Err(error) => tx.send(Err(error.to_string())).unwrap(),
            }
        });
    });
    (rx.recv().unwrap().expect("the server binds"), done_rx)
}

/// [`serve_http`], keeping what the server says (its messages to the operator): its address,
/// and the messages so far.
pub fn serve_http_noting(options: ServerOptions) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&said);
    let options = options.messages(move |text| heard.lock().unwrap().push(text.to_owned()));
    (serve_http(options), said)
}
