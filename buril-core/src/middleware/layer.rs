//! The [`Layer`] trait and the views of a call it is given, before and after.

use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::context::Env;
use crate::descriptor::ToolDescriptor;
use crate::envelope::Outcome;
use crate::error::ToolError;
use crate::principal::Principal;

/// Code around every call of a dispatcher, added with [`DispatcherBuilder::layer`]. Both
/// methods have defaults that do nothing.
///
/// [`DispatcherBuilder::layer`]: crate::DispatcherBuilder::layer
pub trait Layer: Send + Sync + 'static {
    /// Before the call: `Err` refuses it with that error (nothing runs).
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        let _ = call;
        Ok(())
    }

    /// After the call (or after a refusal, by this layer or one after it, or by the input's
    /// validation): sees the outcome and may change it.
    fn after(&self, call: &CallEnd<'_>, outcome: &mut Outcome) {
        let _ = (call, outcome);
    }

    /// Whether `principal` may see `tool` at all: a tool a layer hides is left out of the
    /// listings a front end gives that caller (`tools/list`) and of its "did you mean"
    /// suggestions. Default: every tool.
    fn visible(&self, tool: &ToolDescriptor, principal: Option<&Principal>) -> bool {
        let _ = (tool, principal);
        true
    }
}

/// A shared layer is a layer: keep an `Arc` to one a front end also asks (the server asks its
/// [`RequireScopes`](super::RequireScopes) which scopes a refused call lacked).
impl<L: Layer + ?Sized> Layer for Arc<L> {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        (**self).before(call)
    }

    fn after(&self, call: &CallEnd<'_>, outcome: &mut Outcome) {
        (**self).after(call, outcome);
    }

    fn visible(&self, tool: &ToolDescriptor, principal: Option<&Principal>) -> bool {
        (**self).visible(tool, principal)
    }
}

/// A call on its way in, as a [`Layer`] sees it.
pub struct Call<'a> {
    pub(crate) tool: &'a ToolDescriptor,
    pub(crate) input: &'a mut Value,
    pub(crate) rewritten: bool,
    pub(crate) principal: Option<&'a Arc<Principal>>,
    pub(crate) env: &'a Env,
    pub(crate) task: bool,
    pub(crate) started: Instant,
    pub(crate) held: &'a mut Vec<Box<dyn Any + Send + Sync>>,
    pub(crate) notes: &'a mut Notes,
}

impl<'a> Call<'a> {
    /// The tool called (its name, family, annotations and flags are its
    /// [`meta`](ToolDescriptor::meta)).
    pub fn tool(&self) -> &ToolDescriptor {
        self.tool
    }

    /// The input, as the caller sent it (or as a layer before rewrote it).
    pub fn input(&self) -> &Value {
        self.input
    }

    /// The input, to rewrite: what the layers leave is measured, validated and run.
    pub fn input_mut(&mut self) -> &mut Value {
        self.rewritten = true;
        self.input
    }

    /// Whether a layer rewrote the input (took [`input_mut`](Self::input_mut)).
    pub fn input_rewritten(&self) -> bool {
        self.rewritten
    }

    /// Who calls, when the front end authorized the call.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.map(|principal| &**principal)
    }

    /// The host state of type `T`, if the dispatcher was given one (as the tool's
    /// [`Context::try_state`](crate::Context::try_state) has it).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.env.state.get::<T>()
    }

    /// Whether the call runs as a task.
    pub fn is_task(&self) -> bool {
        self.task
    }

    /// When the layers first saw the call.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Keeps `value` for as long as the tool runs (past the call's timeout, if the tool goes
    /// on), then drops it: a permit that must outlive the call.
    pub fn hold(&mut self, value: impl Any + Send + Sync) {
        self.held.push(Box::new(value));
    }

    /// Notes `value` for this call's [`CallEnd`] (one value per type: a second replaces the
    /// first), for a layer that measures something before and reports it after.
    pub fn note<T: Any + Send + Sync>(&mut self, value: T) {
        self.notes.insert(value);
    }
}

/// A call on its way out, as a [`Layer`] sees it.
pub struct CallEnd<'a> {
    pub(crate) tool: &'a ToolDescriptor,
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) started: Instant,
    pub(crate) ran: bool,
    pub(crate) notes: &'a Notes,
}

impl CallEnd<'_> {
    /// The tool called.
    pub fn tool(&self) -> &ToolDescriptor {
        self.tool
    }

    /// Who called, when the front end authorized the call.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal
    }

    /// How long since the layers first saw the call.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether the tool ran: false when a layer or the input's validation refused the call.
    pub fn ran(&self) -> bool {
        self.ran
    }

    /// The value of type `T` a layer noted before the call ([`Call::note`]).
    pub fn note<T: Any>(&self) -> Option<&T> {
        self.notes.get::<T>()
    }
}

/// What layers noted about one call, one value per type.
#[derive(Default)]
pub(crate) struct Notes(Vec<Box<dyn Any + Send + Sync>>);

impl Notes {
    pub(crate) fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        match self.0.iter_mut().find(|slot| slot.is::<T>()) {
            Some(slot) => *slot = Box::new(value),
            None => self.0.push(Box::new(value)),
        }
    }

    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0.iter().find_map(|slot| slot.downcast_ref::<T>())
    }
}
