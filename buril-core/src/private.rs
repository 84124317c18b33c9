//! What the `#[tool]` expansion refers to. Not public API: it may change in any release.

pub use std::borrow::Cow;
pub use std::option::Option::{None, Some};
pub use std::result::Result::{self, Err, Ok};

pub use linkme;
pub use schemars::{Schema, SchemaGenerator};
pub use serde_json::Value;

pub use crate::args::{Args, taken};
pub use crate::context::Context;
pub use crate::descriptor::{
    AttributeMeta, BoxFuture, Invoke, SchemaFn, SourceLocation, TaskSupport, Threading,
    ToolDescriptor, ToolMeta,
};
pub use crate::error::ToolError;
pub use crate::output::{ToolResult, to_output};
pub use crate::properties::{Parameter, Property, input_schema, take};
pub use crate::registry::TOOLS;
pub use crate::schema::{
    InputSchema, empty_object_schema, input_generator, output_generator, root_schema,
};

/// The output of a tool returning `()`.
#[inline]
/// Before a tool marked `confirm` runs: asks the caller's user to allow it, when the caller
/// can ask (`Ok` when it cannot: the host's policy already let the tool run); an error of
/// kind `cancelled` when the user did not allow it.
pub fn confirm_first(ctx: &Context, args: &Args) -> Result<(), ToolError> {
    use crate::context::{Elicited, InputKind, InputRequest};
    if !ctx.can_ask(InputKind::Elicitation) {
        return Ok(());
    }
    let tool = ctx.tool_name();
    let message = format!(
        "Allow the tool `{tool}` to run with this input? {}",
        args.preview(500)
    );
    let answer = ctx.ask_as("buril_confirm", InputRequest::confirm(message))?;
    let allowed = matches!(
        Elicited::<serde_json::Map<String, Value>>::from_answer(&answer)?,
        Elicited::Accepted(fields) if fields.get("confirm") == Some(&Value::Bool(true))
    );
    if allowed {
        Ok(())
    } else {
        Err(ToolError::new(
            crate::error::ErrorKind::Cancelled,
            format!("the user did not allow `{tool}` to run"),
        ))
    }
}

pub fn unit_output(_: ()) -> Result<Value, ToolError> {
    Ok(Value::Object(serde_json::Map::new()))
}

/// The output schema of a tool returning `()` (replaced by the empty object schema).
pub fn unit_schema(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}

/// Boxes the future of an async tool.
#[inline]
pub fn boxed<F>(future: F) -> BoxFuture
where
    F: std::future::Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    Box::pin(future)
}

/// A type an editor tool (`#[tool(editor)]`) may output: a tool's [`Output`], and
/// `Deserialize`, since the editor's answer is read back as it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of a tool done in the editor",
    label = "the editor's answer is read back as this type",
    note = "derive `serde::Deserialize` beside `serde::Serialize` and `schemars::JsonSchema`"
)]
pub trait EditorOutput: Output + serde::de::DeserializeOwned + 'static {}

impl<T: Output + serde::de::DeserializeOwned + 'static> EditorOutput for T {}

/// The call of a `#[tool(editor)]` declaration whose output is `T`: its validated input
/// forwarded to the editor ([`crate::editor`]), the answer read back as `T`.
pub fn editor_call<T: EditorOutput>(ctx: Context, args: Args, tool: &'static str) -> BoxFuture {
    let input = args.into_value();
    Box::pin(async move {
        crate::editor::forward::<T>(ctx, tool, input)
            .await?
            .into_output()
    })
}

/// [`editor_call`] of a declaration that returns nothing: the editor's data is ignored.
pub fn editor_call_unit(ctx: Context, args: Args, tool: &'static str) -> BoxFuture {
    let input = args.into_value();
    Box::pin(async move {
        crate::editor::forward::<serde::de::IgnoredAny>(ctx, tool, input).await?;
        unit_output(())
    })
}

/// A type a tool may output: `Serialize` for the call, `JsonSchema` for the schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "a tool's output needs `serde::Serialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait Output: Sized {
    /// Serializes the output.
    fn into_output(self) -> Result<Value, ToolError>;
    /// The schema of the output.
    fn output_schema(generator: &mut SchemaGenerator) -> Schema;
}

impl<T: serde::Serialize + schemars::JsonSchema> Output for T {
    #[inline]
    fn into_output(self) -> Result<Value, ToolError> {
        to_output(&self)
    }
    fn output_schema(generator: &mut SchemaGenerator) -> Schema {
        root_schema::<T>(generator)
    }
}

