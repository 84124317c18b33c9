//! What the `#[tool]` attribute registers: one [`ToolDescriptor`] per tool.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use crate::args::Args;
use crate::compiled::{self, CompiledSchemas};
use crate::context::Context;
use crate::error::ToolError;

pub use crate::provider::BoxFuture;

mod keys;
pub use keys::{TaskSupport, Threading, ToolUi};

/// How the dispatcher runs a tool.
#[derive(Clone)]
pub enum Invoke {
    /// A plain function.
    Sync(fn(&Context, Args) -> Result<Value, ToolError>),
    /// An `async fn`.
    Async(fn(Context, Args) -> BoxFuture),
    /// A tool provided at run time: a handler holding what it needs (the connection to the
    /// server it forwards to, say). Runs as an async tool does.
    Provided(Arc<dyn crate::provider::ToolHandler>),
}

/// Builds a schema with the given generator.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// MCP tool annotations: hints for clients, never a security boundary. `None` leaves the MCP
/// default in place (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true).
///
/// Serialized (camelCase, `None` as `null`) in this field order wherever the annotations are
/// hashed or written, so that a new annotation needs this struct and the attribute's key, and
/// nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// A human-readable title.
    pub title: Option<Cow<'static, str>>,
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same input has no further effect.
    pub idempotent: Option<bool>,
    /// The tool reaches outside the host (the network, other processes).
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No annotation set: every hint keeps the MCP default.
    pub const NONE: Annotations = Annotations {
        title: None,
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// Whether no annotation is set.
    pub fn is_empty(&self) -> bool {
        *self == Annotations::NONE
    }
}

/// Where a tool was defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLocation {
    /// The source file, as `file!()` gives it.
    pub file: &'static str,
    /// The line of the function's name.
    pub line: u32,
    /// The module path, as `module_path!()` gives it.
    pub module: &'static str,
}

impl SourceLocation {
    /// The location of a tool described by hand (read from another process, built in a test):
    /// no file, line 0.
    pub const UNKNOWN: SourceLocation = SourceLocation {
        file: "<unknown>",
        line: 0,
        module: "",
    };
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Everything known about a tool before it runs, in one shape from the attribute to the
/// bindings: the `#[tool]` attribute writes it into the binary (borrowed strings, no
/// allocation), and codegen's sources and IR carry the same struct (owned strings when the
/// tools come from elsewhere).
///
/// ```
/// let mut meta = buril::ToolMeta::new("scene_open");
/// assert_eq!(meta.family, "scene");
/// meta.description = "Opens a scene.".into();
/// meta.annotations.idempotent = Some(true);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMeta {
    /// The stable name agents call the tool by.
    pub name: Cow<'static, str>,
    /// What the tool does: the model plans with this.
    pub description: Cow<'static, str>,
    /// The family: the name's prefix (`scene` for `scene_open`).
    pub family: Cow<'static, str>,
    /// Former names that keep working and are reported as deprecated.
    pub aliases: Cow<'static, [Cow<'static, str>]>,
    /// MCP annotations.
    pub annotations: Annotations,
    /// Where the tool's calls run: the host's main thread, or off it ([`Threading`]).
    pub threading: Threading,
    /// The tool stays off until the host enables it.
    pub dangerous: bool,
    /// The tool returns `()`: its data is the empty object.
    pub returns_unit: bool,
    /// Each call asks the caller's user to allow it first, when the caller can ask
    /// (`#[tool(confirm)]`); a call the user does not allow answers `cancelled`.
    pub confirm: bool,
    /// Where the tool was defined.
    pub location: SourceLocation,
    /// Why the name is exempt from the naming rule (`#[tool(fixed_name = "why")]`): it was
    /// fixed by someone else, such as a protocol's test suite. MCP's own name rule and the
    /// 64-character limit still hold.
    pub fixed_name: Option<Cow<'static, str>>,
    /// Icons for clients to show, by URI (MCP's `icons`; `#[tool(icons = [...])]`).
    pub icons: Cow<'static, [Cow<'static, str>]>,
    /// Extra metadata for clients (MCP's `_meta`; `#[tool(meta = [(key, value)])]`): each key
    /// with its value as JSON text.
    pub meta: Cow<'static, [(Cow<'static, str>, Cow<'static, str>)]>,
    /// Whether a call becomes a task: work that takes longer than a call should wait
    /// (`#[tool(task)]`, `#[tool(task = "required")]`).
    pub task: TaskSupport,
    /// The interactive UI hosts show with the tool's results (MCP Apps; `#[tool(ui =
    /// "map.html")]`), if it has one.
    pub ui: Option<ToolUi>,
    /// The tool is declared here and done in the Unity editor (`#[tool(editor)]`, a function
    /// without a body): a call is validated here, then forwarded to the connected editor
    /// ([`editor`](crate::editor)). [`threading`](Self::threading) then says where the editor
    /// runs it: on its main thread, or off it (`[OffThread]`).
    pub editor: bool,
}

