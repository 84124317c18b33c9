//! Admission, the pipeline's first stage: the name looked up (or its alias), the policy and the
//! caller's tool view applied, the input measured against the limits and validated.
//! What comes out is a call ready to run and what will settle it, or the outcome of a refusal.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::core::Core;
use super::options::CallOptions;
use super::settle::{Deadline, Settle, with_warning};
use crate::args::Args;
use crate::context::{CancelToken, Context, Parts};
use crate::envelope::Outcome;
use crate::error::{ErrorKind, Problem, ToolError};
use crate::input_limits::drop_iteratively;
use crate::middleware::Entered;
use crate::pattern::ToolView;
use crate::principal::Principal;
use crate::suggest;
use crate::tool_ref::ToolRef;
use crate::validate::Validator;

/// A call that passed admission: the tool, its input, its context and its deadline.
pub(crate) struct Admitted {
    pub(crate) tool: ToolRef,
    pub(crate) args: Args,
    /// Holds this call's own token (a child of the caller's), made when first needed.
    pub(crate) ctx: Context,
    pub(crate) deadline: Option<Deadline>,
}

/// A call refused at admission: nothing ran.
pub(crate) struct Refused {
    /// The tool the name resolved to, if it did.
    pub(crate) tool: Option<ToolRef>,
    pub(crate) outcome: Outcome,
}

impl Refused {
    fn new(tool: Option<ToolRef>, outcome: Outcome) -> Self {
        Refused { tool, outcome }
    }
}