/// Converting a tool's error, chosen at the expansion's conversion site by method resolution
/// (autoref specialization), first match wins:
///
/// 1. `E: Into<ToolError>`: `ToolError` itself, any `std::error::Error` (its source chain
///    appended), or a type with its own `From<E> for ToolError`;
/// 2. `Box<dyn Error>` (`+ Send`, `+ Send + Sync`): its message and source chain, like any
///    `std::error::Error`;
/// 3. any other `Display` type (`anyhow::Error`, `eyre::Report`, `String`, `&str`): a runtime
///    error whose message is `format!("{e:#}")`, which for anyhow and eyre is the whole context
///    chain (`outer: inner`).
///
/// The expansion writes `ErrorOf(&error).kind().convert(error)` with [`ChainFallback`] and
/// [`DisplayFallback`] in scope: the inherent `kind` exists only where `E: Into<ToolError>`; the
/// traits' `kind` are found after it, by value and then through a reference.
pub struct ErrorOf<'a, E>(pub &'a E);

/// The error converts with `Into<ToolError>`.
pub struct IntoKind;

/// The error is a boxed `dyn Error`: its message and source chain.
pub struct ChainKind;

/// The error is converted through [`ErrorSource`] (`Display`).
pub struct DisplayKind;

impl<E: Into<ToolError>> ErrorOf<'_, E> {
    /// Tier 1: `Into<ToolError>`.
    #[inline]
    pub fn kind(self) -> IntoKind {
        IntoKind
    }
}

/// Tier 2: a boxed `dyn Error`.
pub trait ChainFallback {
    /// The tier.
    fn kind(self) -> ChainKind;
}

impl ChainFallback for ErrorOf<'_, Box<dyn std::error::Error + 'static>> {
    #[inline]
    fn kind(self) -> ChainKind {
        ChainKind
    }
}

impl ChainFallback for ErrorOf<'_, Box<dyn std::error::Error + Send + 'static>> {
    #[inline]
    fn kind(self) -> ChainKind {
        ChainKind
    }
}

impl ChainFallback for ErrorOf<'_, Box<dyn std::error::Error + Send + Sync + 'static>> {
    #[inline]
    fn kind(self) -> ChainKind {
        ChainKind
    }
}

/// Tier 3: anything else, which must be [`ErrorSource`] (`Display`); found through a
/// reference, after the other tiers.
pub trait DisplayFallback {
    /// The tier.
    fn kind(self) -> DisplayKind;
}

impl<E> DisplayFallback for &ErrorOf<'_, E> {
    #[inline]
    fn kind(self) -> DisplayKind {
        DisplayKind
    }
}

impl IntoKind {
    /// Converts the error with `Into<ToolError>`.
    #[inline]
    pub fn convert<E: Into<ToolError>>(self, error: E) -> ToolError {
        error.into()
    }
}

impl ChainKind {
    /// Converts a boxed error with its source chain.
    #[inline]
    pub fn convert<E: BoxedError>(self, error: E) -> ToolError {
        ToolError::runtime(crate::error::chain_message(error.as_error()))
    }
}

/// A boxed `dyn Error`, with or without `Send` and `Sync`.
pub trait BoxedError {
    /// The error inside.
    fn as_error(&self) -> &(dyn std::error::Error + 'static);
}

impl BoxedError for Box<dyn std::error::Error + 'static> {
    fn as_error(&self) -> &(dyn std::error::Error + 'static) {
        &**self
    }
}

impl BoxedError for Box<dyn std::error::Error + Send + 'static> {
    fn as_error(&self) -> &(dyn std::error::Error + 'static) {
        &**self
    }
}

impl BoxedError for Box<dyn std::error::Error + Send + Sync + 'static> {
    fn as_error(&self) -> &(dyn std::error::Error + 'static) {
        &**self
    }
}

impl DisplayKind {
    /// Converts the error through [`ErrorSource`].
    #[inline]
    pub fn convert<E: ErrorSource>(self, error: E) -> ToolError {
        error.into_tool_error()
    }
}

/// An error type a tool may return in `Result<T, E>` that does not convert into `ToolError`:
/// any `Display` type, its message `format!("{e:#}")`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error of a tool",
    label = "a tool's error must be `buril::ToolError`, a `std::error::Error`, or a type that implements `Display`",
    note = "accepted: `ToolError`, any `std::error::Error`, `Box<dyn Error + Send + Sync>`, `anyhow::Error`, `eyre::Report`, `String`, `&str`, or any type with `From<{Self}> for buril::ToolError`",
    note = "to fix it, implement `std::fmt::Display` or `std::error::Error` for `{Self}`, or map the error where it is made: `.map_err(|e| buril::ToolError::runtime(format!(\"{{e:?}}\")))`"
)]
pub trait ErrorSource {
    /// Converts the error.
    fn into_tool_error(self) -> ToolError;
}

impl<E: std::fmt::Display> ErrorSource for E {
    #[inline]
    fn into_tool_error(self) -> ToolError {
        ToolError::from_display(self)
    }
}

/// The output schema of a tool returning a `Result` alias (`io::Result<T>`).
pub fn result_schema<R: ToolResult>(generator: &mut SchemaGenerator) -> Schema
where
    R::Ok: Output,
{
    <R::Ok as Output>::output_schema(generator)
}
