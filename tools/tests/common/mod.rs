//! A fresh sample project per test, and calls as a client makes them: through an MCP client
//! in memory (`buril::testing`), over the server and its stdio transport, to the dispatcher.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use buril::testing::{TestClient, TestError};
use buril::{Dispatcher, Policy};
use buril_test_support::call_on;
use serde_json::Value;
use tempfile::TempDir;
use tools::Project;

/// A sample project in a temporary folder, served by a dispatcher, and a client of it.
pub struct Fixture {
    dir: TempDir,
    pub dispatcher: Dispatcher,
    client: TestClient,
    runtime: tokio::runtime::Runtime,
}

impl Fixture {
    /// The sample project, with the default policy (dangerous tools off).
    pub fn new() -> Self {
        Fixture::with_policy(Policy::new())
    }

    /// The sample project, with dangerous tools enabled.
    pub fn dangerous() -> Self {
        Fixture::with_policy(Policy::new().allow_dangerous(true))
    }

    fn with_policy(policy: Policy) -> Self {
        let dir = TempDir::new().expect("a temporary folder");
        let project = Project::open_or_create(dir.path()).expect("the sample project");
        let dispatcher = Dispatcher::builder().state(project).policy(policy).build();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let client = runtime
            .block_on(TestClient::connect(dispatcher.clone()))
            .expect("a client");
        Fixture {
            dir,
            dispatcher,
            client,
            runtime,
        }
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the project folder.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// The envelope of a call, as a client reads it from the MCP result. A tool that does not
    /// exist or is off is a JSON-RPC error over MCP (`-32602`): then the envelope is the
    /// dispatcher's, which must say so.
    pub fn call(&self, name: &str, input: Value) -> Value {
        match self.runtime.block_on(self.client.call(name, input.clone())) {
            Ok(called) => called.envelope,
            Err(TestError::Protocol { code: -32602, .. }) => {
                let envelope = call_on(&self.dispatcher, name, input);
                let kind = envelope["type"].as_str().unwrap_or_default();
                assert!(
                    kind == "not_found" || kind == "disabled",
                    "{name}: refused over MCP, but the dispatcher answered {envelope}"
                );
                envelope
            }
            Err(error) => panic!("{name}: {error}"),
        }
    }

    /// The envelope of a call straight through the dispatcher, with no client in between (for
    /// inputs no client would send whole: nested past any parser's limit, say).
    pub fn dispatch(&self, name: &str, input: Value) -> Value {
        call_on(&self.dispatcher, name, input)
    }

    /// The data of a call that must succeed.
    pub fn ok(&self, name: &str, input: Value) -> Value {
        let envelope = self.call(name, input);
        assert_eq!(envelope["ok"], true, "{name} failed: {envelope:#}");
        envelope["data"].clone()
    }

    /// The envelope of a call that must fail with `kind`.
    pub fn fails(&self, name: &str, input: Value, kind: &str) -> Value {
        let envelope = self.call(name, input);
        assert_eq!(envelope["ok"], false, "{name} succeeded: {envelope:#}");
        assert_eq!(envelope["type"], kind, "{name}: {envelope:#}");
        envelope
    }

    /// The error message of a call that must fail with `kind`.
    pub fn error(&self, name: &str, input: Value, kind: &str) -> String {
        self.fails(name, input, kind)["error"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// A project file's text.
    pub fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative))
            .unwrap_or_else(|error| panic!("{relative}: {error}"))
    }

    /// A project file's JSON.
    pub fn read_json(&self, relative: &str) -> Value {
        serde_json::from_str(&self.read(relative))
            .unwrap_or_else(|error| panic!("{relative} is not JSON: {error}"))
    }

    /// Writes a project file.
    pub fn write(&self, relative: &str, text: &str) {
        let file = self.path(relative);
        fs::create_dir_all(file.parent().expect("a parent")).expect("the folder");
        fs::write(file, text).expect("the file");
    }

    /// The object named `name` in a scene file's JSON.
    pub fn object_in_file(&self, scene: &str, name: &str) -> Option<Value> {
        self.read_json(scene)["objects"]
            .as_array()?
            .iter()
            .find(|o| o["name"] == name)
            .cloned()
    }
}

/// The sample project's main scene.
pub const MAIN: &str = "Assets/Scenes/Main.scene";

/// Ids in the sample `Main` scene.
pub const CAMERA: u64 = 1;
pub const LIGHT: u64 = 2;
pub const GROUND: u64 = 3;
pub const PLAYER: u64 = 4;
pub const WEAPON: u64 = 5;
