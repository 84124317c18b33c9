//! What a provider of tools at run time is, below the descriptors that name it: the handler a
//! provided tool runs, the provider its tools share, where a provided tool comes from, and a
//! clash of names. [`provided`](crate::provided) makes the descriptors; the registry provides
//! them.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::args::Args;
use crate::context::Context;
use crate::error::ToolError;

/// The future an async tool returns.
pub type BoxFuture = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send + 'static>>;

/// What runs a provided tool's calls. Any `Fn(Context, Args) -> impl Future<Output =
/// Result<Value, ToolError>>` is one (an `async` block it answers, say).
///
/// The input it gets has passed the tool's schema; the value it answers becomes the
/// envelope's data as a linked tool's does (an object, or the content blocks of a tool without
/// an output schema).
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs one call.
    fn call(&self, ctx: Context, args: Args) -> BoxFuture;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Context, Args) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    fn call(&self, ctx: Context, args: Args) -> BoxFuture {
        Box::pin(self(ctx, args))
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
    pub(crate) fn new(provider: Arc<Provider>, original_name: Option<String>) -> Self {
        Provenance {
            provider,
            original_name,
        }
    }

    pub(crate) fn set_provider(&mut self, provider: &Arc<Provider>) {
        self.provider = Arc::clone(provider);
    }

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
