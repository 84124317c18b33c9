//! A fast check for the most common input schema: an object of scalar properties.
//!
//! Most tools take a few strings, numbers, integers and flags, some optional. For such a schema
//! the general validator walks a tree of keyword validators per call; [`Shape`] checks the same
//! rules with one pass over the input's properties. It is built only when every keyword of the
//! schema is one it implements exactly, and it answers exactly as the validator does (a test
//! compares the two on thousands of inputs), so a call it accepts skips the validator. What it
//! refuses goes to the validator, which words the problems.

use serde_json::{Map, Number, Value};

use crate::args::same_name;
use crate::input_limits::scalar_len;

/// The JSON types a property may have, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Types(u8);

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const STRING: u8 = 4;
    /// Any number.
    const NUMBER: u8 = 8;
    /// A number with no fractional part (`1.0` included, as JSON Schema counts it).
    const INTEGER: u8 = 16;

    fn named(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "string" => Self::STRING,
            "number" => Self::NUMBER,
            "integer" => Self::INTEGER,
            _ => return None,
        })
    }

    fn has(self, bits: u8) -> bool {
        self.0 & bits != 0
    }
}

/// A bound of a number: an integer (any that a JSON number stores exactly: the range of
/// every Rust integer type fits), compared exactly with every JSON number, whether stored as
/// `u64`, `i64` or `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound(i128);

impl Bound {
    /// The bound `value` sets, when it is an integer stored exactly.
    fn of(value: &Value) -> Option<Bound> {
        if let Some(n) = value.as_u64() {
            return Some(Bound(n.into()));
        }
        if let Some(n) = value.as_i64() {
            return Some(Bound(n.into()));
        }
        // A bound written as a float: exact when integral and within 2^53.
        let f = value.as_f64()?;
        (f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0).then_some(Bound(f as i128))
    }

    /// Whether `number` is below this bound.
    fn is_above(self, number: &Number) -> bool {
        compare(number, self.0) == std::cmp::Ordering::Less
    }

    /// Whether `number` is above this bound.
    fn is_below(self, number: &Number) -> bool {
        compare(number, self.0) == std::cmp::Ordering::Greater
    }
}

/// `number` compared with the integer `bound`, exactly.
fn compare(number: &Number, bound: i128) -> std::cmp::Ordering {
    if let Some(n) = number.as_u64() {
        return i128::from(n).cmp(&bound);
    }
    if let Some(n) = number.as_i64() {
        return i128::from(n).cmp(&bound);
    }
    let f = number.as_f64().unwrap_or(f64::NAN);
    // Integral floats are exact integers; `as` saturates past i128's range, where no bound is.
    if f.fract() == 0.0 {
        return (f as i128).cmp(&bound);
    }
    // A fraction lies between two integers: compare its floor, and a tie means above.
    match (f.floor() as i128).cmp(&bound) {
        std::cmp::Ordering::Equal => std::cmp::Ordering::Greater,
        other => other,
    }
}

#[derive(Debug)]
struct Property {
    name: Box<str>,
    types: Types,
    required: bool,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
}

/// An object schema whose properties are all scalars, checked in one pass.
#[derive(Debug)]
pub(crate) struct Shape {
    properties: Box<[Property]>,
    required: usize,
}

/// Keywords that annotate and never make an instance invalid.
fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "description"
            | "title"
            | "default"
            | "examples"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
    )
}

impl Shape {
    /// The shape of `schema`, or `None` when it uses anything beyond scalar properties (then the
    /// general validator alone decides).
    pub(crate) fn of(schema: &Value) -> Option<Shape> {
        let root = schema.as_object()?;
        let mut properties = Vec::new();
        let mut closed = false;
        let mut required_names: &[Value] = &[];
        for (key, value) in root {
            match key.as_str() {
                "type" if value == "object" => {}
                "properties" => {
                    for (name, property) in value.as_object()? {
                        properties.push(Property::of(name, property)?);
                    }
                }
                "required" => required_names = value.as_array()?,
                // Closed objects only: then a valid input is an object of scalars, all of
                // which the shape has looked at (and measured).
                "additionalProperties" if value == false => closed = true,
                // Definitions only matter through a `$ref`, which no scalar property has.
                "$schema" | "$defs" | "definitions" => {}
                key if is_annotation(key) => {}
                _ => return None,
            }
        }
        // Without `type: "object"` a non-object input would be valid.
        if root.get("type")? != "object" || !closed {
            return None;
        }
        let mut required = 0;
        for name in required_names {
            let name = name.as_str()?;
            let property = properties.iter_mut().find(|p| *p.name == *name)?;
            if !property.required {
                property.required = true;
                required += 1;
            }
        }
        Some(Shape {
            properties: properties.into_boxed_slice(),
            required,
        })
    }

