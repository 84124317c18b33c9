//! The MCP test client for protocol-level tests: newline-delimited JSON-RPC, as the stdio
//! transport carries it, to a server in memory ([`Peer::connect`], [`Peer::stateless`]) or to a
//! program over its standard input and output ([`Peer::spawn`]). It writes any frame, well
//! formed or not, and reads every line the server writes.

use std::pin::Pin;
use std::time::Duration;

use buril_mcp::server::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};

/// The server's side of the conversation, as the client reads it.
type Reader = Pin<Box<dyn AsyncRead + Send>>;

/// A client over a stream: writes requests, reads answers and notifications.
pub struct Peer {
    write: Pin<Box<dyn AsyncWrite + Send>>,
    lines: Lines<BufReader<Reader>>,
    /// The program that serves, for a client of [`Peer::spawn`] (killed when dropped).
    child: Option<tokio::process::Child>,
    next_id: u64,
    /// Notifications read while waiting for answers.
    pub notifications: Vec<Value>,
    /// The server's answer to `initialize`.
    pub initialized: Value,
}

impl Peer {
    pub async fn connect(server: Server) -> Peer {
        Peer::connect_with(server, json!({})).await
    }

    /// [`Peer::connect`] for a client with `capabilities`.
    pub async fn connect_with(server: Server, capabilities: Value) -> Peer {
        Peer::connect_on(&tokio::runtime::Handle::current(), server, capabilities).await
    }

    /// [`Peer::connect_with`], the server run by the runtime of `server_runtime` (the client
    /// by the caller's).
    pub async fn connect_on(
        server_runtime: &tokio::runtime::Handle,
        server: Server,
        capabilities: Value,
    ) -> Peer {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        server_runtime.spawn(async move { server.serve_io(server_read, server_write).await });
        let (read, write) = tokio::io::split(client_side);
        let mut peer = Peer::over(Box::pin(read), Box::pin(write));
        peer.initialize(capabilities).await;
        peer
    }

    /// A client of `read` and `write`, before any request.
    pub fn over(read: Reader, write: Pin<Box<dyn AsyncWrite + Send>>) -> Peer {
        Peer {
            write,
            lines: BufReader::new(read).lines(),
            child: None,
            next_id: 1,
            notifications: Vec::new(),
            initialized: Value::Null,
        }
    }

    /// A client of the program `command` starts, over its standard input and output (its
    /// standard error as `command` says), before any request; the program is killed when the
    /// client is dropped.
    pub fn spawn(mut command: tokio::process::Command) -> Peer {
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server program starts");
        let read = child.stdout.take().expect("its standard output");
        let write = child.stdin.take().expect("its standard input");
        let mut peer = Peer::over(Box::pin(read), Box::pin(write));
        peer.child = Some(child);
        peer
    }

    /// The program of a client of [`Peer::spawn`].
    pub fn child(&mut self) -> Option<&mut tokio::process::Child> {
        self.child.as_mut()
    }

