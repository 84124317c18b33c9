//! The names the generated files export besides those of the tools and types (the runtime
//! parts, the tables of `tools.ts`, the 64-bit integer alias): the writers write them, and the
//! plan claims them before any tool or type can take one.

/// What `envelope.ts` exports (all of it is fixed: `runtime/typescript/envelope.ts`).
pub(crate) const ENVELOPE: &[&str] = &[
    "ErrorType",
    "errorTypes",
    "Problem",
    "EnvelopeSuccess",
    "EnvelopeFailure",
    "Envelope",
    "Progress",
    "AbortSignalLike",
    "CallOptions",
    "ToolTransport",
    "JsonRpcError",
    "BurilToolError",
];

/// What `tools.ts` exports besides the per-tool constants: the tables written for the tools,
/// and the handler types of `runtime/typescript/tool-handlers.ts`.
pub(crate) const TOOLS: &[&str] = &[
    "ToolMap",
    "ToolName",
    "ToolHandler",
    "ToolHandlers",
    "PartialToolHandlers",
    "tools",
    "toolAliases",
    "METADATA_HASH",
];

/// What `client.ts` exports besides the per-tool functions (`runtime/typescript/client.ts`).
pub(crate) const CLIENT: &[&str] = &[
    "callTool",
    "startTask",
    "TASKS_EXTENSION",
    "TaskStatus",
    "TaskSnapshot",
    "TaskWaitOptions",
    "TaskHandle",
    "TaskToolName",
];

/// What `mcp.ts` exports (`runtime/typescript/mcp.ts`): MCP results mapped to envelopes, and the transport over an MCP client.
pub(crate) const MCP: &[&str] = &[
    "envelopeFromCallResult",
    "envelopeFromJsonRpcError",
    "serverMetadataHashOf",
    "mcpProgressOf",
    "McpProgressLike",
    "McpRequestOptionsLike",
    "McpClientLike",
    "McpTransport",
    "mcpTransport",
];

/// What `http.ts` exports (`runtime/typescript/http.ts`): the Streamable HTTP transport.
pub(crate) const HTTP: &[&str] = &[
    "MCP_PROTOCOL_VERSION",
    "FetchInit",
    "FetchResponseLike",
    "FetchLike",
    "HttpTransportOptions",
    "HttpTransport",
    "httpTransport",
];

/// What `stdio.ts` exports (`runtime/typescript/stdio.ts`): the transport over a server process.
pub(crate) const STDIO: &[&str] = &["StdioTransportOptions", "StdioTransport", "stdioTransport"];

/// The alias for 64-bit integers that `types.ts` exports.
pub(crate) const INT64: &str = "Int64";
