//! What every call of one dispatcher shares, as its calls' contexts hold it.

use std::sync::{Arc, Weak};

use super::state::State;
// The one name of a file above: a call's context leads back to the dispatcher that made it,
// whose registry's tools take contexts, a ring of types no order of files can break (the
// `layering` test allows this edge and no other).
pub(crate) use crate::dispatch::core::{Core, Dispatcher};

/// What every call of one dispatcher shares: its host state, and a handle to the dispatcher that
/// does not keep it alive.
pub(crate) struct Env {
    pub(crate) state: State,
    pub(crate) dispatcher: Weak<Core>,
}

impl Env {
    /// An environment of no dispatcher: a detached context's.
    pub(crate) fn detached(state: State) -> Self {
        Env {
            state,
            dispatcher: Weak::new(),
        }
    }

    /// The dispatcher, while any clone of it is alive.
    pub(crate) fn dispatcher(&self) -> Option<Dispatcher> {
        self.dispatcher.upgrade().map(|core| Dispatcher { core })
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
