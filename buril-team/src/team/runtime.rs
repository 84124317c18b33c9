//! Where runs run: a Tokio runtime of the team's own (with IO, for models over HTTP), started
//! on first use, or one the host gives.

use std::sync::OnceLock;

use tokio::runtime::{Handle, Runtime};

#[derive(Default)]
pub(crate) struct RunRuntime {
    /// The host's runtime, when it gave one.
    host: Option<Handle>,
    /// The team's own runtime, once started.
    own: OnceLock<Runtime>,
}

impl RunRuntime {
    /// Runs on the runtime behind `handle`.
    pub(crate) fn host(handle: Handle) -> Self {
        RunRuntime {
            host: Some(handle),
            own: OnceLock::new(),
        }
    }

    /// The runtime runs run on: the host's, or the team's own (two worker threads named
    /// `buril-team`), started now if need be.
    pub(crate) fn handle(&self) -> Handle {
        if let Some(handle) = &self.host {
            return handle.clone();
        }
        self.own
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("buril-team")
                    .enable_all()
                    .build()
                    .expect("the runtime for the team's runs could not be started")
            })
            .handle()
            .clone()
    }
}

impl Drop for RunRuntime {
    fn drop(&mut self) {
        // Without waiting: the last clone of a team may go inside an async task.
        if let Some(runtime) = self.own.take() {
            runtime.shutdown_background();
        }
    }
}
