//! Input validation: a compiled JSON Schema validator and problems worded for a model.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError};
use serde_json::Value;

use crate::error::Problem;
use crate::suggest::nearest;

mod shape;
pub(crate) mod words;

pub(crate) use shape::Shape;
pub use words::MAX_PROBLEMS;
use words::{compact, describe, range_words, type_words};

/// A tool's compiled input schema.
pub struct Validator {
    schema: Value,
    /// The general validator: compiled with the rest when the schema has no [`Shape`], else
    /// only if something asks it (the shape answers every call).
    inner: OnceLock<jsonschema::Validator>,
    /// The one-pass check of a schema of scalar properties, when the schema is one.
    shape: Option<Shape>,
    /// Whether the schema has an `enum` or a `const` anywhere: only then can a wrong type be
    /// worded as the values allowed, so only then is the schema looked at for it.
    has_values: bool,
}

impl Validator {
    /// Compiles `schema`; the error says why the schema of `tool` is not usable. A schema of
    /// scalar properties is checked in one pass, and its general (jsonschema) validator is
    /// compiled only if something asks for it.
    pub fn new(tool: &str, schema: &Value) -> Result<Self, String> {
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "the input schema of `{tool}` must have root `type: \"object\"`: a tool's input is \
                 an object of named properties"
            ));
        }
        let shape = Shape::of(schema);
        let inner = OnceLock::new();
        // A schema the shape accepts is valid against the meta-schema (`shape.rs`); the others
        // are checked here, so that a tool whose schema is not usable fails on every call.
        if shape.is_none() {
            let compiled = general(schema)
                .map_err(|e| format!("the input schema of `{tool}` does not compile: {e}"))?;
            let _ = inner.set(compiled);
        }
        Ok(Validator {
            schema: schema.clone(),
            inner,
            shape,
            has_values: has_values(schema),
        })
    }

    /// The general validator, compiled now if it was not.
    fn inner(&self) -> &jsonschema::Validator {
        self.inner.get_or_init(|| {
            general(&self.schema).expect("a schema with a shape is valid against the meta-schema")
        })
    }

    /// The one-pass check of this schema, when it is an object of scalar properties.
    pub(crate) fn shape(&self) -> Option<&Shape> {
        self.shape.as_ref()
    }

    /// Every problem with `input`, or an empty list when it is valid. The dispatcher asks this
    /// only of inputs the [`shape`](Self::shape), when there is one, did not accept.
    pub fn problems(&self, input: &Value) -> Vec<Problem> {
        match &self.shape {
            Some(shape) => shape.problems(input),
            None => self.problems_by_walk(input),
        }
    }

    /// Every problem with `input` as the compiled validator finds them: the answer for any
    /// schema, and what the shape's own answer must equal (a test compares the two).
    fn problems_by_walk(&self, input: &Value) -> Vec<Problem> {
        let inner = self.inner();
        if inner.is_valid(input) {
            return Vec::new();
        }
        // Missing required properties are listed whatever the cap: a model that leaves one out
        // must learn of it in the first answer. The cap applies to the rest.
        let mut missing = Vec::new();
        let mut others = Vec::new();
        let mut extra = 0usize;
        for error in inner.iter_errors(input) {
            let is_missing = matches!(error.kind(), ValidationErrorKind::Required { .. });
            for problem in self.describe(&error) {
                if is_missing {
                    missing.push(problem);
                } else if others.len() < MAX_PROBLEMS.saturating_sub(missing.len()) {
                    others.push(problem);
                } else {
                    extra += 1;
                }
            }
        }
        let kept = MAX_PROBLEMS.saturating_sub(missing.len());
        if others.len() > kept {
            extra += others.len() - kept;
            others.truncate(kept);
        }
        let mut problems = missing;
        problems.append(&mut others);
        if extra > 0 {
            problems.push(Problem::new(
                "",
                format!("{extra} more problems not listed; fix the ones above first"),
            ));
        }
        problems
    }

    fn describe(&self, error: &ValidationError<'_>) -> Vec<Problem> {
        let path = error.instance_path().to_string();
        let instance = error.instance();
        let one = |message: String| vec![Problem::new(path.clone(), message)];
        match error.kind() {
            ValidationErrorKind::Type { kind } => {
                // A value of the wrong type for an enum: say the values, not the type.
                let schema = self
                    .has_values
                    .then(|| error.schema_path().as_str().strip_suffix("/type"))
                    .flatten()
                    .and_then(|location| self.schema_at(location));
                match schema.and_then(allowed_values) {
                    Some(values) => one(format!(
                        "expected one of {}, got {}",
                        values.join(", "),
                        describe(instance)
                    )),
                    None => one(format!(
                        "expected {}, got {}",
                        expected_types(kind),
                        describe(instance)
                    )),
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                vec![Problem::new(
                    crate::pointer::child(&path, name),
                    "missing required property".to_owned(),
                )]
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let known = self.known_properties(error);
                unexpected
                    .iter()
                    .map(|name| {
                        let mut message = "unknown property".to_owned();
                        if let Some(best) = nearest(name, known.iter().map(String::as_str)) {
                            message.push_str(&format!("; did you mean `{best}`?"));
                        }
                        if !known.is_empty() {
                            let lead = if message.ends_with('?') { " K" } else { ". K" };
                            message
                                .push_str(&format!("{lead}nown properties: {}", known.join(", ")));
                        }
                        Problem::new(crate::pointer::child(&path, name), message)
                    })
                    .collect()
            }
            ValidationErrorKind::Enum { options } => one(format!(
                "expected one of {}, got {}",
                list_values(options),
                describe(instance)
            )),
            ValidationErrorKind::Constant { expected_value } => one(format!(
                "expected {}, got {}",
                compact(expected_value),
                describe(instance)
            )),
            ValidationErrorKind::Minimum { .. }
            | ValidationErrorKind::Maximum { .. }
            | ValidationErrorKind::ExclusiveMinimum { .. }
            | ValidationErrorKind::ExclusiveMaximum { .. } => {
                let schema = error
                    .schema_path()
                    .as_str()
                    .rsplit_once('/')
                    .and_then(|(location, _)| self.schema_at(location));
                one(format!(
                    "expected {}, got {}",
                    range_words(schema.unwrap_or(&Value::Null)),
                    describe(instance)
                ))
            }
            ValidationErrorKind::MinLength { limit } => one(format!(
                "must be at least {limit} characters long, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MaxLength { limit } => one(format!(
                "must be at most {limit} characters long, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MinItems { limit } => one(format!(
                "must have at least {limit} items, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MaxItems { limit } => one(format!(
                "must have at most {limit} items, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MinProperties { limit } => one(format!(
                "must have at least {limit} properties, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MaxProperties { limit } => one(format!(
                "must have at most {limit} properties, got {}",
                describe(instance)
            )),
            ValidationErrorKind::UniqueItems => {
                one(format!("items must be unique, got {}", describe(instance)))
            }
            ValidationErrorKind::Pattern { pattern } => one(format!(
                "must match the pattern `{pattern}`, got {}",
                describe(instance)
            )),
            ValidationErrorKind::MultipleOf { multiple_of } => one(format!(
                "must be a multiple of {multiple_of}, got {}",
                describe(instance)
            )),
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                self.describe_variants(&path, error.schema_path().as_str(), instance, context)
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => {
                one("matches more than one of the allowed variants; make it unambiguous".to_owned())
            }
            ValidationErrorKind::FalseSchema => one("no value is allowed here".to_owned()),
            _ => one(error.to_string()),
        }
    }

    /// For `anyOf`/`oneOf` failures: say what would have matched, so that the caller learns
    /// what to fix rather than only that nothing matched.
    fn describe_variants(
        &self,
        path: &str,
        keyword_location: &str,
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
    ) -> Vec<Problem> {
        // The location of the schema holding the `anyOf`/`oneOf`.
        let keyword_location = keyword_location
            .rsplit_once('/')
            .map_or("", |(location, _)| location);
        // A string enum with documented values: `oneOf` of constants.
        let constants: Option<Vec<String>> = context
            .iter()
            .map(|errors| match errors.as_slice() {
                [error] => match error.kind() {
                    ValidationErrorKind::Constant { expected_value } => {
                        Some(compact(expected_value))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if let Some(constants) = constants.filter(|c| !c.is_empty()) {
            return vec![Problem::new(
                path,
                format!(
                    "expected one of {}, got {}",
                    constants.join(", "),
                    describe(instance)
                ),
            )];
        }
        // Variants whose type does not fit the value (the `null` of an `Option`) say nothing
        // useful; when one variant is left, its problems are the answer.
        let fitting: Vec<&Vec<ValidationError<'static>>> = context
            .iter()
            .filter(|errors| !errors.iter().any(|e| is_type_mismatch_at(e, path)))
            .collect();
        match fitting.as_slice() {
            [] if let Some(values) = self
                .has_values
                .then(|| self.schema_at(keyword_location))
                .flatten()
                .and_then(allowed_values) =>
            {
                vec![Problem::new(
                    path,
                    format!(
                        "expected one of {}, got {}",
                        values.join(", "),
                        describe(instance)
                    ),
                )]
            }
            [] => {
                let expected: Vec<String> = context
                    .iter()
                    .flatten()
                    .filter_map(|e| match e.kind() {
                        ValidationErrorKind::Type { kind }
                            if e.instance_path().as_str() == path =>
                        {
                            Some(expected_types(kind))
                        }
                        _ => None,
                    })
                    .collect();
                vec![Problem::new(
                    path,
                    format!(
                        "expected {}, got {}",
                        expected.join(" or "),
                        describe(instance)
                    ),
                )]
            }
            [only] => only.iter().flat_map(|error| self.describe(error)).collect(),
            several => {
                let mut problems = vec![Problem::new(
                    path,
                    format!(
                        "{} matches none of the allowed variants",
                        describe(instance)
                    ),
                )];
                if let Some(closest) = several.iter().min_by_key(|errors| errors.len())
                    && closest.len() <= 4
                {
                    for error in closest.iter() {
                        for mut problem in self.describe(error) {
                            problem.message = format!("closest variant: {}", problem.message);
                            problems.push(problem);
                        }
                    }
                }
                problems
            }
        }
    }

    /// The schema at a keyword location of a validation error (a JSON pointer into the schema
    /// that goes through `$ref`s), resolving each `$ref` on the way.
    fn schema_at(&self, location: &str) -> Option<&Value> {
        let mut node = &self.schema;
        for token in location.split('/').skip(1) {
            let token = crate::pointer::unescape(token);
            node = if token == "$ref" {
                let reference = node.get("$ref")?.as_str()?;
                self.schema.pointer(reference.strip_prefix('#')?)?
            } else {
                match node {
                    Value::Object(object) => object.get(token.as_ref())?,
                    Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                    _ => return None,
                }
            };
        }
        Some(node)
    }

    /// The property names the schema allows at the location of an `additionalProperties` error.
    fn known_properties(&self, error: &ValidationError<'_>) -> Vec<String> {
        let keyword_path = error.schema_path().as_str();
        let Some(object_path) = keyword_path
            .strip_suffix("/additionalProperties")
            .or_else(|| keyword_path.strip_suffix("/unevaluatedProperties"))
        else {
            return Vec::new();
        };
        self.schema
            .pointer(&format!("{object_path}/properties"))
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// Why `schema` cannot be the input schema of `tool`, if it cannot: its root is not an object,
/// or it is not a JSON Schema (checked against the 2020-12 meta-schema, without compiling a
/// validator).
pub(crate) fn check_schema(tool: &str, schema: &Value) -> Result<(), String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!(
            "the input schema of `{tool}` must have root `type: \"object\"`: a tool's input is \
             an object of named properties"
        ));
    }
    jsonschema::draft202012::meta::validate(schema)
        .map_err(|e| format!("the input schema of `{tool}` does not compile: {e}"))
}

/// The general validator of `schema`, a JSON Schema of draft 2020-12.
fn general(schema: &Value) -> Result<jsonschema::Validator, ValidationError<'static>> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .build(schema)
}

/// Whether `schema` has an `enum` or a `const` anywhere.
fn has_values(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => {
            object.contains_key("enum")
                || object.contains_key("const")
                || object.values().any(has_values)
        }
        Value::Array(items) => items.iter().any(has_values),
        _ => false,
    }
}

/// The values a schema allows, when it is an enum: `enum`, or `oneOf`/`anyOf` of `const`s (what
/// schemars writes for documented variants), rendered as JSON.
fn allowed_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(compact).collect());
    }
    let variants = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let values: Option<Vec<String>> = variants
        .iter()
        .map(|variant| {
            variant.get("const").map(compact).or_else(|| {
                match variant.get("enum").and_then(Value::as_array)?.as_slice() {
                    [one] => Some(compact(one)),
                    _ => None,
                }
            })
        })
        .collect();
    values.filter(|values| !values.is_empty())
}

