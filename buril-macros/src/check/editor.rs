//! The rules of a tool done in the Unity editor (`#[buril::tool(editor)]` on a function
//! without a body); what is written for it is `expand/editor.rs`.

use crate::ast::ToolFn;
use crate::attr::Attrs;
use crate::diagnostics::Diagnostics;

/// A tool done in the editor is declared without a body, and only such a tool is; its calls
/// run in the editor, so none is placed here (`inline`).
pub(crate) fn check(diag: &Diagnostics, attrs: &Attrs, function: &ToolFn) {
    let name = &function.ident;
    match (attrs.editor, &function.item.body, &function.item.semi) {
        (Some(_), Some(body), _) => diag.error_at(
            body.span(),
            format!(
                "an `editor` tool is declared here and done in the Unity editor, so it has no \
                 body: end the declaration with `;` (`fn {name}(...) -> Result<T, \
                 buril::ToolError>;`) and implement it in C# by subclassing the stub that \
                 codegen writes into the Unity package"
            ),
        ),
        (None, None, Some(semi)) => diag.error_spanned_by(
            semi,
            format!(
                "a tool needs a body: `fn {name}(...) -> T {{ ... }}`; a tool done in the Unity \
                 editor is declared without one, with `#[buril::tool(editor)]`"
            ),
        ),
        _ => {}
    }
    if let (Some(_), Some(inline)) = (attrs.editor, attrs.inline) {
        diag.error_at(
            inline,
            "an `editor` tool's calls run in the editor, not here: remove `inline` \
             (`off_thread` says the editor runs it off its main thread)",
        );
    }
}
