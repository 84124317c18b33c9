//! Where jobs run: a Tokio runtime of their own, started on first use, or one the host gives.

use std::sync::OnceLock;

use tokio::runtime::{Handle, Runtime};

#[derive(Default)]
pub(super) struct JobRuntime {
    /// The host's runtime, when it gave one.
    host: Option<Handle>,
    /// The jobs' own runtime, once started.
    own: OnceLock<Runtime>,
}

impl JobRuntime {
    /// Runs jobs on the runtime behind `handle` from now on.
    pub(super) fn use_host(&mut self, handle: Handle) {
        self.host = Some(handle);
    }

    /// The runtime to run jobs on: the host's, or the jobs' own (two worker threads named
    /// `buril-job`), started now if need be.
    pub(super) fn handle(&self) -> Handle {
        if let Some(handle) = &self.host {
            return handle.clone();
        }
        self.own
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("buril-job")
                    .enable_all()
                    .build()
                    .expect("the runtime for jobs could not be started")
            })
            .handle()
            .clone()
    }
}

impl Drop for JobRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.own.take() {
            runtime.shutdown_background();
        }
    }
}
