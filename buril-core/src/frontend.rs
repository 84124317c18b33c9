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

pub use crate::compiled::{OutputShape, blocks_output};
pub use crate::content::result_kind;
pub use crate::content::shape::ContentShape;
pub use crate::context::tasks::CallerTasks;
pub use crate::dispatch::Finished;
pub use crate::intern::intern;
pub use crate::profile::check_mcp;
pub use crate::profile::mcp::annotations as mcp_annotations;
pub use crate::profile::mcp::listing as mcp_listing;
pub use crate::result_files::{
    DEFAULT_OUTPUT_DIR, file_uri, resource_link, write as write_result_file, write_binary_blocks,
};
pub use crate::suggest::unknown_tool;
pub use crate::tasks::TaskAccess;

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
}
