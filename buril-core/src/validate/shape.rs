//! A fast check for the most common input schema: an object of scalar properties.
//!
//! Most tools take a few strings, numbers, integers and flags, some optional. For such a schema
//! the general validator walks a tree of keyword validators per call; [`Shape`] checks the same
//! rules with one pass over the input's properties. It is built only when every keyword of the
//! schema is one it implements exactly, and it answers exactly as the validator does (a test
//! compares the two on thousands of inputs), so a call it accepts skips the validator. What it
//! refuses it words itself ([`Shape::problems`]): the same problems, in the same order and the
//! same words, as the validator's walk gives (a test compares those too), without the walk.

use serde_json::{Map, Number, Value};

use super::words::{MAX_PROBLEMS, push_described, range_words, type_words};
use crate::args::same_name;
use crate::error::Problem;
use crate::input_limits::scalar_len;
use crate::suggest::nearest;

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

    /// The names of these types, in the order the validator's type errors list them.
    fn names(self) -> Vec<&'static str> {
        [
            (Self::NULL, "null"),
            (Self::BOOLEAN, "boolean"),
            (Self::INTEGER, "integer"),
            (Self::NUMBER, "number"),
            (Self::STRING, "string"),
        ]
        .into_iter()
        .filter(|&(bit, _)| self.has(bit))
        .map(|(_, name)| name)
        .collect()
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
    /// The position of the property in the schema's `required`, when it is required.
    slot: Option<usize>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    /// Where the property is in an input: `/name`, escaped.
    pointer: Box<str>,
    /// Its types in words, as a type error says them: `a string or null`.
    expected: Box<str>,
    /// The numbers it allows in words, as a range error says them (empty without bounds).
    range: Box<str>,
}

/// What is wrong with a property's value: each is one problem, in this order (the order of
/// the validator's keywords: `type`, `minimum`, `maximum`).
#[derive(Debug, Clone, Copy)]
struct Faults {
    wrong_type: bool,
    below: bool,
    above: bool,
}

/// An object schema whose properties are all scalars, checked in one pass.
#[derive(Debug)]
pub(crate) struct Shape {
    properties: Box<[Property]>,
    required: usize,
    /// The required properties (indices into `properties`) in the order of the schema's
    /// `required`, the order in which missing ones are reported.
    required_order: Box<[usize]>,
    /// Whether the schema has a `properties` keyword. Without one, `additionalProperties: false`
    /// alone refuses any member, with one problem for the whole object.
    declares_properties: bool,
    /// The property names, comma-separated: the known properties an unknown one is told.
    known: Box<str>,
}

/// Whether `key: value` is an annotation (a keyword that never makes an instance invalid)
/// whose value is of the type the 2020-12 meta-schema asks of it. A schema the shape accepts
/// is then valid against the meta-schema, so that its general validator, which checks every
/// schema against the meta-schema as it compiles (the costliest part of a server's first call),
/// need not be built for it.
fn is_annotation(key: &str, value: &Value) -> bool {
    match key {
        "description" | "title" | "$comment" => value.is_string(),
        "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        "examples" => value.is_array(),
        "default" => true,
        _ => false,
    }
}

/// The types a `type` keyword names, when the meta-schema accepts it and the shape knows every
/// type: one name, or a non-empty list of distinct names.
fn types_of(value: &Value) -> Option<u8> {
    match value {
        Value::String(name) => Types::named(name),
        Value::Array(names) if !names.is_empty() => names.iter().try_fold(0, |bits, name| {
            let bit = Types::named(name.as_str()?)?;
            (bits & bit == 0).then_some(bits | bit)
        }),
        _ => None,
    }
}