impl ToolMeta {
    /// The metadata of a tool given by hand, with the defaults `#[tool]` uses: the family is
    /// the name's first segment; no description, aliases or annotations; main thread; not
    /// dangerous; defined at [`SourceLocation::UNKNOWN`]. Set the other fields afterwards.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        let name = name.into();
        let family = name.split('_').next().unwrap_or_default().to_owned();
        ToolMeta {
            name,
            description: Cow::Borrowed(""),
            family: Cow::Owned(family),
            aliases: Cow::Borrowed(&[]),
            annotations: Annotations::NONE,
            threading: Threading::Main,
            dangerous: false,
            returns_unit: false,
            confirm: false,
            location: SourceLocation::UNKNOWN,
            fixed_name: None,
            icons: Cow::Borrowed(&[]),
            meta: Cow::Borrowed(&[]),
            task: TaskSupport::Never,
            ui: None,
            editor: false,
        }
    }

    /// The metadata the `#[tool]` attribute writes, in a `static`.
    #[doc(hidden)]
    pub const fn from_attribute(attribute: AttributeMeta) -> Self {
        let AttributeMeta {
            name,
            description,
            family,
            aliases,
            title,
            read_only,
            destructive,
            idempotent,
            open_world,
            threading,
            dangerous,
            returns_unit,
            confirm,
            location,
            fixed_name,
            icons,
            meta,
            task,
            ui,
            editor,
        } = attribute;
        ToolMeta {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            family: Cow::Borrowed(family),
            aliases: Cow::Borrowed(aliases),
            annotations: Annotations {
                title: match title {
                    Some(title) => Some(Cow::Borrowed(title)),
                    None => None,
                },
                read_only,
                destructive,
                idempotent,
                open_world,
            },
            threading,
            dangerous,
            returns_unit,
            confirm,
            location,
            fixed_name: match fixed_name {
                Some(reason) => Some(Cow::Borrowed(reason)),
                None => None,
            },
            icons: Cow::Borrowed(icons),
            meta: Cow::Borrowed(meta),
            task,
            ui: match ui {
                Some((uri, html)) => Some(ToolUi {
                    uri: Cow::Borrowed(uri),
                    html: Cow::Borrowed(html),
                }),
                None => None,
            },
            editor,
        }
    }

    /// The aliases as string slices.
    pub fn alias_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.aliases.iter().map(|alias| alias.as_ref())
    }
}

/// What the `#[tool]` attribute knows of a tool, by name, for [`ToolMeta::from_attribute`]
/// (the generated code's; not public API).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct AttributeMeta {
    pub name: &'static str,
    pub description: &'static str,
    pub family: &'static str,
    pub aliases: &'static [Cow<'static, str>],
    pub title: Option<&'static str>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub threading: Threading,
    pub dangerous: bool,
    pub returns_unit: bool,
    pub confirm: bool,
    pub location: SourceLocation,
    pub fixed_name: Option<&'static str>,
    pub icons: &'static [Cow<'static, str>],
    pub meta: &'static [(Cow<'static, str>, Cow<'static, str>)],
    pub task: TaskSupport,
    /// The UI's `ui://` URI and its document.
    pub ui: Option<(&'static str, &'static str)>,
    /// Declared here, done in the Unity editor.
    pub editor: bool,
}

/// One registered tool. The `#[tool]` attribute creates these in a `static`; schemas and the
/// validator are built the first time something asks for them.
pub struct ToolDescriptor {
    meta: ToolMeta,
    invoke: Invoke,
    input_schema: SchemaFn,
    output_schema: SchemaFn,
    pub(crate) compiled: OnceLock<CompiledSchemas>,
    /// The hash of this tool's metadata, made on first use (see `metadata.rs`).
    pub(crate) hash: OnceLock<String>,
    /// Where a tool provided at run time comes from (`None`: linked into the binary).
    pub(crate) provided: Option<crate::provider::Provenance>,
    /// What a front end keeps of this tool once it worked it out (the MCP server: its
    /// definition, built the first time it is listed): [`ToolDescriptor::front_end_cache`].
    front_end: OnceLock<Box<dyn std::any::Any + Send + Sync>>,
}

impl ToolDescriptor {
    /// A descriptor. The `#[tool]` attribute calls this; hand-built descriptors (generated
    /// tools, tests) can too, with the plumbing of `buril::__private` (not public API).
    #[doc(hidden)]
    pub const fn new(
        meta: ToolMeta,
        invoke: Invoke,
        input_schema: SchemaFn,
        output_schema: SchemaFn,
    ) -> Self {
        ToolDescriptor {
            meta,
            invoke,
            input_schema,
            output_schema,
            compiled: OnceLock::new(),
            hash: OnceLock::new(),
            provided: None,
            front_end: OnceLock::new(),
        }
    }

    /// What the process's front end keeps of this tool, made by `make` the first time it asks:
    /// one value a tool, of the one type the front end keeps (the MCP server's cached
    /// definition), so that a call need not look it up by name. Not public API.
    ///
    /// # Panics
    ///
    /// When a value of another type was kept first: a process has one front end keeping
    /// per-tool values.
    #[doc(hidden)]
    pub fn front_end_cache<T: std::any::Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> &T {
        self.front_end
            .get_or_init(|| Box::new(make()))
            .downcast_ref::<T>()
            .expect("one type of value is kept a tool")
    }

