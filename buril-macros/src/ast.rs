//! A typed model of the annotated function that keeps the user's tokens for error spans.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature, Type,
    Visibility,
};

use crate::diagnostics::Diagnostics;

/// A function whose body is kept as the user's tokens, not parsed.
///
/// The attribute never looks inside the body, and parsing it into a syntax tree (then printing
/// it back) was most of the macro's work per tool on every rebuild: the body is by far the
/// largest part of a tool. Kept as tokens, it also reaches the compiler exactly as written.
pub struct LazyFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    /// The braced body, untouched; `None` for a declaration (`fn name(...) -> T;`), which only
    /// an editor tool may be.
    pub body: Option<TokenTree>,
    /// The `;` ending a declaration.
    pub semi: Option<syn::Token![;]>,
}

impl Parse for LazyFn {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let sig: Signature = input.parse()?;
        if input.peek(syn::Token![;]) {
            let semi = input.parse()?;
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the declaration's `;`"));
            }
            return Ok(LazyFn {
                attrs,
                vis,
                sig,
                body: None,
                semi: Some(semi),
            });
        }
        let body: TokenTree = input.parse()?;
        match &body {
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {}
            _ => return Err(syn::Error::new(body.span(), "expected the function's body")),
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the function's body"));
        }
        Ok(LazyFn {
            attrs,
            vis,
            sig,
            body: Some(body),
            semi: None,
        })
    }
}

impl ToTokens for LazyFn {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        for attr in &self.attrs {
            attr.to_tokens(tokens);
        }
        self.vis.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
        self.semi.to_tokens(tokens);
    }
}

/// The annotated function.
pub struct ToolFn {
    /// The function, parameter doc comments removed (rustc rejects them).
    pub item: LazyFn,
    pub ident: Ident,
    pub docs: Option<String>,
    pub is_async: bool,
    pub params: Vec<Param>,
    pub ret: Return,
}

pub struct Param {
    /// The name the function body uses.
    pub ident: Ident,
    /// The whole parameter's tokens, for error spans.
    pub tokens: TokenStream,
    pub kind: ParamKind,
}

// Built once per parameter per expansion: size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ParamKind {
    /// `ctx: &buril::Context`: injected, not in the schema.
    Context,
    /// `Input(args): Input<T>`: the whole input object is `T`.
    Input { inner: Type },
    /// `name: T`: one property of the input object.
    Property(Box<Property>),
}

/// One property of the input object.
pub struct Property {
    pub wire: String,
    pub ty: Type,
    /// `Some(T)` when the type is `Option<T>`: not required.
    pub optional: Option<Type>,
    pub docs: Option<String>,
}

/// What the function returns.
#[allow(clippy::large_enum_variant)]
pub enum Return {
    Unit,
    /// `Result<T, E>` with both arguments written out.
    Result {
        ok: Type,
        err: Type,
    },
    /// Another type named `Result`, such as `io::Result<T>`.
    ResultAlias(Type),
    Plain(Type),
    /// `Option<T>` (or `Result<Option<T>, E>`): rejected.
    Option(Type),
}

impl ToolFn {
    pub fn from_item(diag: &Diagnostics, mut item: LazyFn) -> ToolFn {
        let sig = &item.sig;
        if let Some(constness) = &sig.constness {
            diag.error_spanned_by(constness, "a tool cannot be a `const fn`: remove `const`");
        }
        if let Some(unsafety) = &sig.unsafety {
            diag.error_spanned_by(
                unsafety,
                "a tool cannot be `unsafe`: the dispatcher calls it with whatever input passed \
                 validation; make it safe and check the input inside",
            );
        }
        if let Some(abi) = &sig.abi {
            diag.error_spanned_by(abi, "a tool cannot have an `extern` ABI: remove it");
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            diag.error_spanned_by(
                &sig.generics,
                "a tool cannot be generic: its schema must be known at compile time; use concrete \
                 types",
            );
        }
        if let Some(variadic) = &sig.variadic {
            diag.error_spanned_by(variadic, "a tool cannot be variadic");
        }
        let ident = sig.ident.clone();
        let is_async = sig.asyncness.is_some();
        let ret = parse_return(&sig.output);
        let docs = doc_text(&item.attrs);

        let mut params = Vec::new();
        for arg in item.sig.inputs.iter_mut() {
            match arg {
                FnArg::Receiver(receiver) => diag.error_spanned_by(
                    &*receiver,
                    "a tool is a free function: it cannot take `self`; move it out of the `impl` \
                     block and pass state through `&buril::Context`",
                ),
                FnArg::Typed(typed) => {
                    let docs = doc_text(&typed.attrs);
                    typed.attrs.retain(|attr| !attr.path().is_ident("doc"));
                    if let Some(param) = parse_param(diag, typed, docs) {
                        params.push(param);
                    }
                }
            }
        }
        ToolFn {
            item,
            ident,
            docs,
            is_async,
            params,
            ret,
        }
    }
}

