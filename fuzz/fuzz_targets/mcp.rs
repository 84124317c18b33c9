//! MCP message handling: arbitrary bytes written to an in-process stdio session (after a
//! proper initialize), then a ping that must still be answered. Every line the server writes
//! is JSON.

#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use buril::Dispatcher;
use buril::server::{Server, ServerOptions};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

struct Fixture {
    _dir: TempDir,
    server: Server,
    runtime: Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = TempDir::new().unwrap();
        let project = tools::Project::open_or_create(dir.path()).unwrap();
        let dispatcher = Dispatcher::builder().state(project).build();
        let options = ServerOptions::new()
            .timeout(Duration::from_secs(2))
            .output_dir(dir.path().join("results"));
        let server = Server::new(dispatcher, options).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        Fixture {
            _dir: dir,
            server,
            runtime,
        }
    })
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
const PING: &str = "\n{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}\n";

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    fixture.runtime.block_on(async {
        let data = data.to_vec();
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (reader, writer) = tokio::io::split(server_end);
        let server = fixture.server.clone();
        let session = tokio::spawn(async move { server.serve_io(reader, writer).await });
        let (client_read, mut client_write) = tokio::io::split(client);
        let feed = tokio::spawn(async move {
            client_write.write_all(INITIALIZE.as_bytes()).await.ok();
            client_write.write_all(&data).await.ok();
            client_write.write_all(PING.as_bytes()).await.ok();
            client_write
        });
        let mut lines = BufReader::new(client_read).lines();
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(line)) = lines.next_line().await {
                let value: Value = serde_json::from_str(&line).expect("the server wrote JSON");
                if value["id"] == "last" {
                    return true;
                }
            }
            false
        })
        .await;
        // The session may end early (a fatal protocol error); it must never hang.
        let mut client_write = feed.await.unwrap();
        client_write.shutdown().await.ok();
        drop(client_write);
        drop(lines);
        let ended = tokio::time::timeout(Duration::from_secs(10), session).await;
        assert!(
            ended.is_ok(),
            "the session did not end after its client left"
        );
        assert!(answered.is_ok(), "no answer within 10 s");
    });
});
