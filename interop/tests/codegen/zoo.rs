//! Tools with every shape the generators must handle: tagged and untagged unions, string
//! enums, keywords as names, 64-bit integers, maps, free-form JSON, recursion, nullable nested
//! structs, aliases, and descriptions that try to break out of comments and strings.
//!
//! Each tool echoes its input, so a sample input is also a sample output.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A shape, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// The radius, in metres.
        radius: f64,
    },
    /// A rectangle.
    Rect {
        /// Width.
        width: f64,
        /// Height.
        height: f64,
        /// An optional label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    /// A point: no other fields.
    Point,
}

/// A value of one of several shapes, with no tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Loose {
    /// A number.
    Number(f64),
    /// Some text.
    Text(String),
    /// A pair.
    Pair {
        /// Left.
        left: i32,
        /// Right.
        right: i32,
    },
}

/// How urgent something is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Urgency {
    /// Whenever.
    Low,
    /// Soon.
    RightNow,
    /// A value named like a keyword.
    Default,
}

/// Property names that are keywords somewhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Keywords {
    /// C# and TypeScript keyword.
    pub class: String,
    /// C# keyword.
    pub namespace: Option<String>,
    /// Both.
    pub default: bool,
    /// TypeScript keyword.
    pub function: i64,
    /// Both.
    pub r#type: Urgency,
    /// C# keyword.
    pub object: Option<BTreeMap<String, String>>,
    /// A name with a dash.
    #[serde(rename = "with-dash")]
    pub with_dash: u8,
}

/// Integers of every width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Numbers {
    /// Beyond 2^53 in JSON.
    pub big: u64,
    /// Signed 64 bits.
    pub signed: i64,
    /// Small.
    pub small: i8,
    /// 32 bits unsigned.
    pub medium: u32,
    /// A float.
    pub ratio: f32,
    /// Maybe a 64-bit number.
    pub maybe: Option<u64>,
}

/// A tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Node {
    /// The node's name.
    pub name: String,
    /// Its children.
    pub children: Vec<Node>,
    /// An optional detail.
    pub detail: Option<Box<Detail>>,
}

/// A nested struct that may be absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Detail {
    /// A note.
    pub note: String,
    /// Its weight.
    #[serde(default)]
    pub weight: f64,
}

/// Echoes a shape (a tagged union in and out).
#[buril::tool(read_only)]
pub fn zoo_shape(
    /// The shape.
    shape: Shape,
    /// More shapes.
    more: Option<Vec<Shape>>,
) -> ShapeEcho {
    ShapeEcho {
        shape,
        more: more.unwrap_or_default(),
    }
}

/// What `zoo_shape` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShapeEcho {
    /// The shape.
    pub shape: Shape,
    /// More shapes.
    pub more: Vec<Shape>,
}

/// Echoes an untagged value.
#[buril::tool]
pub fn zoo_loose(
    /// The value.
    value: Loose,
) -> Loose {
    value
}

/// Echoes keywords used as names.
#[buril::tool]
pub fn zoo_keywords(buril::Input(keywords): buril::Input<Keywords>) -> Keywords {
    keywords
}

/// Echoes integers of every width.
#[buril::tool]
pub fn zoo_numbers(buril::Input(numbers): buril::Input<Numbers>) -> Numbers {
    numbers
}

/// Echoes maps.
#[buril::tool]
pub fn zoo_maps(
    /// String to string.
    tags: BTreeMap<String, String>,
    /// String to number.
    scores: HashMap<String, f64>,
    /// String to a list of shapes.
    nested: Option<BTreeMap<String, Vec<Shape>>>,
) -> Maps {
    Maps {
        tags,
        scores: scores.into_iter().collect(),
        nested: nested.unwrap_or_default(),
    }
}

/// What `zoo_maps` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Maps {
    /// String to string.
    pub tags: BTreeMap<String, String>,
    /// String to number.
    pub scores: BTreeMap<String, f64>,
    /// String to a list of shapes.
    pub nested: BTreeMap<String, Vec<Shape>>,
}

/// Echoes free-form JSON.
#[buril::tool]
pub fn zoo_free(
    /// Any JSON value.
    value: serde_json::Value,
    /// Any JSON object.
    object: Option<serde_json::Map<String, serde_json::Value>>,
) -> Free {
    Free { value, object }
}

/// What `zoo_free` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Free {
    /// Any JSON value.
    pub value: serde_json::Value,
    /// Any JSON object.
    pub object: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Echoes a tree (a recursive type).
#[buril::tool]
pub fn zoo_tree(
    /// The root.
    root: Node,
) -> Node {
    root
}

/// Returns nothing.
#[buril::tool]
pub fn zoo_unit() {}

/// Returns a list (wrapped as `{"result": [...]}`).
#[buril::tool]
pub fn zoo_list(
    /// How many.
    count: u8,
) -> Vec<String> {
    (0..count).map(|i| format!("item {i}")).collect()
}

/// Renamed; the old name still works.
#[buril::tool(aliases = ["zoo_old_name"])]
pub fn zoo_renamed(
    /// An urgency.
    urgency: Urgency,
) -> Urgency {
    urgency
}

/// Deletes everything (it does not really). It is dangerous.
#[buril::tool(dangerous, destructive)]
pub fn zoo_danger() {}

/// Tries to break out: */ </summary> <script> " ' ` ${injected} \u0000 \ backslash
/// // line comment @deprecated {@link x} #region
/// */ public static void Injected() {} /*
#[buril::tool(title = "Escape */ \" ` ${x}")]
pub fn zoo_escape(
    /// */ "quoted" `tick` ${x} </param> \ end
    text: String,
) -> String {
    text
}