    /// The compile-time facts about the tool.
    pub fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    /// The stable name agents call the tool by.
    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// The tool's description (its doc comment).
    pub fn description(&self) -> &str {
        &self.meta.description
    }

    /// The tool's family.
    pub fn family(&self) -> &str {
        &self.meta.family
    }

    /// Former names, still callable, reported as deprecated.
    pub fn aliases(&self) -> &[Cow<'static, str>] {
        &self.meta.aliases
    }

    /// MCP annotations.
    pub fn annotations(&self) -> &Annotations {
        &self.meta.annotations
    }

    /// Where the tool's calls run ([`Threading`]); an async tool's `Inline` (which only sync
    /// tools can be) is `OffThread`.
    pub fn threading(&self) -> Threading {
        match self.meta.threading {
            Threading::Inline if self.is_async() => Threading::OffThread,
            threading => threading,
        }
    }

    /// Whether the tool stays off until the host enables it.
    pub fn is_dangerous(&self) -> bool {
        self.meta.dangerous
    }

    /// Whether the tool runs as an async tool: an `async fn`, or a tool provided at run time.
    pub fn is_async(&self) -> bool {
        !matches!(self.invoke, Invoke::Sync(_))
    }

    /// Where the tool was defined.
    pub fn location(&self) -> &SourceLocation {
        &self.meta.location
    }

    /// How the dispatcher runs the tool.
    #[doc(hidden)]
    pub fn invoke(&self) -> &Invoke {
        &self.invoke
    }

    /// The tool's name, for the life of the process: a linked tool's is in the binary, a
    /// provided tool's is interned when the tool is made (`intern.rs`).
    #[doc(hidden)]
    pub fn static_name(&self) -> &'static str {
        match &self.meta.name {
            Cow::Borrowed(name) => name,
            Cow::Owned(name) => crate::intern::intern(name),
        }
    }

    /// The tool's family, for the life of the process (as [`static_name`](Self::static_name)).
    pub(crate) fn static_family(&self) -> &'static str {
        match &self.meta.family {
            Cow::Borrowed(family) => family,
            Cow::Owned(family) => crate::intern::intern(family),
        }
    }

    /// Where the tool comes from, when it was provided at run time (an external MCP server's
    /// tool, say); `None` for a tool linked into the binary.
    pub fn provenance(&self) -> Option<&crate::provider::Provenance> {
        self.provided.as_ref()
    }

    /// Why the tool cannot be called now: its provider is gone for the moment (an external
    /// server that exited, reconnecting). Always `None` for a linked tool.
    pub fn unavailable(&self) -> Option<Arc<str>> {
        self.provided
            .as_ref()
            .and_then(|provided| provided.provider().unavailable())
    }

    /// Whether a call must read the host's rules before it runs: the tool is dangerous, or it
    /// comes from a third party (both stay off until enabled).
    #[inline]
    pub(crate) fn is_gated(&self) -> bool {
        self.meta.dangerous || self.provided.is_some()
    }

    /// The JSON Schema (2020-12) of the tool's input: root `type: "object"`, no `$schema` key.
    pub fn input_schema(&self) -> &Value {
        &self.compiled().input
    }

    /// The JSON Schema (2020-12) of the `data` a successful call returns: root
    /// `type: "object"`. A tool whose output is not an object has its value wrapped as
    /// `{"result": value}`, and this schema says so.
    pub fn output_schema(&self) -> &Value {
        &self.compiled().output
    }

    /// `look` at the tool's schemas without keeping them: the ones built already, or ones built
    /// for the look and dropped after (a server checks every tool as it starts, and a tool's
    /// schemas are kept only once something needs them: 10,000 tools' would be most of an idle
    /// server's memory).
    pub(crate) fn look_at_schemas<R>(&self, look: impl FnOnce(&Value, &Value) -> R) -> R {
        match self.compiled.get() {
            Some(compiled) => look(&compiled.input, &compiled.output),
            None => {
                let compiled = compiled::compile(
                    self.input_schema,
                    self.output_schema,
                    self.meta.returns_unit,
                );
                look(&compiled.input, &compiled.output)
            }
        }
    }

    /// How the tool's return value becomes the envelope's `data`. Not public API.
    #[doc(hidden)]
    pub fn output_shape(&self) -> crate::compiled::OutputShape {
        self.compiled().output_shape
    }

    pub(crate) fn compiled(&self) -> &CompiledSchemas {
        // A provided tool's schemas were compiled when it was made.
        self.compiled.get_or_init(|| {
            compiled::compile(
                self.input_schema,
                self.output_schema,
                self.meta.returns_unit,
            )
        })
    }
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("meta", &self.meta)
            .field("async", &self.is_async())
            .finish_non_exhaustive()
    }
}
