//! What `expand` writes for a tool done in the Unity editor (`#[buril::tool(editor)]` on a
//! function without a body; its rules are `check/editor.rs`): an invoke that forwards the
//! validated input to the connected editor and reads its answer back as the declared output,
//! and the declaration's types named once, since no function body uses them.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;

use crate::ast::{Return, ToolFn};
use crate::check::Resolved;

/// The invoke of an editor tool: confirmation first where asked, then the input goes to the
/// editor whole and the answer comes back through the declared output type (`editor.rs` in the
/// runtime).
pub(crate) fn forwarding(
    function: &ToolFn,
    resolved: &Resolved,
    private: &TokenStream,
    ctx: &Ident,
    args: &Ident,
    confirm: &TokenStream,
    anchor: Span,
) -> TokenStream {
    let name = super::text(&resolved.name.value, anchor);
    let forward = match output(&function.ret, private) {
        Some(ok) => quote_spanned!(anchor=> #private::editor_call::<#ok>(#ctx, #args, #name)),
        None => quote_spanned!(anchor=> #private::editor_call_unit(#ctx, #args, #name)),
    };
    quote_spanned! {anchor=>
        |#ctx, #args| {
            #confirm
            #forward
        }
    }
}

/// A declaration's types, written nowhere else: named once, so that they resolve (a type that
/// does not is reported on the user's tokens), and so that an import used only there counts as
/// used.
pub(crate) fn declared_types(function: &ToolFn, anchor: Span) -> TokenStream {
    let inputs = function
        .item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(&*typed.ty),
            syn::FnArg::Receiver(_) => None,
        });
    let output = &function.item.sig.output;
    quote_spanned!(anchor=> type __BurilDeclared = fn(#(#inputs),*) #output;)
}

/// The type an editor tool's answer is read back as (spanned by the user's type, where a type
/// that cannot be is reported); `None` for a declaration that returns nothing.
fn output(ret: &Return, private: &TokenStream) -> Option<TokenStream> {
    match ret {
        Return::Unit | Return::Option(_) => None,
        Return::Result { ok, .. } => Some(quote_spanned!(ok.span()=> #ok)),
        Return::ResultAlias(ty) => {
            Some(quote_spanned!(ty.span()=> <#ty as #private::ToolResult>::Ok))
        }
        Return::Plain(ty) => Some(quote_spanned!(ty.span()=> #ty)),
    }
}
