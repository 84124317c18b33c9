//! The `ToolMeta` literal `expand` writes into a tool's registration: its name, titles,
//! description, hints, placement keys and what the front ends read of the attribute.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote_spanned;
use syn::LitStr;

use super::{flag, text};
use crate::ast::ToolFn;
use crate::attr::{Attrs, Sp};
use crate::check::Resolved;

/// The tool's `ToolMeta`, as a constant expression spanned by `anchor`.
pub(crate) fn meta(
    attrs: &Attrs,
    function: &ToolFn,
    resolved: &Resolved,
    private: &TokenStream,
    returns_unit: bool,
    anchor: Span,
) -> TokenStream {
    let name = text(&resolved.name.value, anchor);
    let family = text(&resolved.family, anchor);
    let description = text(function.docs.as_deref().unwrap_or_default(), anchor);
    let some_str = |value: &Option<String>| match value {
        Some(value) => {
            let value = text(value, anchor);
            quote_spanned!(anchor=> #private::Some(#value))
        }
        None => quote_spanned!(anchor=> #private::None),
    };
    let some_bool = |value: Option<bool>| match value {
        Some(value) => {
            let value = flag(value, anchor);
            quote_spanned!(anchor=> #private::Some(#value))
        }
        None => quote_spanned!(anchor=> #private::None),
    };
    let title = some_str(&attrs.title);
    let read_only = some_bool(attrs.read_only);
    let destructive = some_bool(attrs.destructive);
    let idempotent = some_bool(attrs.idempotent);
    let open_world = some_bool(attrs.open_world);
    let threading = Ident::new(attrs.threading(), anchor);
    let dangerous = flag(attrs.dangerous, anchor);
    let returns_unit = flag(returns_unit, anchor);
    let confirm = flag(attrs.confirm, anchor);
    let editor = flag(attrs.editor.is_some(), anchor);
    let task = Ident::new(
        attrs
            .task
            .as_ref()
            .map_or("Never", |task| task.value.variant()),
        anchor,
    );
    let fixed_name = some_str(&attrs.fixed_name.as_ref().map(|r| r.value.clone()));
    // A list as a `'static` slice: `&[]` when empty (most tools have no aliases, icons or
    // `_meta`), else a static of its items.
    let list = |ty: TokenStream, items: Vec<TokenStream>| {
        if items.is_empty() {
            quote_spanned!(anchor=> &[])
        } else {
            quote_spanned! {anchor=> {
                static LIST: &[#ty] = &[#(#items),*];
                LIST
            }}
        }
    };
    let cow = quote_spanned!(anchor=> #private::Cow<'static, str>);
    let borrowed = |value: &String| {
        let value = text(value, anchor);
        quote_spanned!(anchor=> #private::Cow::Borrowed(#value))
    };
    let texts = |values: &[Sp<String>]| {
        list(
            cow.clone(),
            values.iter().map(|value| borrowed(&value.value)).collect(),
        )
    };
    let aliases = texts(&attrs.aliases);
    let icons = texts(&attrs.icons);
    let meta_pairs = list(
        quote_spanned!(anchor=> (#cow, #cow)),
        attrs
            .meta
            .iter()
            .map(|(key, json)| {
                let (key, json) = (borrowed(&key.value), borrowed(json));
                quote_spanned!(anchor=> (#key, #json))
            })
            .collect(),
    );
    // The app's document, read at compile time relative to the tool's source file (the
    // literal keeps the user's span, so `include_str!` looks beside it).
    let ui = match &attrs.ui {
        Some(path) => {
            let file = path.value.rsplit('/').next().unwrap_or(&path.value);
            let uri = text(&format!("ui://{}/{file}", resolved.name.value), anchor);
            let literal = LitStr::new(&path.value, path.span);
            quote_spanned!(anchor=> #private::Some((#uri, ::core::include_str!(#literal))))
        }
        None => quote_spanned!(anchor=> #private::None),
    };
    quote_spanned! {anchor=>
        #private::ToolMeta::from_attribute(#private::AttributeMeta {
            name: #name,
            description: #description,
            family: #family,
            aliases: #aliases,
            title: #title,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            threading: #private::Threading::#threading,
            dangerous: #dangerous,
            returns_unit: #returns_unit,
            confirm: #confirm,
            location: __BURIL_LOCATION,
            fixed_name: #fixed_name,
            icons: #icons,
            meta: #meta_pairs,
            task: #private::TaskSupport::#task,
            ui: #ui,
            editor: #editor,
        })
    }
}