    /// The length of a valid input's compact text, as the input limits count it; `None` when
    /// the input is not valid (exactly when the validator of the schema says so). Valid inputs
    /// are objects of scalars, so one pass does both.
    pub(crate) fn measure(&self, input: &Value) -> Option<usize> {
        let Value::Object(object) = input else {
            return None;
        };
        self.measure_object(object)
    }

    fn measure_object(&self, object: &Map<String, Value>) -> Option<usize> {
        let mut required = 0;
        // Braces and commas; then each quoted key, its colon and its value.
        let mut len = 2 + object.len().saturating_sub(1);
        for (key, value) in object {
            match self.properties.iter().find(|p| same_name(&p.name, key)) {
                Some(property) => {
                    if !property.accepts(value) {
                        return None;
                    }
                    required += usize::from(property.required);
                }
                None => return None,
            }
            len = len.saturating_add(key.len() + 3 + scalar_len(value)?);
        }
        (required == self.required).then_some(len)
    }
}

impl Property {
    fn of(name: &str, schema: &Value) -> Option<Property> {
        let mut types = None;
        let (mut minimum, mut maximum) = (None, None);
        let mut numeric_keyword = false;
        for (key, value) in schema.as_object()? {
            match key.as_str() {
                "type" => {
                    types = Some(match value {
                        Value::String(name) => Types::named(name)?,
                        Value::Array(names) => names
                            .iter()
                            .try_fold(0, |bits, name| Some(bits | Types::named(name.as_str()?)?))?,
                        _ => return None,
                    })
                }
                // schemars describes Rust's numeric types with formats (`uint8`, `double`, ...);
                // the validator treats formats as annotations.
                "format" => numeric_keyword = true,
                "minimum" => {
                    minimum = Some(Bound::of(value)?);
                    numeric_keyword = true;
                }
                "maximum" => {
                    maximum = Some(Bound::of(value)?);
                    numeric_keyword = true;
                }
                key if is_annotation(key) => {}
                _ => return None,
            }
        }
        let types = Types(types?);
        // A format on a string may be validated; on a number it is schemars' annotation.
        if numeric_keyword && types.has(Types::STRING) {
            return None;
        }
        Some(Property {
            name: name.into(),
            types,
            required: false,
            minimum,
            maximum,
        })
    }

    fn accepts(&self, value: &Value) -> bool {
        let types = self.types;
        match value {
            Value::Null => types.has(Types::NULL),
            Value::Bool(_) => types.has(Types::BOOLEAN),
            Value::String(_) => types.has(Types::STRING),
            Value::Number(number) => {
                let typed =
                    types.has(Types::NUMBER) || (types.has(Types::INTEGER) && is_integer(number));
                typed && self.within(number)
            }
            Value::Array(_) | Value::Object(_) => false,
        }
    }

    fn within(&self, number: &Number) -> bool {
        !self.minimum.is_some_and(|min| min.is_above(number))
            && !self.maximum.is_some_and(|max| max.is_below(number))
    }
}

