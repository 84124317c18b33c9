//! [`RateLimit`] and [`ConcurrencyLimit`]: layers that refuse calls over a limit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::layer::{Call, Layer};
use crate::error::{ErrorKind, ToolError};

/// What one rate limit counts calls by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Per {
    Principal,
    Tool,
    PrincipalAndTool,
}

/// A layer that lets each principal, each tool, or each principal on each tool make at most
/// `calls` calls per `period`, in bursts of up to `calls`; a call over the limit answers
/// `type: "limited"`, saying when to try again. Callers nobody authorized count as one
/// principal. Refused calls do not count.
///
/// ```
/// use std::time::Duration;
/// use buril::middleware::RateLimit;
///
/// // 10 calls a second per principal, and `scene_save` 1 a second per principal.
/// let dispatcher = buril::Dispatcher::builder()
///     .layer(RateLimit::per_principal(10, Duration::from_secs(1)))
///     .layer(RateLimit::per_principal(1, Duration::from_secs(1)).only("scene_save"))
///     .build();
/// # let _ = dispatcher;
/// ```
#[derive(Debug)]
pub struct RateLimit {
    per: Per,
    calls: u32,
    period: Duration,
    /// The tools it counts (by name); empty: every tool.
    only: Vec<String>,
    /// When each key's next call is theoretically due (GCRA).
    due: Mutex<HashMap<(String, &'static str), Instant>>,
}

impl RateLimit {
    fn new(per: Per, calls: u32, period: Duration) -> Self {
        RateLimit {
            per,
            calls: calls.max(1),
            period: period.max(Duration::from_nanos(1)),
            only: Vec::new(),
            due: Mutex::new(HashMap::new()),
        }
    }

    /// At most `calls` per `period` for each principal, over all the tools it counts.
    pub fn per_principal(calls: u32, period: Duration) -> Self {
        RateLimit::new(Per::Principal, calls, period)
    }

    /// At most `calls` per `period` for each tool, over all callers.
    pub fn per_tool(calls: u32, period: Duration) -> Self {
        RateLimit::new(Per::Tool, calls, period)
    }

    /// At most `calls` per `period` for each principal on each tool.
    pub fn per_principal_and_tool(calls: u32, period: Duration) -> Self {
        RateLimit::new(Per::PrincipalAndTool, calls, period)
    }

    /// Counts the calls of the tool named `tool` only (call again for more tools).
    pub fn only(mut self, tool: impl Into<String>) -> Self {
        self.only.push(tool.into());
        self
    }

    /// The time between two calls at the steady rate.
    fn interval(&self) -> Duration {
        self.period / self.calls
    }
}

impl Layer for RateLimit {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        let tool = call.tool().static_name();
        if !self.only.is_empty() && !self.only.iter().any(|name| name == tool) {
            return Ok(());
        }
        let subject = || {
            call.principal()
                .map_or_else(String::new, |p| p.subject.clone())
        };
        let key = match self.per {
            Per::Principal => (subject(), ""),
            Per::Tool => (String::new(), tool),
            Per::PrincipalAndTool => (subject(), tool),
        };
        let now = Instant::now();
        let interval = self.interval();
        // A burst of `calls` fits: a call is allowed while its due time is no further ahead
        // than the period less one interval.
        let tolerance = self.period.saturating_sub(interval);
        let mut due = self.due.lock().unwrap_or_else(|e| e.into_inner());
        if due.len() > 4096 {
            due.retain(|_, at| *at > now);
        }
        let at = due.get(&key).copied().unwrap_or(now).max(now);
        if at > now + tolerance {
            let wait = at - tolerance - now;
            drop(due);
            let whom = match self.per {
                Per::Principal => format!(
                    " for `{}`",
                    call.principal().map_or("anonymous", |p| &p.subject)
                ),
                Per::Tool => String::new(),
                Per::PrincipalAndTool => format!(
                    " for `{}` on this tool",
                    call.principal().map_or("anonymous", |p| &p.subject)
                ),
            };
            return Err(ToolError::new(
                ErrorKind::Limited,
                format!(
                    "`{tool}` is over its rate limit of {} calls per {}{whom}; try again in {} ms",
                    self.calls,
                    seconds(self.period),
                    wait.as_millis().max(1)
                ),
            ));
        }
        due.insert(key, at + interval);
        Ok(())
    }
}

fn seconds(period: Duration) -> String {
    let secs = period.as_secs_f64();
    if secs == 1.0 {
        "second".to_owned()
    } else {
        format!("{secs} s")
    }
}

/// A layer that lets at most `n` calls of a tool run at once; one more answers
/// `type: "limited"` at once (it does not wait: the caller decides whether to retry). A call
/// holds its place for as long as its tool runs, past its timeout if the tool goes on.
///
/// ```
/// use buril::middleware::ConcurrencyLimit;
///
/// // Each tool at most 8 at once, `asset_import` 1.
/// let dispatcher = buril::Dispatcher::builder()
///     .layer(ConcurrencyLimit::each_tool(8).tool("asset_import", 1))
///     .build();
/// # let _ = dispatcher;
/// ```
#[derive(Debug, Clone)]
pub struct ConcurrencyLimit {
    each: Option<usize>,
    tools: HashMap<String, usize>,
    running: Arc<Mutex<HashMap<&'static str, usize>>>,
}

impl ConcurrencyLimit {
    /// At most `n` calls of each tool at once (at least 1).
    pub fn each_tool(n: usize) -> Self {
        ConcurrencyLimit {
            each: Some(n.max(1)),
            tools: HashMap::new(),
            running: Arc::default(),
        }
    }

    /// No limit but those set with [`tool`](Self::tool).
    pub fn tools() -> Self {
        ConcurrencyLimit {
            each: None,
            tools: HashMap::new(),
            running: Arc::default(),
        }
    }

    /// At most `n` calls of the tool named `tool` at once (at least 1).
    pub fn tool(mut self, tool: impl Into<String>, n: usize) -> Self {
        self.tools.insert(tool.into(), n.max(1));
        self
    }
}

/// A running call's place, given back when dropped.
struct Place {
    tool: &'static str,
    running: Arc<Mutex<HashMap<&'static str, usize>>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = running.get_mut(self.tool) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                running.remove(self.tool);
            }
        }
    }
}

impl Layer for ConcurrencyLimit {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        let tool = call.tool().static_name();
        let Some(limit) = self.tools.get(tool).copied().or(self.each) else {
            return Ok(());
        };
        {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            let count = running.entry(tool).or_insert(0);
            if *count >= limit {
                return Err(ToolError::new(
                    ErrorKind::Limited,
                    format!(
                        "`{tool}` already runs {limit} call{} at once, its limit; try again when \
                         one has ended",
                        if limit == 1 { "" } else { "s" }
                    ),
                ));
            }
            *count += 1;
        }
        call.hold(Place {
            tool,
            running: Arc::clone(&self.running),
        });
        Ok(())
    }
}
