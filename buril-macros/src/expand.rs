//! Writes the registration beside the user's function.
//!
//! The expansion is deliberately small, because compile time matters with hundreds of tools:
//! no derive, no generated struct. Each parameter becomes one line that takes it out of the
//! validated input object, and one line of the lazily built input schema.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr};

use crate::ast::{ParamKind, Return, ToolFn};
use crate::attr::Attrs;
use crate::check::{self, Resolved};
use crate::ctxt::Ctxt;

pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new_spanned(
                &item,
                "`#[buril::tool]` goes on a free function: `fn family_verb(...) -> T { ... }`",
            );
            let error = error.into_compile_error();
            return quote!(#error #item);
        }
    };
    let cx = Ctxt::new();
    let attrs = Attrs::parse(&cx, args);
    let function = ToolFn::from_item(&cx, item);
    let resolved = check::check(&cx, &attrs, &function);
    let stripped = &function.item;
    match cx.check() {
        Ok(()) => {
            let registration = registration(&attrs, &function, &resolved);
            quote!(#stripped #registration)
        }
        Err(errors) => {
            // Fallback: the function itself still compiles, so only the real errors show.
            let errors = errors.into_compile_error();
            quote!(#errors #stripped)
        }
    }
}

fn registration(attrs: &Attrs, function: &ToolFn, resolved: &Resolved) -> TokenStream {
    let krate = attrs
        .krate
        .as_ref()
        .map(|path| quote!(#path))
        .unwrap_or_else(|| quote!(::buril));
    let private = quote!(#krate::__private);
    let fn_ident = &function.ident;
    let name = &resolved.name.value;
    let name_span = resolved.name.span;
    let family = &resolved.family;
    let description = function.docs.clone().unwrap_or_default();
    let aliases: Vec<&String> = attrs.aliases.iter().map(|a| &a.value).collect();

    let mut checks = Vec::new();
    let mut takes = Vec::new();
    let mut call_args = Vec::new();
    let mut schema_params = Vec::new();
    let mut input_struct = None;
    let ctx_ident = Ident::new("__buril_ctx", Span::mixed_site());
    let args_ident = Ident::new("__buril_args", Span::mixed_site());
    for (index, param) in function.params.iter().enumerate() {
        let local = format_ident!("__buril_p{}", index, span = Span::mixed_site());
        match &param.kind {
            ParamKind::Context => call_args.push(quote!(#ctx_ident)),
            ParamKind::Input { inner } => {
                checks.push(quote_spanned! {inner.span()=>
                    const _: () = #private::assert_parameter::<#inner>();
                });
                takes.push(quote!(let #local = #args_ident.whole::<#inner>();));
                call_args.push(quote!(#krate::Input(#private::taken(#local))));
                input_struct = Some(inner);
            }
            ParamKind::Property {
                wire,
                ty,
                optional,
                docs,
            } => {
                let checked = optional.as_ref().unwrap_or(ty);
                checks.push(quote_spanned! {checked.span()=>
                    const _: () = #private::assert_parameter::<#checked>();
                });
                let take = match optional {
                    Some(inner) => quote!(#args_ident.optional::<#inner>(#wire)),
                    None => quote!(#args_ident.required::<#ty>(#wire)),
                };
                takes.push(quote!(let #local = #take;));
                call_args.push(quote!(#private::taken(#local)));
                let docs = docs.clone().unwrap_or_default();
                let required = optional.is_none();
                schema_params.push(quote!(.param::<#ty>(#wire, #docs, #required)));
            }
        }
    }

    let (convert, output_schema, returns_unit) = match &function.ret {
        Return::Unit | Return::Option(_) => (
            quote!(#private::unit_output),
            quote!(#private::unit_schema),
            true,
        ),
        Return::Result(ty) => {
            checks.push(quote_spanned! {ty.span()=>
                const _: () = #private::assert_result::<#ty>();
            });
            (
                quote!(#private::ToolResult::into_output),
                quote!(#private::root_schema::<<#ty as #private::ToolResult>::Ok>),
                false,
            )
        }
        Return::Plain(ty) => {
            checks.push(quote_spanned! {ty.span()=>
                const _: () = #private::assert_output::<#ty>();
            });
            (
                quote!((|value: #ty| #private::to_output(&value))),
                quote!(#private::root_schema::<#ty>),
                false,
            )
        }
    };

    let input_schema = match input_struct {
        Some(inner) => quote!(#private::root_schema::<#inner>(generator)),
        None => quote!(#private::InputSchema::new(generator) #(#schema_params)* .finish()),
    };

    let invoke = if function.is_async {
        // The context is moved into the future; the function borrows it from there.
        let call_args = call_args.iter().map(|arg| {
            if arg.to_string() == ctx_ident.to_string() {
                quote!(&#ctx_ident)
            } else {
                arg.clone()
            }
        });
        quote! {
            fn invoke(
                #ctx_ident: #private::Context,
                mut #args_ident: #private::Args,
            ) -> #private::BoxFuture {
                #(#takes)*
                if let ::core::result::Result::Err(error) = #args_ident.finish() {
                    return #private::boxed(async move { ::core::result::Result::Err(error) });
                }
                #private::boxed(async move { #convert(#fn_ident(#(#call_args),*).await) })
            }
            #private::Invoke::Async(invoke)
        }
    } else {
        quote! {
            fn invoke(
                #ctx_ident: &#private::Context,
                mut #args_ident: #private::Args,
            ) -> ::core::result::Result<#private::Value, #private::ToolError> {
                #(#takes)*
                #args_ident.finish()?;
                #convert(#fn_ident(#(#call_args),*))
            }
            #private::Invoke::Sync(invoke)
        }
    };

    let opt_str = |value: &Option<String>| match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let opt_bool = |value: Option<bool>| match value {
        Some(flag) => quote!(::core::option::Option::Some(#flag)),
        None => quote!(::core::option::Option::None),
    };
    let title = opt_str(&attrs.title);
    let read_only = opt_bool(attrs.read_only);
    let destructive = opt_bool(attrs.destructive);
    let idempotent = opt_bool(attrs.idempotent);
    let open_world = opt_bool(attrs.open_world);
    let off_thread = attrs.off_thread;
    let dangerous = attrs.dangerous;
    let location = quote_spanned! {name_span=>
        #private::SourceLocation {
            file: ::core::file!(),
            line: ::core::line!(),
            module: ::core::module_path!(),
        }
    };

    // One linker symbol per name and alias: two tools claiming a name fail the build.
    let claims = std::iter::once((name.clone(), name_span))
        .chain(attrs.aliases.iter().map(|a| (a.value.clone(), a.span)))
        .map(|(claimed, span)| {
            let symbol = LitStr::new(&format!("buril.tool.{claimed}"), span);
            quote_spanned! {span=>
                #[used]
                #[unsafe(export_name = #symbol)]
                static CLAIM: u8 = 0;
            }
        });
    let claims = claims.map(|claim| quote!(const _: () = { #claim };));

    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, non_snake_case, unused_mut, clippy::all)]
        const _: () = {
            #(#checks)*
            #(#claims)*

            fn input_schema(
                generator: &mut #private::SchemaGenerator,
            ) -> #private::Schema {
                #input_schema
            }

            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
            static TOOL: #private::ToolDescriptor = #private::ToolDescriptor::new(
                #private::ToolMeta {
                    name: #name,
                    description: #description,
                    family: #family,
                    aliases: &[#(#aliases),*],
                    annotations: #private::Annotations {
                        title: #title,
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    off_thread: #off_thread,
                    dangerous: #dangerous,
                    returns_unit: #returns_unit,
                    location: #location,
                },
                { #invoke },
                input_schema,
                #output_schema,
            );
        };
    }
}

use syn::Ident;
