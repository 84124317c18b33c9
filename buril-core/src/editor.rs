//! Tools declared here and done in the Unity editor.
//!
//! A tool that must touch the live editor (compile its scripts, read its console, enter play
//! mode) is declared in Rust as a function without a body, and implemented in C# by a class of
//! the editor that subclasses the stub codegen writes into the Unity package:
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// What a compile reported.
//! #[derive(Serialize, Deserialize, JsonSchema)]
//! pub struct CompileReport {
//!     /// How many errors.
//!     pub errors: u32,
//! }
//!
//! /// Compiles the project's scripts and answers what the compiler reported.
//! #[buril::tool(editor)]
//! fn unity_compile() -> Result<CompileReport, buril::ToolError>;
//!
//! // No editor connected: the call is validated, then answered `unavailable`.
//! let outcome = buril::Dispatcher::global().invoke(
//!     "unity_compile",
//!     serde_json::json!({}),
//!     buril::CallOptions::default(),
//! );
//! assert_eq!(outcome.into_envelope()["type"], "unavailable");
//! ```
//!
//! The declaration is a tool like any other: its name is linted, its doc comments are its
//! description, its parameters and output give its schemas, and every front end lists it. A
//! call is validated here against the input schema, then handed to the [`EditorLink`] the host
//! connected ([`connect`]; the MCP side's link reaches the editor's host on loopback), and the
//! editor's answer is read back as the declared output type before it becomes the envelope's
//! data: the editor cannot answer what the declaration does not promise. With no link, or a
//! link that cannot reach an editor, the call answers `{"ok": false, "type": "unavailable"}`
//! with how to connect one. `off_thread` on the declaration is the editor's placement (the C#
//! stub carries `[OffThread]`); here the call is a request on its way, and runs as a task.

use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::context::Context;
use crate::error::{ErrorKind, ToolError};
use crate::provider::BoxFuture;

/// What connects the tools declared with `#[tool(editor)]` to an editor.
pub trait EditorLink: Send + Sync + 'static {
    /// Forwards one call of the declared tool `tool`, whose `input` passed its schema here.
    /// Answers the envelope's data as the editor gave it, or the call's error (`unavailable`
    /// when no editor can answer now, with why).
    fn call(&self, ctx: Context, tool: &'static str, input: Value) -> BoxFuture;
}

static LINK: RwLock<Option<Arc<dyn EditorLink>>> = RwLock::new(None);

/// Makes `link` the one the declared editor tools' calls go through, in place of any before
/// it (answered).
pub fn connect(link: Arc<dyn EditorLink>) -> Option<Arc<dyn EditorLink>> {
    LINK.write()
        .unwrap_or_else(|e| e.into_inner())
        .replace(link)
}

/// Takes the link away: the declared editor tools answer `unavailable` again.
pub fn disconnect() -> Option<Arc<dyn EditorLink>> {
    LINK.write().unwrap_or_else(|e| e.into_inner()).take()
}

/// The link calls go through now, if any.
pub fn link() -> Option<Arc<dyn EditorLink>> {
    LINK.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// How a user connects an editor, for the messages of the calls that found none.
pub const HOW_TO_CONNECT: &str = "open the project in the Unity editor with the buril package \
installed (its host writes Library/Buril/editor.json), then run buril from the project's folder \
or with `--editor PROJECT_FOLDER`";

/// The error of a call of `tool` that no editor can answer: `reason`, then how to connect one.
pub fn unavailable(tool: &str, reason: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Unavailable,
        format!("`{tool}` is done in the Unity editor, and {reason}: {HOW_TO_CONNECT}"),
    )
}

/// The call of a declared editor tool: forwarded through the link, its answer read as `T`.
pub(crate) async fn forward<T>(
    ctx: Context,
    tool: &'static str,
    input: Value,
) -> Result<T, ToolError>
where
    T: serde::de::DeserializeOwned,
{
    let Some(link) = link() else {
        return Err(unavailable(tool, "no editor is connected"));
    };
    let mut data = link.call(ctx, tool, input).await?;
    // The editor answers the data as the declaration's output schema has it (`{"result": …}`
    // around a value that is not an object, `{"content": […]}` around blocks).
    if let Some(declared) = crate::registry::registry()
        .get(tool)
        .and_then(|found| found.as_linked())
    {
        data = crate::output::unshape(data, declared.output_shape());
    }
    serde_json::from_value(data).map_err(|error| {
        ToolError::runtime(format!(
            "the editor's answer to `{tool}` is not what its declaration promises: {error}"
        ))
    })
}
