//! `envelope.ts`: the wire envelope, the transport interface and the error a failed call
//! rejects with; `mcp.ts`, `http.ts` and `stdio.ts`: the transports. The same for every API: the files of
//! `runtime/typescript/`, as they are.

use crate::writer::SourceWriter;

/// The body of `envelope.ts`, after the header.
const FIXED: &str = include_str!("../../runtime/typescript/envelope.ts");

/// The body of `mcp.ts`: MCP results mapped to envelopes, for the transports.
pub(crate) const MCP: &str = include_str!("../../runtime/typescript/mcp.ts");

/// The line of `mcp.ts` that says whether the bindings are for another server than buril's.
const OTHER_SERVER: &str = "const FROM_OTHER_SERVER: boolean = false;";

/// `mcp.ts` for `api`: reading another server's answers when its tools are another server's.
pub(crate) fn mcp(api: &crate::ir::Api) -> std::borrow::Cow<'static, str> {
    debug_assert!(MCP.contains(OTHER_SERVER));
    if api.from_other_server {
        MCP.replace(OTHER_SERVER, "const FROM_OTHER_SERVER: boolean = true;")
            .into()
    } else {
        MCP.into()
    }
}

/// The body of `http.ts`: the Streamable HTTP transport.
pub(crate) const HTTP: &str = include_str!("../../runtime/typescript/http.ts");

/// The body of `stdio.ts`: the transport over a server process (Node).
pub(crate) const STDIO: &str = include_str!("../../runtime/typescript/stdio.ts");

/// Writes the body of `envelope.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter) {
    write_fixed(w, FIXED);
}

/// Writes a fixed file's text (after the header).
pub(crate) fn write_fixed(w: &mut SourceWriter, text: &str) {
    for line in text.lines() {
        w.line(line);
    }
}

#[cfg(test)]
mod tests {
    use super::FIXED;

    /// The string values of the union `export type {name} =` (one `| "value"` per line).
    fn union_values(name: &str) -> Vec<&'static str> {
        let start = format!("export type {name} =\n");
        let union = &FIXED[FIXED.find(&start).expect("the union") + start.len()..];
        union
            .lines()
            .map(str::trim)
            .take_while(|line| line.starts_with("/**") || line.starts_with('|'))
            .filter_map(|line| line.strip_prefix("| \""))
            .map(|line| line.trim_end_matches(';').trim_end_matches('"'))
            .collect()
    }

    /// The string items of the list `export const {name} = [` (one per line).
    fn list_items(name: &str) -> Vec<&'static str> {
        let start = format!("export const {name} = [\n");
        let list = &FIXED[FIXED.find(&start).expect("the list") + start.len()..];
        list.lines()
            .map(str::trim)
            .take_while(|line| !line.starts_with(']'))
            .map(|line| line.trim_end_matches(',').trim_matches('"'))
            .collect()
    }

    #[test]
    fn every_error_kind_of_the_runtime_is_listed() {
        let runtime: Vec<&str> = buril_core::ErrorKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(union_values("ErrorType"), runtime);
        assert_eq!(list_items("errorTypes"), runtime);
    }
}