/// Admits a call of `name` with `input`, or answers why not.
pub(crate) fn admit(
    core: &Arc<Core>,
    name: &str,
    input: Value,
    options: CallOptions,
) -> Result<(Admitted, Settle), Refused> {
    let Some(found) = core.registry.lookup(name) else {
        // Measured first all the same: a refused input is freed without recursion.
        if let Err(exceeded) = core.limits.check(&input) {
            drop_iteratively(input);
            return Err(Refused::new(
                None,
                Outcome::err(core.limits.error(exceeded)),
            ));
        }
        let suggestions = callable_suggestions(
            core,
            name,
            options.view.as_deref(),
            options.principal.as_deref(),
        );
        let message = suggest::unknown_tool(name, &suggestions);
        let error = ToolError::new(ErrorKind::NotFound, message).with_suggestions(suggestions);
        return Err(Refused::new(None, Outcome::err(error)));
    };
    let tool = found.tool;
    let warning = found.via_alias.then(|| {
        format!(
            "`{name}` is a deprecated name of `{}`; call `{}` instead",
            tool.name(),
            tool.name()
        )
    });
    let refuse = |error: ToolError, entered: Option<&Entered>| {
        let mut outcome = with_warning(Outcome::err(error), warning.clone());
        if let Some(entered) = entered {
            entered.after.run(&mut outcome, false);
        }
        Refused::new(Some(tool.clone()), outcome)
    };
    // Whether the caller may call the tool at all comes first. Rules that disable nothing and
    // set no timeout allow every tool that is neither dangerous nor a third party's: no lock
    // then. Otherwise read once, under the read lock (no clone of their `Arc`).
    let mut timeout = options.timeout;
    if tool.is_gated() || !core.rules_open() {
        let rules = core.rules();
        if let Err(error) = rules.policy.check(&tool) {
            drop(rules);
            drop_iteratively(input);
            return Err(refuse(error, None));
        }
        if timeout.is_none() {
            timeout = if options.task {
                rules.timeouts.per_tool.get(tool.name()).copied()
            } else {
                rules.timeouts.for_tool(tool.name())
            };
        }
    }
    // A provided tool whose provider is gone for the moment (an external server restarting).
    if let Some(reason) = tool.unavailable() {
        drop_iteratively(input);
        return Err(refuse(
            ToolError::new(
                ErrorKind::Unavailable,
                format!("the tool `{}` is unavailable: {reason}", tool.name()),
            ),
            None,
        ));
    }
    if let Some(view) = &options.view
        && !view.allows(tool.name())
    {
        drop_iteratively(input);
        return Err(refuse(
            ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "the tool `{}` is outside this caller's tool view {view}",
                    tool.name()
                ),
            ),
            None,
        ));
    }
    // The layers see the call before its input is measured and validated: what they leave
    // (rewritten or not) is what is checked and run.
    let mut input = input;
    let entered = if core.layers.any() {
        let mut entered = core.layers.before(
            &tool,
            &mut input,
            options.principal.as_ref(),
            &core.env,
            options.task,
        );
        if let Some(error) = entered.refusal.take() {
            drop_iteratively(input);
            return Err(refuse(error, Some(&entered)));
        }
        Some(entered)
    } else {
        None
    };
    let entered_ref = entered.as_ref();
    let compiled = tool.compiled();
    let compiled_validator = compiled.validator(tool.name());
    // A tool whose input schema is an object of scalars checks an input's validity and its
    // size in one pass (such an input nests one level deep). Anything else is measured
    // before it is validated: a refused input never reaches the (recursive) validator, and is
    // freed without recursion.
    let checked = compiled_validator
        .as_ref()
        .ok()
        .and_then(Validator::shape)
        .and_then(|shape| shape.measure(&input))
        .is_some_and(|len| core.limits.admits_flat(len));
    if !checked && let Err(exceeded) = core.limits.check(&input) {
        drop_iteratively(input);
        return Err(refuse(core.limits.error(exceeded), entered_ref));
    }
    let validator = compiled_validator.as_ref().map_err(|message| {
        refuse(
            ToolError::runtime(format!("the tool is misconfigured: {message}")),
            entered_ref,
        )
    })?;
    let input = if input.is_null() {
        Value::Object(Map::new())
    } else {
        input
    };
    if !checked {
        let problems = validator.problems(&input);
        if !problems.is_empty() {
            return Err(refuse(ToolError::from_problems(problems), entered_ref));
        }
    }
    let Value::Object(object) = input else {
        let problem = Problem::new("", "expected an object");
        return Err(refuse(ToolError::from_problems(vec![problem]), entered_ref));
    };
    let deadline = timeout.map(Deadline::after);
    let (held, after) = match entered {
        Some(entered) => (entered.held, Some(Box::new(entered.after))),
        None => (Vec::new(), None),
    };
    let ctx = Context::new(Parts {
        tool: tool.static_name(),
        cancel: options.cancel.as_ref().map(CancelToken::child),
        deadline: deadline.map(|deadline| deadline.at),
        progress: options.progress,
        log: options.log,
        input: options.input,
        env: core.env_for_call(),
        // A deferred task tool's call is not a task until the tool says so (its starter).
        task: options.task && options.starter.is_none(),
        tasks: options.tasks,
        starter: options.starter,
        principal: options.principal,
        held,
    });
    let settle = Settle {
        name: tool.static_name(),
        shape: compiled.output_shape,
        warning,
        deadline,
        caller: options.cancel,
        after,
    };
    let admitted = Admitted {
        tool,
        args: Args::new(object),
        ctx,
        deadline,
    };
    Ok((admitted, settle))
}

/// Up to three names close to `name` among the tools this caller may call (the policy now,
/// and `view` when given), best first, for "did you mean".
pub(crate) fn callable_suggestions(
    core: &Core,
    name: &str,
    view: Option<&ToolView>,
    principal: Option<&Principal>,
) -> Vec<String> {
    let policy = Arc::clone(&core.rules().policy);
    let callable: Vec<ToolRef> = core
        .registry
        .iter()
        .filter(|tool| {
            policy.allows(tool)
                && view.is_none_or(|view| view.allows(tool.name()))
                && core.layers.visible(tool, principal)
        })
        .collect();
    suggest::similar(name, callable.iter().map(|tool| tool.name()))
        .into_iter()
        .take(3)
        .map(str::to_owned)
        .collect()
}
