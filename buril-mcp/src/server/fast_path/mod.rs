//! The fast paths: a plain `tools/call` answered without the SDK's machinery around it, which
//! for a quick tool is most of a call's time (profiled: the handler and the dispatcher were
//! about 7% of an HTTP call through the SDK's session worker). Each path does what the SDK
//! would, and hands anything else to the SDK unchanged.
//!
//! - **Parsing** (`parse.rs`): a frame that is a `tools/call` with a name, arguments and
//!   `_meta` only is read straight into rmcp's message type; the generic parser buffers every
//!   message as untyped content first. The bindings' metadata hashes in `_meta` are read as
//!   borrowed text and dropped there when they are this server's; the last `_meta` a thread
//!   read is kept by its text, since a client sends the same one with every call.
//! - **Stdio** (`frame.rs`): once the client is known (a legacy client finished `initialize`,
//!   a stateless client sent its first request), such a call runs on a task of its own and its
//!   answer goes straight to the writer, not through the service loop's channels (two
//!   hand-offs between threads a call).
//! - **HTTP** (`http.rs`): such a call of a legacy session, or a stateless (2026-07-28) call,
//!   runs on the connection's task, answered as one `application/json` body, not through the
//!   session's worker (legacy) or a service loop started for the request (stateless) and an
//!   event stream.
//!
//! Both eras share every step (`call.rs`): which calls are taken (their route, `route.rs`: the
//! era decides only where the client's capabilities are read from, the session or the call's
//! `_meta`), and the call's run, through the SDK's own dispatch of a request to the handler, which checks a
//! stateless call's version and `_meta` and shapes the result for the caller's revision
//! (`resultType` and cache hints from 2026-07-28 on, the legacy shape before). A call takes a
//! fast path only when its plan is `CallPlan::Plain` and it needs nothing of the SDK's service
//! loop: nothing it could send its client before its answer (no progress token, no log
//! messages asked for, and for a legacy session a client that can answer no questions
//! mid-call; a stateless call's questions are its `input_required` answer).
//!
//! What the fast paths do as rmcp 3.11 does (rmcp is pinned to that version, and every server
//! test runs with the fast paths on and off, `BURIL_FAST_PATHS=off` or
//! `ServerOptions::fast_paths(false)`, so that a difference fails a test):
//!
//! | rmcp's behaviour | mirrored in |
//! | --- | --- |
//! | the message its parser makes of a `tools/call` frame | `parse.rs` (tested against the generic parser) |
//! | a call registered with its session, so that `notifications/cancelled` cancels it; a cancelled call gets no answer over stdio | `call.rs`, `frame.rs` |
//! | a result shaped for the caller's revision; a stateless call's version and `_meta` checked | `call.rs` (the SDK's own dispatch) |
//! | a stateless call's HTTP status: 400 for an unsupported version, a missing capability or a contradicting header, 404 for an unknown method | `http.rs` |
//! | calls in flight given 5 s to answer once the input ends (2 s when the session ends otherwise) | `frame.rs` |
//! | the Streamable HTTP checks: `Host` against the allowed hosts (DNS rebinding), any `Origin` left to rmcp, `Content-Type: application/json`, `Accept` naming JSON and event streams, a known `MCP-Protocol-Version` of the session era, no other `Mcp-*` header, a session rmcp still knows (a closed one answers 404 there); for a stateless call, a `MCP-Protocol-Version` of that era equal to the `_meta` version, `Mcp-Method`/`Mcp-Name` equal to the body's, no `Mcp-Param-*` header and no parameter mirrored into one | `http.rs` |

mod call;
mod http;
mod parse;

pub(crate) use self::call::{answer, encode, register};
pub(crate) use self::http::{Fast, Hosts, stateless_callers};
pub(crate) use self::parse::{CallParts, FastCall, message_of};
