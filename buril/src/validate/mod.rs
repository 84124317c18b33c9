//! Input validation: a compiled JSON Schema validator and problems worded for a model.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError};
use serde_json::Value;

use crate::error::Problem;
use crate::suggest::nearest;

mod shape;

pub(crate) use shape::Shape;

/// At most this many problems are listed; the rest are counted.
pub const MAX_PROBLEMS: usize = 32;

/// A tool's compiled input schema.
pub struct Validator {
    schema: Value,
    inner: jsonschema::Validator,
    /// The one-pass check of a schema of scalar properties, when the schema is one.
    shape: Option<Shape>,
}

impl Validator {
    /// Compiles `schema`; the error says why the schema of `tool` is not usable.
    pub fn new(tool: &str, schema: &Value) -> Result<Self, String> {
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "the input schema of `{tool}` must have root `type: \"object\"`: a tool's input is \
                 an object of named properties"
            ));
        }
        let inner = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .build(schema)
            .map_err(|e| format!("the input schema of `{tool}` does not compile: {e}"))?;
        Ok(Validator {
            schema: schema.clone(),
            inner,
            shape: Shape::of(schema),
        })
    }

    /// The one-pass check of this schema, when it is an object of scalar properties.
    pub(crate) fn shape(&self) -> Option<&Shape> {
        self.shape.as_ref()
    }

    /// Every problem with `input`, or an empty list when it is valid. The dispatcher asks this
    /// only of inputs the [`shape`](Self::shape), when there is one, did not accept.
    pub fn problems(&self, input: &Value) -> Vec<Problem> {
        if self.inner.is_valid(input) {
            return Vec::new();
        }
        let mut problems = Vec::new();
        let mut extra = 0usize;
        for error in self.inner.iter_errors(input) {
            for problem in self.describe(&error) {
                if problems.len() < MAX_PROBLEMS {
                    problems.push(problem);
                } else {
                    extra += 1;
                }
            }
        }
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
            ValidationErrorKind::Type { kind } => one(format!(
                "expected {}, got {}",
                expected_types(kind),
                describe(instance)
            )),
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
            ValidationErrorKind::Minimum { limit } => one(format!("must be at least {limit}")),
            ValidationErrorKind::Maximum { limit } => one(format!("must be at most {limit}")),
            ValidationErrorKind::ExclusiveMinimum { limit } => {
                one(format!("must be greater than {limit}"))
            }
            ValidationErrorKind::ExclusiveMaximum { limit } => {
                one(format!("must be less than {limit}"))
            }
            ValidationErrorKind::MinLength { limit } => {
                one(format!("must be at least {limit} characters long"))
            }
            ValidationErrorKind::MaxLength { limit } => {
                one(format!("must be at most {limit} characters long"))
            }
            ValidationErrorKind::MinItems { limit } => {
                one(format!("must have at least {limit} items"))
            }
            ValidationErrorKind::MaxItems { limit } => {
                one(format!("must have at most {limit} items"))
            }
            ValidationErrorKind::MinProperties { limit } => {
                one(format!("must have at least {limit} properties"))
            }
            ValidationErrorKind::MaxProperties { limit } => {
                one(format!("must have at most {limit} properties"))
            }
            ValidationErrorKind::UniqueItems => one("items must be unique".to_owned()),
            ValidationErrorKind::Pattern { pattern } => {
                one(format!("must match the pattern `{pattern}`"))
            }
            ValidationErrorKind::MultipleOf { multiple_of } => {
                one(format!("must be a multiple of {multiple_of}"))
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                self.describe_variants(&path, instance, context)
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
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
    ) -> Vec<Problem> {
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
            [] => {
                let expected: Vec<String> = context
                    .iter()
                    .flatten()
                    .filter_map(|e| match e.kind() {
                        ValidationErrorKind::Type { kind }
                            if e.instance_path().to_string() == path =>
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

    /// The property names the schema allows at the location of an `additionalProperties` error.
    fn known_properties(&self, error: &ValidationError<'_>) -> Vec<String> {
        let keyword_path = error.schema_path().to_string();
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

/// Whether `error` says the value at `path` itself has the wrong type.
fn is_type_mismatch_at(error: &ValidationError<'_>, path: &str) -> bool {
    matches!(error.kind(), ValidationErrorKind::Type { .. })
        && error.instance_path().to_string() == path
}

fn expected_types(kind: &TypeKind) -> String {
    let names: Vec<&str> = match kind {
        TypeKind::Single(t) => vec![t.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    };
    let words: Vec<String> = names.iter().map(|n| article(n)).collect();
    match words.as_slice() {
        [] => "a value".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn article(type_name: &str) -> String {
    match type_name {
        "null" => "null".to_owned(),
        "array" | "object" | "integer" => format!("an {type_name}"),
        other => format!("a {other}"),
    }
}

/// A short description of a JSON value, for messages: `the string "abc"`, `the number 3`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", compact(&Value::String(s.clone()))),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// A JSON rendering cut to 60 characters.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    }
}

fn list_values(options: &Value) -> String {
    match options.as_array() {
        Some(values) => values.iter().map(compact).collect::<Vec<_>>().join(", "),
        None => compact(options),
    }
}