impl Shape {
    /// The shape of `schema`, or `None` when it uses anything beyond scalar properties (then the
    /// general validator alone decides).
    pub(crate) fn of(schema: &Value) -> Option<Shape> {
        let root = schema.as_object()?;
        let mut properties = Vec::new();
        let mut closed = false;
        let mut declares_properties = false;
        let mut required_names: &[Value] = &[];
        for (key, value) in root {
            match key.as_str() {
                "type" if value == "object" => {}
                "properties" => {
                    declares_properties = true;
                    for (name, property) in value.as_object()? {
                        properties.push(Property::of(name, property)?);
                    }
                }
                "required" => required_names = value.as_array()?,
                // Closed objects only: then a valid input is an object of scalars, all of
                // which the shape has looked at (and measured).
                "additionalProperties" if value == false => closed = true,
                "$schema" if value.is_string() => {}
                // Definitions only matter through a `$ref`, which no scalar property has. Only
                // empty ones: any there were would have to be valid schemas, which the shape
                // does not look into.
                "$defs" | "definitions" if value.as_object().is_some_and(Map::is_empty) => {}
                key if is_annotation(key, value) => {}
                _ => return None,
            }
        }
        // Without `type: "object"` a non-object input would be valid.
        if root.get("type")? != "object" || !closed {
            return None;
        }
        let mut required_order = Vec::with_capacity(required_names.len());
        for name in required_names {
            let name = name.as_str()?;
            let index = properties.iter().position(|p| *p.name == *name)?;
            let property = &mut properties[index];
            // A name listed twice: left to the validator, which may report it twice.
            if property.required {
                return None;
            }
            property.required = true;
            property.slot = Some(required_order.len());
            required_order.push(index);
        }
        let names: Vec<&str> = properties.iter().map(|p| &*p.name).collect();
        Some(Shape {
            required: required_order.len(),
            required_order: required_order.into_boxed_slice(),
            declares_properties,
            known: names.join(", ").into(),
            properties: properties.into_boxed_slice(),
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

    /// Every problem with `input`, or none when it is valid: exactly what the validator's walk
    /// of the schema gives ([`Validator::problems`](super::Validator::problems) without the
    /// shape), in one pass and with the words made when the shape was.
    ///
    /// The walk's order: a non-object is one type error; otherwise missing required properties
    /// (in the order of `required`; listed whatever the cap), then each member's problems in
    /// the input's order (its type, then its minimum, then its maximum), then the unknown
    /// members, in the input's order; past [`MAX_PROBLEMS`], a count of the rest.
    pub(crate) fn problems(&self, input: &Value) -> Vec<Problem> {
        let Value::Object(object) = input else {
            return vec![Problem::new("", expected("an object", input))];
        };
        if !self.declares_properties {
            // `additionalProperties: false` alone fails once for the object, whatever it holds.
            return match object.is_empty() {
                true => Vec::new(),
                false => vec![Problem::new("", "no value is allowed here")],
            };
        }
        // One pass: the members' problems in the input's order, worded up to the cap (how many
        // are listed depends on how many required properties are missing, known only at the
        // end), and which required properties are present: a bit per entry of `required` (the
        // first 64; the rest are looked up).
        let mut problems = Vec::new();
        let mut others = 0usize;
        let mut unknown = 0;
        let mut found = 0u64;
        for (key, value) in object {
            let Some(property) = self.property(key) else {
                unknown += 1;
                continue;
            };
            if let Some(slot) = property.slot
                && slot < 64
            {
                found |= 1 << slot;
            }
            let faults = property.faults(value);
            let words = [
                (faults.wrong_type, &property.expected),
                (faults.below, &property.range),
                (faults.above, &property.range),
            ];
            for (_, what) in words.iter().filter(|(fault, _)| *fault) {
                others += 1;
                if problems.len() < MAX_PROBLEMS {
                    problems.push(Problem::new(&*property.pointer, expected(what, value)));
                }
            }
        }
        // Then the unknown members, in the input's order.
        if unknown > 0 {
            others += unknown;
            for key in object.keys() {
                if problems.len() == MAX_PROBLEMS {
                    break;
                }
                if self.property(key).is_none() {
                    problems.push(self.unknown(key));
                }
            }
        }
        let is_missing = |slot: usize, property: &Property| match slot {
            0..64 => found & (1 << slot) == 0,
            _ => !object.contains_key(&*property.name),
        };
        let missing: Vec<Problem> = self
            .required_order
            .iter()
            .enumerate()
            .filter(|&(slot, &index)| is_missing(slot, &self.properties[index]))
            .map(|(_, &index)| {
                let pointer = &*self.properties[index].pointer;
                Problem::new(pointer, "missing required property")
            })
            .collect();
        // Missing required properties come first and are listed whatever the cap; the rest
        // fill what is left.
        let room = MAX_PROBLEMS.saturating_sub(missing.len());
        problems.truncate(room);
        let extra = others.saturating_sub(room);
        if !missing.is_empty() {
            problems.splice(0..0, missing);
        }
        if extra > 0 {
            problems.push(Problem::new(
                "",
                format!("{extra} more problems not listed; fix the ones above first"),
            ));
        }
        problems
    }

    /// The property named `name`, if the schema has one.
    fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| same_name(&p.name, name))
    }

    /// The problem of the unknown member `name`: the known property it is closest to, if any
    /// is close, and every known property.
    fn unknown(&self, name: &str) -> Problem {
        let best = nearest(name, self.properties.iter().map(|p| &*p.name));
        let mut message = String::with_capacity(64 + self.known.len());
        message.push_str("unknown property");
        if let Some(best) = best {
            message.push_str("; did you mean `");
            message.push_str(best);
            message.push_str("`?");
        }
        if !self.properties.is_empty() {
            message.push_str(if best.is_some() { " K" } else { ". K" });
            message.push_str("nown properties: ");
            message.push_str(&self.known);
        }
        Problem::new(crate::pointer::child("", name), message)
    }
}

/// `expected {what}, got {the value described}`.
fn expected(what: &str, value: &Value) -> String {
    let mut message = String::with_capacity(what.len() + 40);
    message.push_str("expected ");
    message.push_str(what);
    message.push_str(", got ");
    push_described(&mut message, value);
    message
}

impl Property {
    fn of(name: &str, schema: &Value) -> Option<Property> {
        let mut types = None;
        let (mut minimum, mut maximum) = (None, None);
        let mut numeric_keyword = false;
        for (key, value) in schema.as_object()? {
            match key.as_str() {
                "type" => types = Some(types_of(value)?),
                // schemars describes Rust's numeric types with formats (`uint8`, `double`, ...);
                // the validator treats formats as annotations.
                "format" if value.is_string() => numeric_keyword = true,
                "minimum" => {
                    minimum = Some(Bound::of(value)?);
                    numeric_keyword = true;
                }
                "maximum" => {
                    maximum = Some(Bound::of(value)?);
                    numeric_keyword = true;
                }
                key if is_annotation(key, value) => {}
                _ => return None,
            }
        }
        let types = Types(types?);
        // A format on a string may be validated; on a number it is schemars' annotation.
        if numeric_keyword && types.has(Types::STRING) {
            return None;
        }
        let bounded = minimum.is_some() || maximum.is_some();
        Some(Property {
            name: name.into(),
            types,
            required: false,
            slot: None,
            minimum,
            maximum,
            pointer: crate::pointer::child("", name).into(),
            expected: type_words(&types.names()).into(),
            range: if bounded {
                range_words(schema).into()
            } else {
                Box::default()
            },
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

    /// What is wrong with `value`, each fault as the validator finds it: a bound holds for any
    /// number, whatever its type.
    fn faults(&self, value: &Value) -> Faults {
        match value {
            Value::Number(number) => Faults {
                wrong_type: !(self.types.has(Types::NUMBER)
                    || (self.types.has(Types::INTEGER) && is_integer(number))),
                below: self.minimum.is_some_and(|min| min.is_above(number)),
                above: self.maximum.is_some_and(|max| max.is_below(number)),
            },
            other => {
                let wrong_type = match other {
                    Value::Null => !self.types.has(Types::NULL),
                    Value::Bool(_) => !self.types.has(Types::BOOLEAN),
                    Value::String(_) => !self.types.has(Types::STRING),
                    _ => true,
                };
                Faults {
                    wrong_type,
                    below: false,
                    above: false,
                }
            }
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
pub(super) mod tests {
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

    fn names(schema: &Value) -> Vec<&str> {
        schema["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// A value for each property, of its first type that is not null (valid, unless the
    /// property's bounds exclude 1).
    fn sample(schema: &Value) -> Map<String, Value> {
        let mut base = Map::new();
        for name in names(schema) {
            let types = match &schema["properties"][name]["type"] {
                Value::Array(types) => types.clone(),
                single => vec![single.clone()],
            };
            let sample = match types.iter().find(|t| *t != "null").and_then(Value::as_str) {
                Some("string") => json!("s"),
                Some("boolean") => json!(true),
                _ => json!(1),
            };
            base.insert(name.to_owned(), sample);
        }
        base
    }

    /// Every property set to every value, alone and beside valid values for the others; with
    /// required properties left out; with an unknown property; and inputs that are not objects.
    fn inputs(schema: &Value) -> Vec<Value> {
        let valid = Value::Object(sample(schema));
        assert!(
            validator(schema).is_valid(&valid),
            "{valid} is not valid for {schema}"
        );
        inputs_beside(schema, sample(schema))
    }

    /// [`inputs`] around `base`, a value for each property.
    fn inputs_beside(schema: &Value, base: Map<String, Value>) -> Vec<Value> {
        let names = names(schema);
        let mut inputs: Vec<Value> = values();
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
        use crate::input_limits::{Exceeded, InputLimits};
        let schema = schemars_scalars();
        let shape = Shape::of(&schema).expect("a shape");
        let mut measured = 0;
        for input in inputs(&schema) {
            let Some(len) = shape.measure(&input) else {
                continue;
            };
            measured += 1;
            // The limits walk accepts the input at exactly that many bytes, and not one fewer.
            let at = InputLimits {
                max_bytes: len,
                max_depth: 1,
            };
            assert_eq!(at.check(&input), Ok(()), "{input}");
            assert!(at.admits_flat(len));
            let under = InputLimits {
                max_bytes: len - 1,
                max_depth: 1,
            };
            assert!(
                matches!(under.check(&input), Err(Exceeded::Bytes(_))),
                "{input}"
            );
            assert!(!under.admits_flat(len));
            let flat = InputLimits {
                max_bytes: len,
                max_depth: 0,
            };
            assert!(flat.check(&input).is_err() && !flat.admits_flat(len));
        }
        assert!(measured > 50, "only {measured} valid inputs measured");
    }

    /// Schemas for the wording of problems beyond [`shapes`]: each of the ways the validator
    /// compiles a closed object (one required name, several, every one, more than 16 and more
    /// than 64, none, no `properties` at all, more than 15 properties), names that a pointer
    /// escapes, every type listed in another order, and bounds that a value of the wrong type
    /// still breaks.
    pub(in crate::validate) fn problem_shapes() -> Vec<Value> {
        let many = |count: usize, required: usize| {
            let properties: Map<String, Value> = (0..count)
                .map(|i| {
                    let schema = match i % 3 {
                        0 => json!({"type": "integer", "minimum": 0, "maximum": 9}),
                        1 => json!({"type": "string"}),
                        _ => json!({"type": ["boolean", "null"]}),
                    };
                    (format!("p{i:02}"), schema)
                })
                .collect();
            let required: Vec<Value> = (0..required).map(|i| json!(format!("p{i:02}"))).collect();
            json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            })
        };
        let mut schemas = shapes();
        schemas.extend([
            schemars_scalars(),
            json!({
                "type": "object",
                "properties": {
                    "a/b": {"type": "string"},
                    "t~x": {"type": "integer", "minimum": 0, "maximum": 10},
                    "flag": {"type": "boolean"}
                },
                "required": ["a/b"],
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "properties": {
                    "lo_hi": {"type": "integer", "minimum": 300, "maximum": 200},
                    "flag_min": {"type": "boolean", "minimum": 10},
                    "every": {"type": ["string", "integer", "null", "boolean", "number"]},
                    "single": {"type": ["number"], "maximum": 0}
                },
                "required": ["single", "flag_min", "lo_hi", "every"],
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": [],
                "additionalProperties": false
            }),
            json!({"type": "object", "additionalProperties": false}),
            json!({"type": "object", "required": [], "additionalProperties": false}),
            many(20, 17),
            many(20, 20),
            many(70, 66),
            many(70, 70),
            many(70, 0),
        ]);
        schemas
    }

    /// [`inputs_beside`] a sample input, and inputs with many problems and unknown names, near
    /// known ones or not.
    pub(in crate::validate) fn problem_inputs(schema: &Value) -> Vec<Value> {
        let base = sample(schema);
        let mut inputs = inputs_beside(schema, base.clone());
        let names = names(schema);
        for name in &names {
            for near in [
                format!("{name}x"),
                name.chars().skip(1).collect(),
                name.to_uppercase(),
            ] {
                let mut with = base.clone();
                with.insert(near.clone(), json!(1));
                inputs.push(Value::Object(with));
                inputs.push(json!({ near: "a" }));
            }
        }
        let unknown = |count: usize| -> Vec<(String, Value)> {
            (0..count)
                .map(|i| (format!("zz{i}/~{i}"), json!(i)))
                .collect()
        };
        // Every property wrong, with and without unknown members (past the cap, with more or
        // fewer missing required properties).
        for (wrong, extra) in [
            (json!([]), 0),
            (json!([1]), 10),
            (json!("!"), 40),
            (json!(0.5), 3),
        ] {
            let mut all: Map<String, Value> = names
                .iter()
                .map(|n| (n.to_string(), wrong.clone()))
                .collect();
            all.extend(unknown(extra));
            inputs.push(Value::Object(all));
            let mut some: Map<String, Value> = names
                .iter()
                .step_by(2)
                .map(|n| (n.to_string(), wrong.clone()))
                .collect();
            some.extend(unknown(extra));
            inputs.push(Value::Object(some));
        }
        inputs.push(Value::Object(unknown(33).into_iter().collect()));
        inputs.push(json!({"x": "a long string, well past the sixty characters a preview keeps: \"quoted\" \u{7}"}));
        inputs
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

    /// A schema the shape accepts is never compiled by the general validator on a call, which
    /// is what checks a schema against the meta-schema: so every shape must be of a schema the
    /// meta-schema accepts.
    #[test]
    fn every_shape_is_of_a_schema_the_meta_schema_accepts() {
        let mut shaped = 0;
        for schema in problem_shapes() {
            if Shape::of(&schema).is_some() {
                jsonschema::meta::validate(&schema)
                    .unwrap_or_else(|e| panic!("{schema} has a shape but is not valid: {e}"));
                shaped += 1;
            }
        }
        assert!(shaped > 10, "only {shaped} schemas had a shape");
    }
}