fn parse_param(diag: &Diagnostics, typed: &syn::PatType, docs: Option<String>) -> Option<Param> {
    let tokens = typed.to_token_stream();
    let ty = &*typed.ty;
    if is_context(ty) {
        let Some(ident) = binding_ident(&typed.pat) else {
            diag.error_spanned_by(
                &typed.pat,
                "bind the context to a name: `ctx: &buril::Context`",
            );
            return None;
        };
        return Some(Param {
            ident,
            tokens,
            kind: ParamKind::Context,
        });
    }
    if let Type::Reference(reference) = ty
        && let Some(mutability) = &reference.mutability
        && last_segment_is(&reference.elem, "Context")
    {
        diag.error_spanned_by(
            mutability,
            "the context is shared, not exclusive: take it as `&buril::Context`",
        );
        return None;
    }
    if last_segment_is(ty, "Context") {
        diag.error_spanned_by(ty, "take the context by reference: `ctx: &buril::Context`");
        return None;
    }
    if let Some(inner) = generic_arg(ty, "Input") {
        return Some(Param {
            ident: Ident::new("__buril_input", typed.span()),
            tokens,
            kind: ParamKind::Input {
                inner: inner.clone(),
            },
        });
    }
    let Some(ident) = binding_ident(&typed.pat) else {
        diag.error_spanned_by(
            &typed.pat,
            "a tool parameter must be a plain name (`path: String`): each one names a property of \
             the input; to take the whole input as one struct use `buril::Input(args): \
             buril::Input<Args>`",
        );
        return None;
    };
    let wire = ident.to_string().trim_start_matches("r#").to_owned();
    Some(Param {
        ident,
        tokens,
        kind: ParamKind::Property(Box::new(Property {
            wire,
            ty: ty.clone(),
            optional: generic_arg(ty, "Option").cloned(),
            docs,
        })),
    })
}

fn binding_ident(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(pat) if pat.subpat.is_none() => Some(pat.ident.clone()),
        _ => None,
    }
}

/// `&Context`, `&buril::Context`, `&'a Context`.
fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(reference) => {
            reference.mutability.is_none() && last_segment_is(&reference.elem, "Context")
        }
        _ => false,
    }
}

fn last_segment_is(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == name),
        Type::Group(group) => last_segment_is(&group.elem, name),
        Type::Paren(paren) => last_segment_is(&paren.elem, name),
        _ => false,
    }
}

/// `T` in `Name<T>` (the first generic argument), when the last path segment is `name`.
pub fn generic_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else {
        return match ty {
            Type::Group(group) => generic_arg(&group.elem, name),
            Type::Paren(paren) => generic_arg(&paren.elem, name),
            _ => None,
        };
    };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

fn parse_return(output: &ReturnType) -> Return {
    let ty = match output {
        ReturnType::Default => return Return::Unit,
        ReturnType::Type(_, ty) => &**ty,
    };
    if let Type::Tuple(tuple) = ty
        && tuple.elems.is_empty()
    {
        return Return::Unit;
    }
    if last_segment_is(ty, "Option") {
        return Return::Option(ty.clone());
    }
    if last_segment_is(ty, "Result") {
        let args = type_args(ty);
        if let Some(ok) = args.first()
            && last_segment_is(ok, "Option")
        {
            return Return::Option((*ok).clone());
        }
        return match args.as_slice() {
            [ok, err] => Return::Result {
                ok: (*ok).clone(),
                err: (*err).clone(),
            },
            _ => Return::ResultAlias(ty.clone()),
        };
    }
    Return::Plain(ty.clone())
}

/// The generic type arguments of the last path segment.
fn type_args(ty: &Type) -> Vec<&Type> {
    let Type::Path(path) = ty else {
        return Vec::new();
    };
    let Some(segment) = path.path.segments.last() else {
        return Vec::new();
    };
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        })
        .collect()
}

/// The text of the `///` comments: each line with one leading space removed, trimmed.
/// `None` when there is no doc comment or it is blank.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) = &nv.value
        {
            // `split`, not `lines`: a blank `///` line is an empty string and must stay a line.
            for line in lit.value().split('\n') {
                let line = line.trim_end_matches('\r');
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let text = unwrap_paragraphs(&lines);
    (!text.is_empty()).then_some(text)
}

/// Joins the lines of each paragraph with spaces, as Markdown renders them, so that a
/// description reads the same whatever the width of the source. Blank lines, list items,
/// headings, tables, indented code and fenced code keep their line breaks.
fn unwrap_paragraphs(lines: &[String]) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    let mut joinable = false;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
            joinable = false;
            continue;
        }
        if in_fence {
            out.push('\n');
            out.push_str(line);
            continue;
        }
        if trimmed.is_empty() {
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push_str("\n\n");
            }
            joinable = false;
            continue;
        }
        let starts_block = line.starts_with("    ")
            || trimmed.starts_with(['-', '*', '+', '|', '#', '>'])
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if joinable && !starts_block {
            out.push(' ');
            out.push_str(trimmed);
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
        }
        joinable = !line.starts_with("    ");
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::unwrap_paragraphs;

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    #[test]
    fn paragraphs_are_joined_and_blocks_kept() {
        let text = "Opens a scene,\nreplacing the others.\n\nUse it when:\n- one\n  continued\n- two\n\n```\ncode\n  kept\n```";
        assert_eq!(
            unwrap_paragraphs(&lines(text)),
            "Opens a scene, replacing the others.\n\nUse it when:\n- one continued\n- two\n\n```\ncode\n  kept\n```"
        );
    }
}
