//! The tools as a client sees them, over both protocol revisions, against the snapshot checked
//! in beside this test (`tests/contract/tools.json`): a change to a name, a description, a
//! schema or an annotation shows in review as a changed file. Write it again with
//! `BURIL_UPDATE_SNAPSHOTS=1 cargo test -p tools --test contract`.

use buril::Dispatcher;
use buril::testing::{Protocol, TestClient};
// The example tools are in the binary only when it names their crate.
use tools as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_clients_see_match_the_snapshot() {
    let snapshot = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/contract/tools.json");
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let client = TestClient::builder(Dispatcher::new())
            .protocol(protocol)
            .connect()
            .await
            .unwrap();
        let listed = client.tools().await.unwrap();
        // Every tool but the dangerous ones, which are off until a host enables them.
        let enabled = buril::registry()
            .iter()
            .filter(|tool| !tool.is_dangerous())
            .count();
        assert_eq!(listed.len(), enabled, "{protocol:?}");
        assert!(
            listed.len() > 40,
            "the example tools are linked: {}",
            listed.len()
        );
        client.assert_tools_snapshot(snapshot).await;
        client.close().await;
    }
}