/// Whether `number` is an integer in JSON Schema's sense (`1.0` is).
fn is_integer(number: &Number) -> bool {
    number.is_u64() || number.is_i64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .expect("the schema compiles")
    }

    /// Values of every JSON type, around every boundary the shapes below use.
    fn values() -> Vec<Value> {
        let mut values = vec![
            json!(null),
            json!(true),
            json!(false),
            json!(""),
            json!("text"),
            json!("12"),
            json!([]),
            json!(["a"]),
            json!({}),
            json!({"a": 1}),
        ];
        let numbers = [
            json!(0),
            json!(-0.0),
            json!(1),
            json!(1.0),
            json!(1.5),
            json!(-1),
            json!(-1.0),
            json!(-0.5),
            json!(254),
            json!(255),
            json!(255.0),
            json!(255.5),
            json!(256),
            json!(-128),
            json!(-129),
            json!(127),
            json!(128),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(9_007_199_254_740_992u64),
            json!(9_007_199_254_740_993u64),
            json!(1e300),
            json!(-1e300),
            json!(f64::MIN_POSITIVE),
            json!(4_294_967_295u64),
            json!(4_294_967_296u64),
            json!(4_294_967_295.5),
            // Around the bounds of the 32- and 64-bit types, as integers and as floats.
            json!(2_147_483_647),
            json!(2_147_483_648u64),
            json!(-2_147_483_648i64),
            json!(-2_147_483_649i64),
            json!(i64::MIN as f64),
            json!(-9.3e18),
            json!(9.3e18),
            json!(u64::MAX as f64),
            json!(1.8e19),
            json!(2.0e19),
            json!(u64::MAX - 1),
            json!(i64::MAX as u64 + 1),
            json!(i64::MIN + 1),
        ];
        values.extend(numbers);
        values
    }

    /// Schemas as schemars writes them for tool parameters, and a few written by hand.
    fn shapes() -> Vec<Value> {
        vec![
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The name."},
                    "x": {"type": "number", "format": "double"},
                    "tag": {"type": ["string", "null"], "default": null}
                },
                "required": ["name", "x"],
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                    "small": {"type": "integer", "format": "int8", "minimum": -128, "maximum": 127},
                    "flag": {"type": "boolean"},
                    "maybe": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "maximum": 4294967295u64}
                },
                "required": ["count", "flag"],
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "properties": {
                    "big": {"type": "integer", "format": "int64"},
                    "unsigned": {"type": "integer", "format": "uint64", "minimum": 0},
                    "ratio": {"type": ["number", "null"], "minimum": -1, "maximum": 1}
                },
                "additionalProperties": false
            }),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "Open",
                "type": "object",
                "properties": {"any_scalar": {"type": ["null", "boolean", "string", "number"]}},
                "required": ["any_scalar"],
                "additionalProperties": false
            }),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            // The bounds the schema normalisation gives every integer type (beyond 2^53).
            json!({
                "type": "object",
                "properties": {
                    "i32": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647},
                    "i64": {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
                    "u64": {"type": ["integer", "null"], "minimum": 0, "maximum": u64::MAX}
                },
                "additionalProperties": false
            }),
        ]
    }

    /// Every property set to every value, alone and beside valid values for the others; with
    /// required properties left out; with an unknown property; and inputs that are not objects.
    fn inputs(schema: &Value) -> Vec<Value> {
        let names: Vec<&str> = schema["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut inputs: Vec<Value> = values();
        let mut base = Map::new();
        for name in &names {
            // A valid value: of the property's first type that is not null.
            let types = match &schema["properties"][name]["type"] {
                Value::Array(types) => types.clone(),
                single => vec![single.clone()],
            };
            let sample = match types.iter().find(|t| *t != "null").and_then(Value::as_str) {
                Some("string") => json!("s"),
                Some("boolean") => json!(true),
                _ => json!(1),
            };
            base.insert((*name).to_owned(), sample);
        }
        let valid = Value::Object(base.clone());
        assert!(
            validator(schema).is_valid(&valid),
            "{valid} is not valid for {schema}"
        );
        inputs.push(Value::Object(base.clone()));
        inputs.push(json!({}));
        for name in &names {
            let mut without = base.clone();
            without.remove(*name);
            inputs.push(Value::Object(without));
            for value in values() {
                let mut with = base.clone();
                with.insert((*name).to_owned(), value.clone());
                inputs.push(Value::Object(with));
                inputs.push(json!({ *name: value }));
            }
        }
        let mut extra = base.clone();
        extra.insert("unknown".into(), json!(1));
        inputs.push(Value::Object(extra));
        inputs
    }

    /// Whether the shape accepts `input`.
    fn accepts(shape: &Shape, input: &Value) -> bool {
        shape.measure(input).is_some()
    }

    /// Compares the shape of `schema` with its validator on every input of [`inputs`]; answers
    /// how many were compared.
    fn compare_with_validator(schema: &Value) -> usize {
        let shape = Shape::of(schema).unwrap_or_else(|| panic!("no shape for {schema:#}"));
        let validator = validator(schema);
        let inputs = inputs(schema);
        for input in &inputs {
            assert_eq!(
                accepts(&shape, input),
                validator.is_valid(input),
                "schema {schema}\ninput {input}"
            );
        }
        inputs.len()
    }

    #[test]
    fn answers_exactly_as_the_validator_does() {
        let compared: usize = shapes().iter().map(compare_with_validator).sum();
        assert!(compared > 1_000, "only {compared} inputs compared");
    }

    /// The input schema the `#[tool]` expansion builds for parameters of every scalar Rust type,
    /// required and optional (`Option<T>`), as schemars writes it.
    fn schemars_scalars() -> Value {
        use crate::schema::{InputSchema, input_generator};
        let mut generator = input_generator();
        let mut schema = InputSchema::new(&mut generator);
        macro_rules! params {
            ($($name:literal: $ty:ty),* $(,)?) => {
                $(
                    schema = schema
                        .param::<$ty>($name, "A parameter.", true)
                        .param::<Option<$ty>>(concat!("maybe_", $name), "", false);
                )*
            };
        }
        params!(
            "string": String, "boolean": bool, "f64": f64, "f32": f32,
            "u8": u8, "u16": u16, "u32": u32, "u64": u64, "usize": usize,
            "i8": i8, "i16": i16, "i32": i32, "i64": i64, "isize": isize,
        );
        let mut schema = schema.finish().to_value();
        crate::schema::normalize(&mut schema);
        schema
    }

    #[test]
    fn covers_the_schemas_schemars_writes_for_scalar_parameters() {
        let schema = schemars_scalars();
        let shape = Shape::of(&schema).unwrap_or_else(|| panic!("no shape for {schema:#}"));
        assert_eq!(shape.properties.len(), 28);
        assert_eq!(shape.required, 14);
        // Each property set to each value beside valid values for the others, and alone.
        let compared = compare_with_validator(&schema);
        assert!(compared > 1_000, "only {compared} inputs compared");
    }

    #[test]
    fn measures_an_input_as_the_input_limits_do() {
        use crate::input_limits::{Exceeded, Limits};
        let schema = schemars_scalars();
        let shape = Shape::of(&schema).expect("a shape");
        let mut measured = 0;
        for input in inputs(&schema) {
            let Some(len) = shape.measure(&input) else {
                continue;
            };
            measured += 1;
            // The limits walk accepts the input at exactly that many bytes, and not one fewer.
            let at = Limits {
                max_bytes: len,
                max_depth: 1,
            };
            assert_eq!(at.check(&input), Ok(()), "{input}");
            assert!(at.admits_flat(len));
            let under = Limits {
                max_bytes: len - 1,
                max_depth: 1,
            };
            assert!(
                matches!(under.check(&input), Err(Exceeded::Bytes(_))),
                "{input}"
            );
            assert!(!under.admits_flat(len));
            let flat = Limits {
                max_bytes: len,
                max_depth: 0,
            };
            assert!(flat.check(&input).is_err() && !flat.admits_flat(len));
        }
        assert!(measured > 50, "only {measured} valid inputs measured");
    }

    #[test]
    fn accepts_and_refuses_the_three_field_input() {
        let shape = Shape::of(&shapes()[0]).expect("a shape");
        assert!(accepts(&shape, &json!({"name": "a", "x": 1, "tag": null})));
        assert!(accepts(&shape, &json!({"name": "a", "x": 1.5})));
        assert!(!accepts(&shape, &json!({"name": "a"})), "x is required");
        assert!(!accepts(&shape, &json!({"name": 1, "x": 1})));
        assert!(!accepts(&shape, &json!({"name": "a", "x": 1, "extra": 1})));
        assert!(!accepts(&shape, &json!([])));
    }

    #[test]
    fn leaves_every_other_schema_to_the_validator() {
        let others = [
            json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}}),
            json!({"type": "object", "properties": {"p": {"type": "string", "enum": ["a"]}}}),
            json!({"type": "object", "properties": {"p": {"type": "string", "format": "date"}}}),
            json!({"type": "object", "properties": {"p": {"type": "string", "maxLength": 3}}}),
            json!({"type": "object", "properties": {"p": {"type": "array", "items": {}}}}),
            json!({"type": "object", "properties": {"p": {"type": "object"}}}),
            json!({"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}]}}}),
            json!({"type": "object", "properties": {"p": {"type": "number", "minimum": 0.5}}}),
            json!({"type": "object", "properties": {"p": {"type": "number", "exclusiveMinimum": 0}}}),
            json!({"type": "object", "properties": {"p": {}}}),
            json!({"type": "object", "properties": {"p": true}}),
            json!({"type": "object", "required": ["not_a_property"]}),
            json!({"type": "object", "minProperties": 1}),
            json!({"properties": {"p": {"type": "string"}}}),
            json!({"type": ["object", "null"]}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
        ];
        for mut schema in others {
            // Closed, so that what refuses the shape is the keyword under test.
            if let Some(root) = schema.as_object_mut() {
                root.entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            assert!(Shape::of(&schema).is_none(), "a shape for {schema}");
        }
        // Open objects: an unknown property could be anything.
        let open = json!({"type": "object", "properties": {"p": {"type": "string"}}});
        assert!(Shape::of(&open).is_none());
        let open = json!({"type": "object", "properties": {}, "additionalProperties": true});
        assert!(Shape::of(&open).is_none());
        let closed = json!({"type": "object", "properties": {"p": {"type": "string"}}, "additionalProperties": false});
        assert!(Shape::of(&closed).is_some());
    }
}
