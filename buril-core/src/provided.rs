//! Tools that come and go while the process runs: made from JSON Schemas and a handler rather
//! than by `#[tool]`, and added to a [`Registry`](crate::Registry) by a provider (an external
//! MCP server, through the hub; a host's own source of tools).
//!
//! ```
//! use std::sync::Arc;
//! use buril::provided::{Provider, ProvidedTool};
//! use buril::{CallOptions, Dispatcher, ToolMeta};
//! use serde_json::json;
//!
//! let registry = buril::Registry::leaked(std::iter::empty()).unwrap();
//! let provider = Provider::new("echoes");
//! let mut meta = ToolMeta::new("echoes_say");
//! meta.description = "Says its text back.".into();
//! let say = ProvidedTool::new(meta, json!({
//!     "type": "object",
//!     "properties": {"text": {"type": "string"}},
//!     "required": ["text"],
//! }))
//! .handler(|_ctx, args: buril::provided::Args| async move {
//!     Ok(json!({"said": args.into_value()["text"]}))
//! })
//! .output_schema(json!({"type": "object", "properties": {"said": {"type": "string"}}}))
//! .build()
//! .unwrap();
//! registry.provide(&provider, vec![say]);
//!
//! let dispatcher = buril::DispatcherBuilder::default()
//!     .registry(registry)
//!     .policy(buril::Policy::new().enable("echoes_*".parse().unwrap()))
//!     .build();
//! let outcome = dispatcher.invoke("echoes_say", json!({"text": "hi"}), CallOptions::default());
//! assert_eq!(outcome.into_envelope(), json!({"ok": true, "data": {"said": "hi"}}));
//! ```

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

pub use crate::args::Args;
use crate::descriptor::{Invoke, Threading, ToolDescriptor, ToolMeta};
pub use crate::provider::{BoxFuture, Clash, Provenance, Provider, ToolHandler};

/// Makes a provided tool's [`ToolDescriptor`].
pub struct ProvidedTool {
    meta: ToolMeta,
    input_schema: Value,
    output_schema: Option<Value>,
    original_name: Option<String>,
    handler: Option<Arc<dyn ToolHandler>>,
}

/// Why a provided tool could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProvidedToolError {
    /// The tool's name.
    pub tool: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ProvidedToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool `{}` cannot be served: {}",
            self.tool, self.reason
        )
    }
}

impl std::error::Error for ProvidedToolError {}

impl ProvidedTool {
    /// A tool with this metadata and input schema (a JSON Schema whose root is an object).
    /// Its calls run off the host's main thread, whatever `meta.threading` says: a provided
    /// tool is an async handler.
    pub fn new(meta: ToolMeta, input_schema: Value) -> Self {
        ProvidedTool {
            meta,
            input_schema,
            output_schema: None,
            original_name: None,
            handler: None,
        }
    }

    /// The schema of the data a call answers with (its root an object). Without one, a call
    /// answers content blocks.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// The name the tool has where it comes from, when it is called otherwise here.
    pub fn original_name(mut self, name: impl Into<String>) -> Self {
        self.original_name = Some(name.into());
        self
    }

    /// What runs the calls.
    pub fn handler(mut self, handler: impl ToolHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// The descriptor, its validator compiled; fails when the name is not a tool name, there
    /// is no handler, or a schema is not usable (its root is not an object, it does not
    /// compile).
    pub fn build(self) -> Result<ToolDescriptor, ProvidedToolError> {
        let ProvidedTool {
            mut meta,
            input_schema,
            output_schema,
            original_name,
            handler,
        } = self;
        let name = meta.name.to_string();
        let error = |reason: String| ProvidedToolError {
            tool: name.clone(),
            reason,
        };
        if let Some(problem) = buril_names::check_name(&name, "the name", None) {
            return Err(error(problem));
        }
        let handler = handler.ok_or_else(|| error("it has no handler".to_owned()))?;
        let compiled = crate::compiled::given(&name, input_schema, output_schema).map_err(error)?;
        meta.name = Cow::Borrowed(crate::intern::intern(&name));
        meta.family = Cow::Borrowed(crate::intern::intern(&meta.family));
        meta.threading = Threading::OffThread;
        let mut descriptor =
            ToolDescriptor::new(meta, Invoke::Provided(handler), no_schema, no_schema);
        let _ = descriptor.compiled.set(compiled);
        // What every server checks of a linked tool as it starts, checked as this one is made.
        crate::profile::check_mcp(&descriptor).map_err(|problem| error(problem.to_string()))?;
        // The provider is set by the registry when the tool is provided.
        descriptor.provided = Some(Provenance::new(Provider::new(""), original_name));
        Ok(descriptor)
    }
}

impl ToolDescriptor {
    /// Ties a provided tool to its provider, as the registry takes it.
    pub(crate) fn provided_by(&mut self, provider: &Arc<Provider>) {
        if let Some(provenance) = &mut self.provided {
            provenance.set_provider(provider);
        }
    }
}

/// The schema functions of a provided tool, whose schemas were given (never called: its
/// compiled schemas are set as it is made).
fn no_schema(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}
