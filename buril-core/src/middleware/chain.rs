//! A dispatcher's layers, and one call through them.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use serde_json::Value;

use super::layer::{Call, CallEnd, Layer, Notes};
use crate::context::Env;
use crate::descriptor::ToolDescriptor;
use crate::envelope::Outcome;
use crate::error::ToolError;
use crate::principal::Principal;
use crate::tool_ref::ToolRef;

type List = Arc<[Arc<dyn Layer>]>;

/// The layers of one dispatcher, in order. A call reads [`any`](Self::any) (one atomic load)
/// and, only when there are layers, the list (a reference count).
pub(crate) struct Layers {
    list: RwLock<List>,
    any: AtomicBool,
}

impl Layers {
    pub(crate) fn new(list: Vec<Arc<dyn Layer>>) -> Self {
        Layers {
            any: AtomicBool::new(!list.is_empty()),
            list: RwLock::new(list.into()),
        }
    }

    /// Adds `layer` innermost (after every layer there is) or `outermost`, for calls
    /// admitted from now on.
    pub(crate) fn push(&self, layer: Arc<dyn Layer>, outermost: bool) {
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        let mut layers: Vec<Arc<dyn Layer>> = list.iter().cloned().collect();
        if outermost {
            layers.insert(0, layer);
        } else {
            layers.push(layer);
        }
        *list = layers.into();
        self.any.store(true, Ordering::Release);
    }

    /// Whether there are any.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    fn current(&self) -> List {
        Arc::clone(&self.list.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Whether every layer lets `principal` see `tool`.
    pub(crate) fn visible(&self, tool: &ToolDescriptor, principal: Option<&Principal>) -> bool {
        !self.any()
            || self
                .current()
                .iter()
                .all(|layer| layer.visible(tool, principal))
    }

    /// Runs every layer's `before` on a call, up to the first that refuses. Answers what runs
    /// their `after`, what they hold while the tool runs, and the refusal, if one refused.
    pub(crate) fn before(
        &self,
        tool: &ToolRef,
        input: &mut Value,
        principal: Option<&Arc<Principal>>,
        env: &Env,
        task: bool,
    ) -> Entered {
        let layers = self.current();
        let started = Instant::now();
        let mut held = Vec::new();
        let mut notes = Notes::default();
        let mut passed = 0;
        let mut refusal = None;
        {
            let mut call = Call {
                tool,
                input,
                rewritten: false,
                principal,
                env,
                task,
                started,
                held: &mut held,
                notes: &mut notes,
            };
            for layer in layers.iter() {
                match layer.before(&mut call) {
                    Ok(()) => passed += 1,
                    Err(error) => {
                        refusal = Some(error);
                        break;
                    }
                }
            }
        }
        Entered {
            after: After {
                layers,
                passed,
                tool: tool.clone(),
                principal: principal.cloned(),
                started,
                notes,
            },
            held,
            refusal,
        }
    }
}

/// A call through the layers' `before`.
pub(crate) struct Entered {
    pub(crate) after: After,
    /// What the layers hold while the tool runs.
    pub(crate) held: Vec<Box<dyn Any + Send + Sync>>,
    /// The error of the layer that refused the call.
    pub(crate) refusal: Option<ToolError>,
}

/// The layers' `after` of one call: those whose `before` passed it, innermost first.
pub(crate) struct After {
    layers: List,
    passed: usize,
    tool: ToolRef,
    principal: Option<Arc<Principal>>,
    started: Instant,
    notes: Notes,
}

impl After {
    /// Runs them on the call's outcome; `ran` says whether the tool ran.
    pub(crate) fn run(&self, outcome: &mut Outcome, ran: bool) {
        let end = CallEnd {
            tool: &self.tool,
            principal: self.principal.as_deref(),
            started: self.started,
            ran,
            notes: &self.notes,
        };
        for layer in self.layers[..self.passed].iter().rev() {
            layer.after(&end, outcome);
        }
    }
}
