//! What a tool's attribute keys say of it beside its schemas: where its calls run
//! ([`Threading`]), whether they become tasks ([`TaskSupport`]) and its interactive UI
//! ([`ToolUi`]).

use std::borrow::Cow;

/// A tool's interactive UI, as MCP Apps (the extension `io.modelcontextprotocol/ui`) has it: an
/// HTML document a host renders in a sandboxed frame beside the tool's result, which may call
/// the server's tools through the host. Served through `resources/read` at [`uri`](Self::uri)
/// with the MIME type [`MIME_TYPE`](Self::MIME_TYPE), to clients that declare the extension.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolUi {
    /// Where the document is served: a `ui://` URI (the attribute's is
    /// `ui://TOOL_NAME/FILE_NAME`).
    pub uri: Cow<'static, str>,
    /// The whole HTML5 document, scripts and styles inline.
    pub html: Cow<'static, str>,
}

impl ToolUi {
    /// The MIME type of an app's document: `text/html;profile=mcp-app`.
    pub const MIME_TYPE: &'static str = "text/html;profile=mcp-app";

    /// The extension's identifier, in the `extensions` capability: `io.modelcontextprotocol/ui`.
    pub const EXTENSION: &'static str = "io.modelcontextprotocol/ui";

    /// The UI at `uri` (a `ui://` URI) with the document `html`.
    pub fn new(uri: impl Into<Cow<'static, str>>, html: impl Into<Cow<'static, str>>) -> Self {
        ToolUi {
            uri: uri.into(),
            html: html.into(),
        }
    }
}

/// Where a tool's calls run, as the `#[tool]` attribute's keys `off_thread` and `inline` say.
///
/// | attribute | `Threading` | a call from sync code | a call from async code (the MCP server) |
/// | --- | --- | --- | --- |
/// | (none) | `Main` | the host's main thread, one call at a time, in order | the same |
/// | `off_thread` | `OffThread` | the calling thread (a thread of the blocking pool when the call has a timeout) | a sync lane (a thread of buril's kept awake, one a core) or a thread of the blocking pool: the tool may block |
/// | `off_thread, inline` | `Inline` | the calling thread | the caller's task: its timeout cannot interrupt it |
///
/// An async tool runs as a task of the dispatcher's runtime whichever it says, unless it is
/// `Main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum Threading {
    /// On the host's main thread (see [`MainThread`](crate::MainThread)): the default, for
    /// tools that touch state only the main thread may touch.
    #[default]
    Main,
    /// Off the main thread (`#[tool(off_thread)]`), on a thread that may block: a sync tool
    /// called from async code runs on a sync lane or a thread of the blocking pool, never in
    /// its caller's task, so network or disk IO, a lock or a runtime of its own slow only its own calls.
    OffThread,
    /// On the thread or task that calls it (`#[tool(off_thread, inline)]`), with no hand-off
    /// to a pool: for sync tools that return quickly and never block. Its timeout cannot
    /// interrupt it; a result that comes after the deadline is answered as a timeout.
    Inline,
}

impl Threading {
    /// Whether the tool may run off the host's main thread.
    pub const fn is_off_thread(self) -> bool {
        !matches!(self, Threading::Main)
    }

    /// The word `describe` shows: `main`, `off_thread`, `inline`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Threading::Main => "main",
            Threading::OffThread => "off_thread",
            Threading::Inline => "inline",
        }
    }
}

/// Whether calls of a tool become tasks (`#[tool(task)]`): the call answers at once with a task
/// the caller follows (polls, answers questions of, cancels) until the work ends.
///
/// Over MCP a task is the tasks extension's (`io.modelcontextprotocol/tasks`); on the command
/// line, `tools call --detach` and `tools tasks`. Where the caller cannot follow a task, an
/// `Optional` tool's call simply waits for the work, and a `Required` one's is refused (MCP's
/// `-32021`, naming the extension), and a `Handle` one answers with the task's handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Calls answer when the tool returns (the default).
    #[default]
    Never,
    /// A call becomes a task where the caller can follow one, and waits for the work
    /// elsewhere (`#[tool(task)]`).
    Optional,
    /// A call is always a task; a caller who cannot follow one is refused
    /// (`#[tool(task = "required")]`).
    Required,
    /// A call is always a task; a caller who cannot follow one gets the task's handle as the
    /// call's data (`{"handle": …, "status": "working"}`, the seed's handle) and follows it
    /// with the `task_get`, `task_wait` and `task_cancel` tools (`#[tool(task = "handle")]`;
    /// [`task_tools!`](crate::task_tools) registers those).
    Handle,
    /// The call runs as a plain one (its questions asked of the caller as any call's, in MCP
    /// 2026-07-28's `input_required` rounds) until the tool calls
    /// [`Context::start_task`](crate::Context::start_task), and becomes a task from there where
    /// the caller can follow one; elsewhere it simply goes on (`#[tool(task = "deferred")]`):
    /// for a tool that gathers what it needs first, then works long.
    Deferred,
}

impl TaskSupport {
    /// The attribute's and the metadata's word: `"never"`, `"optional"`, `"required"`,
    /// `"handle"`, `"deferred"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Never => "never",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
            TaskSupport::Handle => "handle",
            TaskSupport::Deferred => "deferred",
        }
    }

    /// Whether calls may become tasks.
    pub const fn is_task(self) -> bool {
        !matches!(self, TaskSupport::Never)
    }
}
