//! A tool's parameters: the types a parameter may have ([`Parameter`]), and the properties of
//! a tool as one value, taken out of the input and described in the input schema with one call
//! each, instead of a statement per parameter.
//!
//! The attribute writes the tool's properties as a tuple of markers, one per parameter, in
//! order (`(<String as Parameter>::REQUIRED, <u32 as Parameter>::OPTIONAL)`, each a
//! [`Property`]), nested in tuples of at most twelve for longer lists, and passes it to
//! [`take`] and [`input_schema`]. Each marker is spanned by its parameter's type, so a type
//! that cannot be a parameter is still reported on the user's type. A tool's expansion then
//! holds a marker, a name and a description per parameter instead of two statements, and no
//! function of its own, which is what an edit in a crate of many tools pays for (BENCHMARKS.md,
//! "The edit loop, fifth round"); the generic code is instantiated once per list of types,
//! shared by the tools that have the same one.
//!
//! Not public API (re-exported through `buril::__private`).

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use crate::args::{Args, taken};
use crate::error::ToolError;
use crate::schema::{InputSchema, root_schema};

/// A type a tool parameter may have: `Deserialize` for the call, `JsonSchema` for the schema.
/// The expansion names each parameter's marker through this trait
/// (`<T as Parameter>::REQUIRED`), so that a missing derive is reported once, on the user's
/// type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "a tool parameter needs `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait Parameter: Sized {
    /// Converts the required property `name`, taken by [`Args::split`].
    fn from_required(args: &mut Args, name: &str, value: Option<Value>) -> Option<Self>;
    /// Converts the optional property `name`, taken by [`Args::split`].
    fn from_optional(args: &mut Args, name: &str, value: Option<Value>) -> Option<Option<Self>>;
    /// Takes the whole input.
    fn whole(args: &mut Args) -> Option<Self>;
    /// Adds the required property `name` to an input schema.
    fn property<'g>(schema: InputSchema<'g>, name: &str, description: &str) -> InputSchema<'g>;
    /// Adds the optional (nullable) property `name` to an input schema.
    fn optional_property<'g>(
        schema: InputSchema<'g>,
        name: &str,
        description: &str,
    ) -> InputSchema<'g>;
    /// The schema of the whole input.
    fn input_schema(generator: &mut SchemaGenerator) -> Schema;
    /// The marker of a required property of this type (see the module's docs).
    const REQUIRED: Property<Self> = Property::<Self>::REQUIRED;
    /// The marker of an optional property of this type.
    const OPTIONAL: Property<Option<Self>> = Property::<Option<Self>>::OPTIONAL;
}

impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> Parameter for T {
    #[inline]
    fn from_required(args: &mut Args, name: &str, value: Option<Value>) -> Option<Self> {
        args.required_value(name, value)
    }
    #[inline]
    fn from_optional(args: &mut Args, name: &str, value: Option<Value>) -> Option<Option<Self>> {
        args.optional_value(name, value)
    }
    #[inline]
    fn whole(args: &mut Args) -> Option<Self> {
        args.whole()
    }
    fn property<'g>(schema: InputSchema<'g>, name: &str, description: &str) -> InputSchema<'g> {
        schema.param::<T>(name, description, true)
    }
    fn optional_property<'g>(
        schema: InputSchema<'g>,
        name: &str,
        description: &str,
    ) -> InputSchema<'g> {
        schema.param::<Option<T>>(name, description, false)
    }
    fn input_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = root_schema::<T>(generator);
        // Like a tool with parameters, a closed struct rejects properties it does not know,
        // instead of dropping them silently.
        if let Some(object) = schema.as_object_mut()
            && object.get("type").and_then(Value::as_str) == Some("object")
            && object.contains_key("properties")
            && !object.contains_key("additionalProperties")
            && !object.contains_key("unevaluatedProperties")
        {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        schema
    }
}

/// One property whose value is a `V`: the functions converting it and describing it, taken from
/// the parameter's type. The attribute writes `<T as Parameter>::REQUIRED` (a `Property<T>`) or
/// `<T as Parameter>::OPTIONAL` (a `Property<Option<T>>`: absent and `null` are both `None`), so
/// that a type that cannot be a parameter is reported on the user's type, by `Parameter`'s
/// message; since the marker holds the functions, nothing after it asks the type for a bound
/// again (which would report the same problem a second time, on the tool's name).
pub struct Property<V> {
    take: fn(&mut Args, &str, Option<Value>) -> Option<V>,
    schema: for<'g> fn(InputSchema<'g>, &str, &str) -> InputSchema<'g>,
}

