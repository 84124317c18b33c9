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
//! .handler(|_ctx, args| {
//!     let text = args.into_value()["text"].clone();
//!     Box::pin(async move { Ok(json!({"said": text})) })
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::Value;

pub use crate::args::Args;
use crate::context::Context;
pub use crate::descriptor::BoxFuture;
use crate::descriptor::{Invoke, Threading, ToolDescriptor, ToolMeta};

/// What runs a provided tool's calls. Any `Fn(Context, Args) -> BoxFuture` is one.
///
/// The input it gets has passed the tool's schema; the value it answers becomes the
/// envelope's data as a linked tool's does (an object, or `{"content": [...]}` for a tool
/// without an output schema).
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs one call.
    fn call(&self, ctx: Context, args: Args) -> BoxFuture;
}

impl<F> ToolHandler for F
where
    F: Fn(Context, Args) -> BoxFuture + Send + Sync + 'static,
{
    fn call(&self, ctx: Context, args: Args) -> BoxFuture {
        self(ctx, args)
    }
}

/// One source of provided tools: its name (an external server's), whether its tools are
/// enabled, and whether it can answer now. Shared by its tools, so that a provider going away
/// for a while (an external server restarting) makes each of them answer `unavailable` with
/// the reason, without being withdrawn.
pub struct Provider {
    name: String,
    enabled: AtomicBool,
    unavailable: RwLock<Option<Arc<str>>>,
}

impl Provider {
    /// A provider named `name`, its tools off until the host enables them (by a policy's
    /// pattern, or [`set_enabled`](Self::set_enabled)).
    pub fn new(name: impl Into<String>) -> Arc<Provider> {
        Arc::new(Provider {
            name: name.into(),
            enabled: AtomicBool::new(false),
            unavailable: RwLock::new(None),
        })
    }

    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether every tool of this provider is enabled, whatever the policy's patterns say (a
    /// policy's `disable` still wins).
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// Enables (or no longer enables) every tool of this provider.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Release);
    }

    /// Why the provider cannot answer now, if it cannot.
    pub fn unavailable(&self) -> Option<Arc<str>> {
        self.unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn set_unavailable(&self, reason: Option<Arc<str>>) -> bool {
        let mut slot = self.unavailable.write().unwrap_or_else(|e| e.into_inner());
        let changed = slot.is_some() != reason.is_some();
        *slot = reason;
        changed
    }
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("name", &self.name)
            .field("enabled", &self.is_enabled())
            .field("unavailable", &self.unavailable())
            .finish()
    }
}

/// Where a provided tool comes from.
#[derive(Debug, Clone)]
pub struct Provenance {
    provider: Arc<Provider>,
    original_name: Option<String>,
}

impl Provenance {
    /// The provider the tool belongs to.
    pub fn provider(&self) -> &Arc<Provider> {
        &self.provider
    }

    /// The name the tool has where it comes from (an external server's own name for it), when
    /// it differs from the name it is called by here.
    pub fn original_name(&self) -> Option<&str> {
        self.original_name.as_deref()
    }
}

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
        let mut descriptor = ToolDescriptor::new(
            meta,
            Invoke::Provided(handler),
            crate::__private::unit_schema,
            crate::__private::unit_schema,
        );
        let _ = descriptor.compiled.set(compiled);
        // What every server checks of a linked tool as it starts, checked as this one is made.
        crate::profile::check_mcp(&descriptor).map_err(|problem| error(problem.to_string()))?;
        descriptor.provided = Some(Provenance {
            // Set by the registry when the tool is provided.
            provider: Provider::new(""),
            original_name,
        });
        Ok(descriptor)
    }
}

impl ToolDescriptor {
    /// Ties a provided tool to its provider, as the registry takes it.
    pub(crate) fn provided_by(&mut self, provider: &Arc<Provider>) {
        if let Some(provenance) = &mut self.provided {
            provenance.provider = Arc::clone(provider);
        }
    }
}

/// A provided tool left out because another tool claims its name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Clash {
    /// The name the provided tool would have had here.
    pub tool: String,
    /// Its name where it comes from, when that differs.
    pub original_name: Option<String>,
    /// Its provider.
    pub provider: String,
    /// The tool that has the name: `the linked tool `x` (at file:line)`, `the tool `x` of `p``.
    pub with: String,
}

impl fmt::Display for Clash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the tool `{}` of `{}`", self.tool, self.provider)?;
        if let Some(original) = &self.original_name {
            write!(f, " (`{original}` there)")?;
        }
        write!(
            f,
            " is left out: its name is taken by {}; give `{}` another prefix",
            self.with, self.provider
        )
    }
}
