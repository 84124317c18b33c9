//! The seams a front end (the command line, the MCP server) uses beyond the public API, named
//! in one place, so that moving a front end into a crate of its own is a matter of paths:
//! `crate::frontend::X` becomes `buril::frontend::X`. Not public API: it changes with the
//! front ends.
//!
//! Besides the items below, front ends call these methods of public types, which are hidden
//! from their docs for the same reason:
//!
//! - [`Dispatcher::admit_detached`](crate::Dispatcher::admit_detached): a call admitted, and
//!   the rest of the pipeline as a future of its own (a task's, a detached CLI call's);
//! - [`Dispatcher::run_async`](crate::Dispatcher::run_async): the pipeline, answering
//!   [`Finished`] (whether the tool ran, and which tool the name resolved to);
//! - [`Dispatcher::add_layer`](crate::Dispatcher::add_layer),
//!   [`Dispatcher::add_outer_layer`](crate::Dispatcher::add_outer_layer): layers a front end
//!   adds after the host built its dispatcher (authorization, an audit log);
//! - [`CallOptions::with_task_access`](crate::CallOptions::with_task_access): the front end's
//!   tasks, as the `task_*` tools reach them, made once;
//! - [`TaskStart::task_input`](crate::tasks::TaskStart::task_input),
//!   [`TaskEnd::from_outcome`](crate::tasks::TaskEnd::from_outcome): a task's questions, and a
//!   call's outcome as a task's end.

pub use crate::compiled::OutputShape;
pub use crate::content::result_kind;
pub use crate::content::shape::ContentShape;
pub use crate::context::tasks::CallerTasks;
pub use crate::dispatch::Finished;
pub use crate::profile::check_mcp;
pub use crate::profile::mcp::annotations as mcp_annotations;
#[cfg(any(feature = "cli", feature = "studio"))]
pub use crate::profile::mcp::listing as mcp_listing;
#[cfg(any(feature = "cli", feature = "server"))]
pub use crate::result_files::{
    DEFAULT_OUTPUT_DIR, file_uri, resource_link, write as write_result_file, write_binary_blocks,
};
pub use crate::suggest::unknown_tool;
pub use crate::tasks::TaskAccess;
#[cfg(feature = "otel")]
pub use crate::telemetry::{record_operation, recording, set_parent};

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::descriptor::ToolDescriptor;

    /// A tool whose schemas nothing built yet.
    fn fresh_tool() -> &'static ToolDescriptor {
        fn invoke(
            _: &crate::context::Context,
            _: crate::args::Args,
        ) -> Result<Value, crate::error::ToolError> {
            Ok(Value::Null)
        }
        fn input(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            crate::schema::InputSchema::new(generator)
                .param::<String>("text", "A text.", true)
                .finish()
        }
        fn output(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            generator.subschema_for::<u32>()
        }
        let meta = crate::descriptor::ToolMeta::new("fresh_look");
        Box::leak(Box::new(ToolDescriptor::new(
            meta,
            crate::descriptor::Invoke::Sync(invoke),
            input,
            output,
        )))
    }

    #[test]
    fn hashing_tools_keeps_none_of_their_schemas() {
        let tool = fresh_tool();
        let looked = crate::metadata::hash_descriptors([tool]);
        assert!(
            tool.compiled.get().is_none(),
            "hashing kept the tool's schemas"
        );
        check_mcp(tool).unwrap();
        assert!(
            tool.compiled.get().is_none(),
            "checking kept the tool's schemas"
        );
        // The same hash once they are built and kept.
        let _ = tool.input_schema();
        assert!(tool.compiled.get().is_some());
        assert_eq!(crate::metadata::hash_descriptors([tool]), looked);
    }

    /// An ended legacy session leaves the server's table at once (closed by its client, or
    /// expired), not when the next session comes.
    #[cfg(feature = "server")]
    #[test]
    fn an_ended_http_session_leaves_the_table_at_once() {
        use std::time::{Duration, Instant};

        use crate::server::{HttpLimits, Server, ServerOptions};

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let limits = HttpLimits::new().idle_session(Duration::from_millis(400));
        let options = ServerOptions::new().http_limits(limits).messages(|_| {});
        let server = Server::new(crate::Dispatcher::new(), options).unwrap();
        let bound = runtime
            .block_on(server.bind_http("127.0.0.1:0".parse().unwrap()))
            .unwrap();
        let (addr, count) = (bound.local_addr(), bound.session_count());
        runtime.spawn(bound.run());
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("http://{addr}/mcp");
        let post = |session: Option<&str>, body: &str| {
            let mut request = agent
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25");
            if let Some(session) = session {
                request = request.header("mcp-session-id", session);
            }
            let response = request.send(body).unwrap();
            let status = response.status().as_u16();
            let id = response
                .headers()
                .get("mcp-session-id")
                .map(|id| id.to_str().unwrap().to_owned());
            (status, id)
        };
        let open = || {
            let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
            let (status, id) = post(None, initialize);
            assert_eq!(status, 200);
            let id = id.unwrap();
            let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            assert_eq!(post(Some(&id), initialized).0, 202);
            id
        };
        let wait_for = |sessions: usize, what: &str| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while count() != sessions {
                assert!(Instant::now() < deadline, "{what}: {} sessions", count());
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        let closed = open();
        let _expiring = open();
        wait_for(2, "both sessions registered");
        let response = agent
            .delete(&url)
            .header("mcp-session-id", &closed)
            .header("mcp-protocol-version", "2025-11-25")
            .call()
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        wait_for(1, "the closed session left");
        // The other one sends nothing: it expires, and leaves.
        wait_for(0, "the idle session left");
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(post(Some(&closed), ping).0, 404);
    }
}