impl<T: Parameter> Property<T> {
    const REQUIRED: Self = Property {
        take: T::from_required,
        schema: T::property,
    };
}

impl<T: Parameter> Property<Option<T>> {
    const OPTIONAL: Self = Property {
        take: T::from_optional,
        schema: T::optional_property,
    };
}

/// One property, or a tuple of them.
pub trait Properties {
    /// The values the tool's function takes, in order (a tuple for a tuple).
    type Values;

    /// Converts the next values of `values`, recording every problem in `args` (every
    /// property is converted even after one fails, so that all problems are reported).
    /// `None` when one failed.
    fn take(&self, args: &mut Args, values: &mut Values<'_>) -> Option<Self::Values>;

    /// Adds the next properties of `docs` (name, description) to `schema`.
    fn schema<'g>(&self, schema: InputSchema<'g>, docs: &mut Docs<'_>) -> InputSchema<'g>;
}

/// The values of a tool's properties as `Args::split` took them out of the input, in order,
/// with their names; each property takes the next.
pub struct Values<'a> {
    names: &'a [&'static str],
    values: &'a mut [Option<Value>],
    at: usize,
}

impl Values<'_> {
    /// The next property's name and value (the attribute names every property once).
    #[inline(always)]
    fn next(&mut self) -> (&'static str, Option<Value>) {
        let at = self.at;
        self.at += 1;
        (self.names[at], self.values[at].take())
    }
}

/// The names and descriptions of a tool's properties, in order; each property takes the next.
pub type Docs<'a> = std::slice::Iter<'a, (&'static str, &'static str)>;

impl<V> Properties for Property<V> {
    type Values = V;

    #[inline(always)]
    fn take(&self, args: &mut Args, values: &mut Values<'_>) -> Option<V> {
        let (name, value) = values.next();
        (self.take)(args, name, value)
    }

    #[inline]
    fn schema<'g>(&self, schema: InputSchema<'g>, docs: &mut Docs<'_>) -> InputSchema<'g> {
        let Some(&(name, description)) = docs.next() else {
            unreachable!("the attribute describes every property once")
        };
        (self.schema)(schema, name, description)
    }
}

/// `Properties` for tuples of one to twelve properties (or tuples of them).
macro_rules! tuples {
    ($(($($p:ident $v:ident),+))+) => {$(
        impl<$($p: Properties),+> Properties for ($($p,)+) {
            type Values = ($($p::Values,)+);

            #[inline(always)]
            fn take(&self, args: &mut Args, values: &mut Values<'_>) -> Option<Self::Values> {
                let ($($v,)+) = self;
                // Every property first, then the `?`s: each failure is recorded.
                $(let $v = $v.take(args, values);)+
                Some(($($v?,)+))
            }

            #[inline]
            fn schema<'g>(&self, schema: InputSchema<'g>, docs: &mut Docs<'_>) -> InputSchema<'g> {
                let ($($v,)+) = self;
                $(let schema = $v.schema(schema, docs);)+
                schema
            }
        }
    )+};
}

tuples! {
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, D d)
    (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f)
    (A a, B b, C c, D d, E e, F f, G g)
    (A a, B b, C c, D d, E e, F f, G g, H h)
    (A a, B b, C c, D d, E e, F f, G g, H h, J j)
    (A a, B b, C c, D d, E e, F f, G g, H h, J j, K k)
    (A a, B b, C c, D d, E e, F f, G g, H h, J j, K k, L l)
    (A a, B b, C c, D d, E e, F f, G g, H h, J j, K k, L l, M m)
}

/// Takes the properties `names` (in the order of `P`) out of the input in one pass, converts
/// each, and ends the input: a validation error listing every problem, or the values.
#[inline(always)]
pub fn take<P: Properties, const N: usize>(
    mut args: Args,
    names: [&'static str; N],
    properties: P,
) -> Result<P::Values, ToolError> {
    let mut values = args.split(names);
    let values = properties.take(
        &mut args,
        &mut Values {
            names: &names,
            values: &mut values,
            at: 0,
        },
    );
    args.finish()?;
    Ok(taken(values))
}

/// The input schema's properties (name, description), in the order of `P`; the expansion adds
/// any headers and finishes it.
#[inline]
pub fn input_schema<'g, P: Properties, const N: usize>(
    generator: &'g mut SchemaGenerator,
    docs: [(&'static str, &'static str); N],
    properties: P,
) -> InputSchema<'g> {
    properties.schema(InputSchema::new(generator), &mut docs.iter())
}
