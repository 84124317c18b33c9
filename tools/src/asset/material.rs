//! `asset_create_material`: material files.

use std::collections::BTreeMap;

use buril::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::Project;
use crate::project::paths;

/// A colour, each channel from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Color {
    /// Red, 0 to 1.
    r: f64,
    /// Green, 0 to 1.
    g: f64,
    /// Blue, 0 to 1.
    b: f64,
    /// Opacity, 0 (transparent) to 1 (opaque). Default: 1.
    #[serde(default = "opaque")]
    a: f64,
}

fn opaque() -> f64 {
    1.0
}

impl Color {
    const WHITE: Color = Color {
        r: 1.0,
        g: 1.0,
        b: 1.0,
        a: 1.0,
    };

    fn check(&self) -> Result<(), ToolError> {
        for (channel, value) in [("r", self.r), ("g", self.g), ("b", self.b), ("a", self.a)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ToolError::invalid(format!(
                    "`color.{channel}` is {value}; colour channels go from 0 to 1 (divide 0-255 \
                     values by 255)"
                )));
            }
        }
        Ok(())
    }
}

/// A material file's contents.
#[derive(Debug, Serialize, JsonSchema)]
struct Material {
    /// The shader, e.g. `Standard`.
    shader: String,
    /// The main colour.
    color: Color,
    /// Numeric shader properties, e.g. `_Metallic`.
    properties: BTreeMap<String, f64>,
}

/// A material that was created.
#[derive(Debug, Serialize, JsonSchema)]
struct MaterialCreated {
    /// The new file.
    path: String,
    /// What it holds.
    material: Material,
    /// The file's size in bytes.
    bytes: u64,
}

/// Creates a material file (`.mat`) with a shader, a main colour and numeric shader
/// properties. Assign it to a renderer with `gameobject_add_component` (`MeshRenderer` with
/// `{"material": path}`).
#[buril::tool(title = "Create material")]
fn asset_create_material(
    /// The new file, e.g. `Assets/Materials/Blue.mat`; it must not exist yet.
    path: String,
    /// The shader. Default: `Standard`.
    shader: Option<String>,
    /// The main colour. Default: opaque white.
    color: Option<Color>,
    /// Numeric shader properties, e.g. `{"_Metallic": 0.2, "_Glossiness": 0.8}`.
    properties: Option<BTreeMap<String, f64>>,
    ctx: &buril::Context,
) -> Result<MaterialCreated, ToolError> {
    let path = paths::asset_with_extension(&path, "path", "mat")?;
    let color = color.unwrap_or(Color::WHITE);
    color.check()?;
    let shader = shader.unwrap_or_else(|| "Standard".to_owned());
    if shader.trim().is_empty() {
        return Err(ToolError::invalid(
            "`shader` is blank; leave it out for `Standard`",
        ));
    }
    let project = ctx.state::<Project>()?;
    if project.file(&path)?.exists() {
        return Err(ToolError::invalid(format!(
            "`{path}` already exists; pick another name, or read it with asset_read"
        )));
    }
    let material = Material {
        shader,
        color,
        properties: properties.unwrap_or_default(),
    };
    let mut text = serde_json::to_string_pretty(&material)?;
    text.push('\n');
    let bytes = project.write(&path, text.as_bytes())?;
    Ok(MaterialCreated {
        path,
        material,
        bytes,
    })
}