    /// The 2025-11-25 handshake, as a client with `capabilities`: `initialize`, then
    /// `notifications/initialized`.
    pub async fn initialize(&mut self, capabilities: Value) {
        let init = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "test", "version": "1"}
                }),
            )
            .await;
        assert_eq!(
            init["result"]["capabilities"]["tools"]["listChanged"], true,
            "{init}"
        );
        self.initialized = init["result"].clone();
        self.notify("notifications/initialized", json!({})).await;
    }

    /// A client of the stateless lifecycle (2026-07-28): no `initialize`; every request
    /// carries its version and the client's capabilities (see [`Peer::call_stateless`]).
    pub async fn stateless(server: Server) -> Peer {
        Peer::stateless_on(&tokio::runtime::Handle::current(), server).await
    }

    /// [`Peer::stateless`], the server run by the runtime of `server_runtime`.
    pub async fn stateless_on(server_runtime: &tokio::runtime::Handle, server: Server) -> Peer {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        server_runtime.spawn(async move { server.serve_io(server_read, server_write).await });
        let (read, write) = tokio::io::split(client_side);
        Peer::over(Box::pin(read), Box::pin(write))
    }

    /// A `tools/call` of the stateless lifecycle, from a client with `capabilities`.
    pub async fn call_stateless(
        &mut self,
        name: &str,
        arguments: Value,
        capabilities: Value,
    ) -> Value {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        });
        let params = json!({"name": name, "arguments": arguments, "_meta": meta});
        self.request("tools/call", params).await
    }

    pub async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// Writes `text` as it is (lines and all) in one write.
    pub async fn send_raw(&mut self, text: &str) {
        self.write.write_all(text.as_bytes()).await.unwrap();
    }

    /// Ends the server's input, as a client that exits does: the writer is shut down and
    /// dropped (a child's standard input closes only when dropped).
    pub async fn end_input(&mut self) {
        self.write.shutdown().await.unwrap();
        self.write = Box::pin(tokio::io::sink());
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request and answers its response (a `result` or an `error`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.read().await;
            if message["id"] == id {
                return message;
            }
            if message.get("method").is_some() {
                self.notifications.push(message);
            }
        }
    }

    /// The next line the server writes, `None` once its output ended (within 10 s).
    pub async fn next_line(&mut self) -> Option<String> {
        tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("the server writes or ends within 10 s")
            .unwrap()
    }

    pub async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("the server answers within 10 s")
            .unwrap()
            .expect("the server keeps the stream open");
        serde_json::from_str(&line).unwrap()
    }

    /// Waits for a notification with `method`.
    pub async fn notification(&mut self, method: &str) -> Value {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return self.notifications.remove(i);
        }
        loop {
            let message = self.read().await;
            if message["method"] == method {
                return message;
            }
        }
    }

    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

/// [`Peer`] for a blocking test: the same client, driven by a runtime of its own.
pub struct BlockingPeer {
    runtime: tokio::runtime::Runtime,
    peer: Peer,
}

impl BlockingPeer {
    /// A client of the program `command` starts (see [`Peer::spawn`]), before any request.
    pub fn spawn(command: std::process::Command) -> BlockingPeer {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the client");
        let peer = {
            let _entered = runtime.enter();
            Peer::spawn(tokio::process::Command::from(command))
        };
        BlockingPeer { runtime, peer }
    }

    /// The 2025-11-25 handshake, as a client with no capabilities.
    pub fn initialize(&mut self) {
        self.runtime.block_on(self.peer.initialize(json!({})));
    }

    /// Writes `message`, a line.
    pub fn send(&mut self, message: Value) {
        self.runtime.block_on(self.peer.send(message));
    }

    /// The next message the server writes (within 10 s).
    pub fn read(&mut self) -> Value {
        self.runtime.block_on(self.peer.read())
    }

    /// A `tools/call` of `tool` with `arguments`: its answer (`result` or `error`).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.runtime.block_on(self.peer.call(tool, arguments))
    }

    /// Ends the server's input, as a client that exits does.
    pub fn end_input(&mut self) {
        self.runtime.block_on(self.peer.end_input());
    }

    /// The server's process.
    pub fn child(&mut self) -> &mut tokio::process::Child {
        self.peer.child().expect("a spawned server")
    }

    /// What the server wrote to its standard error (piped by the command), read to its end.
    pub fn stderr_to_end(&mut self) -> String {
        use tokio::io::AsyncReadExt;
        let runtime = &self.runtime;
        let child = self.peer.child().expect("a spawned server");
        let mut stderr = child
            .stderr
            .take()
            .expect("the server's standard error, piped");
        let mut text = String::new();
        runtime
            .block_on(stderr.read_to_string(&mut text))
            .expect("its standard error reads");
        text
    }

    /// Its process id.
    pub fn id(&mut self) -> u32 {
        self.child().id().expect("the server is running")
    }

    /// Waits, at most [`WAIT`](crate::WAIT), for the server to exit: its status. Panics naming
    /// `what` when it does not.
    pub fn wait_for_exit(&mut self, what: &str) -> std::process::ExitStatus {
        let runtime = &self.runtime;
        let child = self.peer.child().expect("a spawned server");
        runtime.block_on(async {
            match tokio::time::timeout(crate::WAIT, child.wait()).await {
                Ok(status) => status.expect("the server's status"),
                Err(_) => {
                    let _ = child.kill().await;
                    panic!("waited {:?} for {what}", crate::WAIT)
                }
            }
        })
    }
}