/// Whether `error` says the value at `path` itself has the wrong type.
fn is_type_mismatch_at(error: &ValidationError<'_>, path: &str) -> bool {
    matches!(error.kind(), ValidationErrorKind::Type { .. })
        && error.instance_path().as_str() == path
}

fn expected_types(kind: &TypeKind) -> String {
    let names: Vec<&str> = match kind {
        TypeKind::Single(t) => vec![t.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    };
    type_words(&names)
}

fn list_values(options: &Value) -> String {
    match options.as_array() {
        Some(values) => values.iter().map(compact).collect::<Vec<_>>().join(", "),
        None => compact(options),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::shape::tests::{problem_inputs, problem_shapes};
    use super::*;

    fn messages(schema: Value, input: Value) -> Vec<(String, String)> {
        let validator = Validator::new("demo_tool", &schema).expect("a schema");
        validator
            .problems(&input)
            .into_iter()
            .map(|p| (p.path, p.message))
            .collect()
    }

    fn one(schema: Value, input: Value) -> String {
        let found = messages(schema, input);
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].1.clone()
    }

    fn object(properties: Value) -> Value {
        json!({"type": "object", "properties": properties, "additionalProperties": false})
    }

    #[test]
    fn an_enum_given_another_type_lists_its_values() {
        let level = json!({"oneOf": [
            {"type": "string", "const": "info", "description": "Plain."},
            {"type": "string", "const": "warning"},
            {"type": "string", "const": "error"},
        ]});
        let mut schema = object(json!({"level": {"$ref": "#/$defs/Level"}, "plain": {
            "type": "string", "enum": ["a", "b"]
        }}));
        schema["$defs"] = json!({"Level": level});
        assert_eq!(
            one(schema.clone(), json!({"level": true})),
            "expected one of \"info\", \"warning\", \"error\", got true"
        );
        assert_eq!(
            one(schema.clone(), json!({"level": "warn"})),
            "expected one of \"info\", \"warning\", \"error\", got the string \"warn\""
        );
        let found = messages(schema, json!({"plain": 3}));
        assert!(
            found
                .iter()
                .all(|(_, m)| m == "expected one of \"a\", \"b\", got the number 3"),
            "{found:?}"
        );
    }

    #[test]
    fn ranges_are_said_in_words_with_the_value_sent() {
        let schema = object(json!({
            "n": {"type": "integer", "minimum": 0, "maximum": 4294967295u64},
            "low": {"type": "integer", "minimum": 1},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        }));
        assert_eq!(
            one(schema.clone(), json!({"n": 5_000_000_000u64})),
            "expected an integer from 0 to 4294967295, got the number 5000000000"
        );
        assert_eq!(
            one(schema.clone(), json!({"low": 0})),
            "expected an integer at least 1, got the number 0"
        );
        assert_eq!(
            one(schema, json!({"ratio": 0})),
            "expected a number greater than 0 and at most 1, got the number 0"
        );
    }

    #[test]
    fn other_failures_echo_a_preview_of_the_value() {
        let schema = object(json!({
            "name": {"type": "string", "minLength": 3, "pattern": "^[a-z]+$"},
            "items": {"type": "array", "maxItems": 1},
        }));
        let long = "X".repeat(500);
        let found = messages(schema.clone(), json!({"name": long}));
        let pattern = &found.iter().find(|(_, m)| m.contains("pattern")).unwrap().1;
        assert!(pattern.starts_with("must match the pattern `^[a-z]+$`, got the string \"XXX"));
        assert!(pattern.ends_with("...") && pattern.len() < 120, "{pattern}");
        assert_eq!(
            one(schema, json!({"items": [1, 2]})),
            "must have at most 1 items, got an array of 2 items"
        );
    }

    /// The shape of each schema of [`problem_shapes`] words every problem of every input of
    /// [`problem_inputs`] exactly as the walk of the compiled validator does.
    #[test]
    fn words_every_problem_as_the_walk_does() {
        let mut compared = 0;
        let mut worded = 0;
        for schema in problem_shapes() {
            let shape = Shape::of(&schema).unwrap_or_else(|| panic!("no shape for {schema:#}"));
            let validator = Validator::new("demo_tool", &schema).expect("a schema");
            for input in problem_inputs(&schema) {
                let expected = validator.problems_by_walk(&input);
                assert_eq!(
                    shape.problems(&input),
                    expected,
                    "schema {schema}\ninput {input}"
                );
                compared += 1;
                worded += expected.len();
            }
        }
        assert!(compared > 10_000, "only {compared} inputs compared");
        assert!(worded > 20_000, "only {worded} problems compared");
    }

    #[test]
    fn a_capped_list_keeps_every_missing_required_property() {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for i in 0..40 {
            properties.insert(format!("r{i:02}"), json!({"type": "string"}));
            required.push(json!(format!("r{i:02}")));
            properties.insert(format!("o{i:02}"), json!({"type": "string"}));
        }
        let schema = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        // Forty wrong optional values and forty missing required properties.
        let input: Map<String, Value> = (0..40).map(|i| (format!("o{i:02}"), json!(1))).collect();
        let found = messages(schema, Value::Object(input));
        let missing = found
            .iter()
            .filter(|(_, m)| m == "missing required property")
            .count();
        assert_eq!(missing, 40, "{found:?}");
        let last = &found.last().unwrap().1;
        assert_eq!(
            last,
            "40 more problems not listed; fix the ones above first"
        );
        assert_eq!(found.len(), 41);
    }

    /// Keywords the shape knows, with values the meta-schema refuses: no shape, and the
    /// validator refuses the schema as it compiles, as for any other schema.
    #[test]
    fn refuses_keywords_the_meta_schema_refuses() {
        let property = |p: Value| json!({"type": "object", "properties": {"p": p}, "additionalProperties": false});
        let root = |key: &str, value: Value| {
            let mut schema = property(json!({"type": "string"}));
            schema[key] = value;
            schema
        };
        let broken = [
            property(json!({"type": "string", "description": 5})),
            property(json!({"type": "string", "title": ["t"]})),
            property(json!({"type": "integer", "format": 32})),
            property(json!({"type": "string", "deprecated": "yes"})),
            property(json!({"type": "string", "readOnly": 1})),
            property(json!({"type": "string", "examples": "a"})),
            property(json!({"type": "string", "$comment": null})),
            property(json!({"type": []})),
            property(json!({"type": ["string", "string"]})),
            property(json!({"type": ["string", 1]})),
            root("description", json!(false)),
            root("$schema", json!(7)),
            root("$defs", json!({"P": 1})),
            root("definitions", json!([])),
        ];
        for schema in broken {
            assert!(Shape::of(&schema).is_none(), "a shape for {schema}");
            assert!(
                jsonschema::meta::validate(&schema).is_err(),
                "{schema} is valid"
            );
            let error = Validator::new("t", &schema)
                .err()
                .unwrap_or_else(|| panic!("{schema} compiled"));
            assert!(error.contains("does not compile"), "{error}");
        }
        // The same keywords with the values the meta-schema asks for: a shape.
        let mut fine = property(json!({
            "type": ["string", "null"], "description": "d", "title": "t", "$comment": "c",
            "deprecated": false, "readOnly": true, "writeOnly": false, "examples": ["a"],
            "default": 3
        }));
        fine["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        fine["$defs"] = json!({});
        assert!(Shape::of(&fine).is_some(), "no shape for {fine}");
        jsonschema::meta::validate(&fine).expect("valid");
    }
}
