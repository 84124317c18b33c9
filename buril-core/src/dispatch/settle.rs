//! Settling a call: its raw result becomes its outcome (data shaped as the output schema says,
//! a late result a timeout, warnings attached).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::compiled::OutputShape;
use crate::context::CancelToken;
use crate::envelope::Outcome;
use crate::error::{ErrorKind, ToolError};
use crate::middleware::After;
use crate::output;

/// The longest error message a call answers with, in characters: a tool's error that repeats a
/// huge input (a 100,000-character handle) is cut to a preview that says how much was cut.
pub(crate) const MAX_ERROR_CHARS: usize = 2_000;

/// What a tool's function answers, before it is settled.
pub(crate) type CallResult = Result<Value, ToolError>;

/// When a call's timeout expires.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    pub(crate) at: Instant,
    pub(crate) timeout: Duration,
}

impl Deadline {
    pub(crate) fn after(timeout: Duration) -> Self {
        Deadline {
            at: Instant::now() + timeout,
            timeout,
        }
    }

    pub(crate) fn has_passed(&self) -> bool {
        Instant::now() >= self.at
    }
}

/// What turns a call's raw result into its outcome, made when the call is admitted.
pub(crate) struct Settle {
    pub(crate) name: &'static str,
    pub(crate) shape: OutputShape,
    /// The deprecated-alias warning, if the call used an alias.
    pub(crate) warning: Option<String>,
    pub(crate) deadline: Option<Deadline>,
    /// The caller's own token, to tell a cancellation from a timeout.
    pub(crate) caller: Option<CancelToken>,
    /// The layers' `after`, when the dispatcher has layers (boxed: a call without layers
    /// moves one word for it through the pipeline).
    pub(crate) after: Option<Box<After>>,
}

impl Settle {
    pub(crate) fn outcome(self, result: CallResult) -> Outcome {
        let result = match result {
            Ok(value) => Ok(output::shape(value, self.shape)),
            Err(error) => Err(self.settle_error(error).cut_message(MAX_ERROR_CHARS)),
        };
        let mut outcome = with_warning(Outcome::from_result(result), self.warning);
        if let Some(after) = &self.after {
            after.run(&mut outcome, true);
        }
        outcome
    }

    /// A tool that stopped at its deadline (`ctx.check_cancelled()?`) timed out; it was not
    /// cancelled by anyone.
    fn settle_error(&self, error: ToolError) -> ToolError {
        match self.deadline {
            Some(deadline)
                if error.kind() == ErrorKind::Cancelled
                    && deadline.has_passed()
                    && !self.caller.as_ref().is_some_and(CancelToken::is_cancelled) =>
            {
                timeout_error(self.name, deadline.timeout)
            }
            _ => error,
        }
    }
}

/// `outcome` with the deprecated-alias warning, if any.
pub(crate) fn with_warning(outcome: Outcome, warning: Option<String>) -> Outcome {
    match warning {
        Some(warning) => outcome.with_warning(warning),
        None => outcome,
    }
}

/// A call that ran on the waiting thread itself (it could not be interrupted) and ended after
/// its deadline: a timeout, its result discarded.
pub(crate) fn discard_if_late(
    result: CallResult,
    name: &str,
    deadline: Option<Deadline>,
) -> CallResult {
    match deadline {
        Some(deadline) if Instant::now() > deadline.at => {
            Err(timeout_error(name, deadline.timeout))
        }
        _ => result,
    }
}

/// The error of a call cancelled (or timed out) before its tool started.
pub(crate) fn cancelled_before_start(name: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Cancelled,
        format!("the call to `{name}` was cancelled or timed out before it started"),
    )
}

/// The error of a call whose result never came back (its runner went away).
pub(crate) fn dropped(name: &str) -> ToolError {
    ToolError::runtime(format!("the call to `{name}` was dropped"))
}

/// The error of a call queued for a dispatcher that shut down before running it.
pub(crate) fn shut_down(name: &str) -> ToolError {
    ToolError::runtime(format!(
        "the call to `{name}` was dropped before it ran (the dispatcher shut down)"
    ))
}

pub(crate) fn timeout_error(name: &str, timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorKind::Timeout,
        format!(
            "the tool `{name}` did not finish within {}; it was asked to stop and its result, if \
             any, is discarded",
            format_duration(timeout)
        ),
    )
}

fn format_duration(duration: Duration) -> String {
    if duration.as_millis() < 1000 {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250 ms");
        assert_eq!(format_duration(Duration::from_secs(60)), "60 s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn a_result_after_the_deadline_is_a_timeout() {
        let passed = Deadline {
            at: Instant::now() - Duration::from_millis(1),
            timeout: Duration::from_millis(5),
        };
        let late_result = discard_if_late(Ok(Value::Null), "demo_tool", Some(passed));
        assert_eq!(late_result.unwrap_err().kind(), ErrorKind::Timeout);
        let ahead = Deadline::after(Duration::from_secs(3600));
        assert!(discard_if_late(Ok(Value::Null), "demo_tool", Some(ahead)).is_ok());
        assert!(discard_if_late(Ok(Value::Null), "demo_tool", None).is_ok());
    }
}
