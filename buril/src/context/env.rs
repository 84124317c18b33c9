//! What every call of one dispatcher shares, as its calls' contexts hold it.

use std::any::Any;
use std::sync::{Arc, Weak};

use super::state::State;

/// What every call of one dispatcher shares: its host state, and a handle to the dispatcher that
/// does not keep it alive. The handle is type-erased so that contexts need not know the
/// dispatcher's type (the dispatch module, which does, gives [`Context::dispatcher`]).
///
/// [`Context::dispatcher`]: super::Context::dispatcher
pub(crate) struct Env {
    pub(crate) state: State,
    pub(crate) dispatcher: Weak<dyn Any + Send + Sync>,
}

impl Env {
    /// An environment of no dispatcher: a detached context's.
    pub(crate) fn detached(state: State) -> Self {
        Env {
            state,
            dispatcher: Weak::<()>::new(),
        }
    }
}

/// How a context holds its dispatcher's [`Env`]: counted, or borrowed for good from the
/// process-wide dispatcher, which is never dropped (no reference count per call then).
#[derive(Clone)]
pub(crate) enum EnvRef {
    Shared(Arc<Env>),
    Static(&'static Env),
}

impl std::ops::Deref for EnvRef {
    type Target = Env;

    fn deref(&self) -> &Env {
        match self {
            EnvRef::Shared(env) => env,
            EnvRef::Static(env) => env,
        }
    }
}
