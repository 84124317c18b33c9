//! `scene_render_map`: a top-down map of an open scene's game objects, as a PNG image with the
//! numbers it was drawn from.

use std::collections::HashMap;

use buril::ToolError;
use buril::content::{Image, Rich};
use image::{ImageFormat, Rgb, RgbImage};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::Project;
use crate::project::scene::{GameObject, Scene, Vec3};

/// Which scene to draw, and how large.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MapArgs {
    /// The open scene, by name or path. Default: the active scene.
    #[serde(default)]
    scene: Option<String>,
    /// The image's width and height in pixels, 64 to 2048. Default: 256.
    #[serde(default)]
    #[schemars(range(min = 64, max = 2048))]
    size: Option<u32>,
}

/// One object on the map.
#[derive(Debug, Serialize, JsonSchema)]
struct Marker {
    /// The object's id, for the `gameobject_` tools.
    id: u64,
    /// The object's name.
    name: String,
    /// Its world position along x, in metres.
    x: f64,
    /// Its world position along z, in metres.
    z: f64,
    /// The pixel column of its centre on the map (0 at the left).
    column: u32,
    /// The pixel row of its centre on the map (0 at the top).
    row: u32,
    /// How it is drawn: `camera`, `light`, `player`, `mesh` (a square of its footprint) or
    /// `object`.
    style: String,
    /// Whether it is active in the hierarchy (inactive objects are drawn dim).
    active: bool,
}

/// What the map shows and how its pixels map onto the scene.
#[derive(Debug, Serialize, JsonSchema)]
struct SceneMap {
    /// The scene's name.
    scene: String,
    /// The image's width and height, in pixels.
    size: u32,
    /// How many metres one pixel spans.
    metres_per_pixel: f64,
    /// The world x at the map's left edge, in metres.
    left: f64,
    /// The world z at the map's top edge, in metres (z grows upwards on the map).
    top: f64,
    /// The spacing of the grid lines, in metres.
    grid: f64,
    /// The objects drawn, in the scene's order.
    objects: Vec<Marker>,
}

/// Renders a top-down map of an open scene as a PNG image: x to the right, z up, a grid line
/// every 1, 2, 5 or 10 metres (whichever keeps them apart), each game object at its world
/// position. Cameras are blue, lights yellow, the `Player`-tagged object green, objects with a
/// mesh grey squares of their footprint (scale in x and z), others white; inactive objects are
/// dim. World positions compose the parents' positions, scales and rotations about y (a view
/// from above ignores the rest). The structured result gives every object's pixel, so the
/// image can be read back precisely.
#[buril::tool(
    read_only,
    idempotent,
    title = "Scene map",
    // A map grid with two markers, 16 by 16.
    icons = ["data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3Qgd2lkdGg9IjE2IiBoZWlnaHQ9IjE2IiByeD0iMiIgZmlsbD0iIzFjMWUyNCIvPjxwYXRoIGQ9Ik00IDB2MTZNOCAwdjE2TTEyIDB2MTZNMCA0aDE2TTAgOGgxNk0wIDEyaDE2IiBzdHJva2U9IiMzYTNlNGEiLz48Y2lyY2xlIGN4PSI4IiBjeT0iNSIgcj0iMiIgZmlsbD0iIzQ2ZDI2ZSIvPjxjaXJjbGUgY3g9IjgiIGN5PSIxMiIgcj0iMiIgZmlsbD0iIzUwOTZmZiIvPjwvc3ZnPg=="],
    meta = [("dev.buril.example/returns", "image/png")],
    // An interactive map for hosts that show MCP Apps: its markers call `gameobject_get`.
    ui = "map.html"
)]
fn scene_render_map(
    buril::Input(MapArgs { scene, size }): buril::Input<MapArgs>,
    ctx: &buril::Context,
) -> Result<Rich<SceneMap>, ToolError> {
    let size = size.unwrap_or(256);
    let project = ctx.state::<Project>()?;
    let editor = project.editor();
    let open = editor.scene(scene.as_deref())?;
    let (map, png) = render(open.name(), &open.scene, size)?;
    Ok(Rich::new(map).with(Image::png(png)))
}

/// An object's place seen from above: world x and z, its footprint, whether it is active in
/// the hierarchy.
#[derive(Debug, Clone, Copy)]
struct Placed {
    x: f64,
    z: f64,
    /// Half the footprint along x and z, in metres.
    half_x: f64,
    half_z: f64,
    /// The rotation about y, in radians.
    yaw: f64,
    active: bool,
}

/// Every object's place, parents first (an object whose parent is missing is placed as a root).
fn place(scene: &Scene) -> HashMap<u64, Placed> {
    let by_id: HashMap<u64, &GameObject> = scene.objects.iter().map(|o| (o.id, o)).collect();
    let mut placed: HashMap<u64, Placed> = HashMap::new();
    fn resolve(
        object: &GameObject,
        by_id: &HashMap<u64, &GameObject>,
        placed: &mut HashMap<u64, Placed>,
        depth: usize,
    ) -> Placed {
        if let Some(done) = placed.get(&object.id) {
            return *done;
        }
        let parent = object
            .parent
            .and_then(|id| by_id.get(&id))
            // A cycle cannot occur in a scene the tools wrote; the depth bound keeps a
            // hand-edited one from recursing forever.
            .filter(|_| depth < 256)
            .map(|parent| resolve(parent, by_id, placed, depth + 1));
        let local = object.transform;
        let Vec3 { x, z, .. } = local.position;
        let yaw = local.rotation.y.to_radians();
        let here = match parent {
            None => Placed {
                x,
                z,
                half_x: local.scale.x.abs() / 2.0,
                half_z: local.scale.z.abs() / 2.0,
                yaw,
                active: object.active,
            },
            Some(parent) => {
                // The parent's scale, then its rotation about y (clockwise seen from above, as
                // a positive yaw turns +z towards +x), then its position.
                let (sx, sz) = (x * parent.half_x * 2.0, z * parent.half_z * 2.0);
                let (sin, cos) = parent.yaw.sin_cos();
                Placed {
                    x: parent.x + sx * cos + sz * sin,
                    z: parent.z - sx * sin + sz * cos,
                    half_x: parent.half_x * local.scale.x.abs(),
                    half_z: parent.half_z * local.scale.z.abs(),
                    yaw: parent.yaw + yaw,
                    active: parent.active && object.active,
                }
            }
        };
        placed.insert(object.id, here);
        here
    }
    for object in &scene.objects {
        resolve(object, &by_id, &mut placed, 0);
    }
    placed
}

/// How an object is drawn.
fn style(object: &GameObject) -> &'static str {
    let has = |kind: &str| object.components.iter().any(|c| c.kind == kind);
    if has("Camera") {
        "camera"
    } else if has("Light") {
        "light"
    } else if object.tag == "Player" {
        "player"
    } else if has("MeshFilter") || has("MeshRenderer") {
        "mesh"
    } else {
        "object"
    }
}

fn colour(style: &str, active: bool) -> Rgb<u8> {
    let [r, g, b] = match style {
        "camera" => [80, 150, 255],
        "light" => [255, 215, 60],
        "player" => [70, 210, 110],
        "mesh" => [150, 150, 160],
        _ => [235, 235, 235],
    };
    if active {
        Rgb([r, g, b])
    } else {
        Rgb([r / 3 + 20, g / 3 + 20, b / 3 + 20])
    }
}

const BACKGROUND: Rgb<u8> = Rgb([28, 30, 36]);
const GRID: Rgb<u8> = Rgb([46, 49, 58]);
const AXIS: Rgb<u8> = Rgb([80, 84, 98]);

/// Draws the map; answers what it shows and the PNG file's bytes.
fn render(name: &str, scene: &Scene, size: u32) -> Result<(SceneMap, Vec<u8>), ToolError> {
    let placed = place(scene);
    // The square that holds every object's footprint, with a margin, at least 4 m across.
    let (mut min_x, mut max_x, mut min_z, mut max_z) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for object in &scene.objects {
        let p = placed[&object.id];
        let (hx, hz) = if style(object) == "mesh" {
            (p.half_x, p.half_z)
        } else {
            (0.0, 0.0)
        };
        min_x = min_x.min(p.x - hx);
        max_x = max_x.max(p.x + hx);
        min_z = min_z.min(p.z - hz);
        max_z = max_z.max(p.z + hz);
    }
    if scene.objects.is_empty() {
        (min_x, max_x, min_z, max_z) = (0.0, 0.0, 0.0, 0.0);
    }
    let span = ((max_x - min_x).max(max_z - min_z) * 1.2).max(4.0);
    let (centre_x, centre_z) = ((min_x + max_x) / 2.0, (min_z + max_z) / 2.0);
    let left = centre_x - span / 2.0;
    let top = centre_z + span / 2.0;
    let metres_per_pixel = span / f64::from(size);
    let pixel = |x: f64, z: f64| -> (f64, f64) {
        ((x - left) / metres_per_pixel, (top - z) / metres_per_pixel)
    };
    let mut image = RgbImage::from_pixel(size, size, BACKGROUND);

    // Grid lines at least 12 pixels apart, and the axes through the origin.
    let grid = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0]
        .into_iter()
        .find(|step| step / metres_per_pixel >= 12.0)
        .unwrap_or(10_000.0);
    let first = (left / grid).ceil() as i64;
    let last = ((left + span) / grid).floor() as i64;
    for i in first..=last {
        let metres = i as f64 * grid;
        let (column, _) = pixel(metres, 0.0);
        vertical(&mut image, column.round(), if i == 0 { AXIS } else { GRID });
    }
    let first = ((top - span) / grid).ceil() as i64;
    let last = (top / grid).floor() as i64;
    for i in first..=last {
        let metres = i as f64 * grid;
        let (_, row) = pixel(0.0, metres);
        horizontal(&mut image, row.round(), if i == 0 { AXIS } else { GRID });
    }

    // Footprints first, so that markers are drawn over them; then markers in the scene's order.
    let radius = (f64::from(size) / 64.0).max(2.0);
    for object in scene.objects.iter().filter(|o| style(o) == "mesh") {
        let p = placed[&object.id];
        let (x0, y0) = pixel(p.x - p.half_x, p.z + p.half_z);
        let (x1, y1) = pixel(p.x + p.half_x, p.z - p.half_z);
        let fill = colour("mesh", p.active);
        let dim = Rgb(fill.0.map(|c| c / 2 + 10));
        fill_rect(&mut image, (x0, y0), (x1, y1), dim);
        outline_rect(&mut image, (x0, y0), (x1, y1), fill);
    }
    let mut objects = Vec::with_capacity(scene.objects.len());
    for object in &scene.objects {
        let p = placed[&object.id];
        let style = style(object);
        let (column, row) = pixel(p.x, p.z);
        if style != "mesh" {
            disc(&mut image, (column, row), radius, colour(style, p.active));
        } else {
            disc(
                &mut image,
                (column, row),
                radius / 2.0,
                colour(style, p.active),
            );
        }
        objects.push(Marker {
            id: object.id,
            name: object.name.clone(),
            x: p.x,
            z: p.z,
            column: column.clamp(0.0, f64::from(size - 1)) as u32,
            row: row.clamp(0.0, f64::from(size - 1)) as u32,
            style: style.to_owned(),
            active: p.active,
        });
    }
    let mut png = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut png, ImageFormat::Png)
        .map_err(|error| ToolError::runtime(format!("the map could not be encoded: {error}")))?;
    let map = SceneMap {
        scene: name.to_owned(),
        size,
        metres_per_pixel,
        left,
        top,
        grid,
        objects,
    };
    Ok((map, png.into_inner()))
}

fn put(image: &mut RgbImage, x: i64, y: i64, colour: Rgb<u8>) {
    if x >= 0 && y >= 0 && x < i64::from(image.width()) && y < i64::from(image.height()) {
        image.put_pixel(x as u32, y as u32, colour);
    }
}

fn vertical(image: &mut RgbImage, column: f64, colour: Rgb<u8>) {
    for y in 0..i64::from(image.height()) {
        put(image, column as i64, y, colour);
    }
}

fn horizontal(image: &mut RgbImage, row: f64, colour: Rgb<u8>) {
    for x in 0..i64::from(image.width()) {
        put(image, x, row as i64, colour);
    }
}

fn fill_rect(image: &mut RgbImage, (x0, y0): (f64, f64), (x1, y1): (f64, f64), colour: Rgb<u8>) {
    for y in y0.round() as i64..=y1.round() as i64 {
        for x in x0.round() as i64..=x1.round() as i64 {
            put(image, x, y, colour);
        }
    }
}

fn outline_rect(image: &mut RgbImage, (x0, y0): (f64, f64), (x1, y1): (f64, f64), colour: Rgb<u8>) {
    let (x0, y0, x1, y1) = (
        x0.round() as i64,
        y0.round() as i64,
        x1.round() as i64,
        y1.round() as i64,
    );
    for x in x0..=x1 {
        put(image, x, y0, colour);
        put(image, x, y1, colour);
    }
    for y in y0..=y1 {
        put(image, x0, y, colour);
        put(image, x1, y, colour);
    }
}

fn disc(image: &mut RgbImage, (cx, cy): (f64, f64), radius: f64, colour: Rgb<u8>) {
    let reach = radius.ceil() as i64;
    let (x, y) = (cx.round() as i64, cy.round() as i64);
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            if ((dx * dx + dy * dy) as f64) <= radius * radius {
                put(image, x + dx, y + dy, colour);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::scene::Transform;

    fn object(id: u64, parent: Option<u64>, x: f64, z: f64, yaw: f64) -> GameObject {
        let mut object = GameObject::new(id, format!("o{id}"));
        object.parent = parent;
        object.transform = Transform {
            position: Vec3::new(x, 0.0, z),
            rotation: Vec3::new(0.0, yaw, 0.0),
            ..Transform::default()
        };
        object
    }

    #[test]
    fn children_are_placed_through_their_parents() {
        let scene = Scene {
            objects: vec![
                object(1, None, 10.0, 0.0, 90.0),
                object(2, Some(1), 0.0, 1.0, 0.0),
            ],
            ..Scene::default()
        };
        let placed = place(&scene);
        // A yaw of 90 degrees turns the child's +z towards +x.
        let child = placed[&2];
        assert!(
            (child.x - 11.0).abs() < 1e-9 && child.z.abs() < 1e-9,
            "{child:?}"
        );
    }

    #[test]
    fn the_map_is_a_png_with_each_object_at_its_pixel() {
        let mut camera = object(1, None, -3.0, 2.0, 0.0);
        camera.components.push(crate::project::scene::Component {
            kind: "Camera".into(),
            properties: Default::default(),
        });
        let scene = Scene {
            objects: vec![camera, object(2, None, 3.0, -2.0, 0.0)],
            ..Scene::default()
        };
        let (map, png) = render("Test", &scene, 128).unwrap();
        let decoded = image::load_from_memory_with_format(&png, ImageFormat::Png)
            .unwrap()
            .to_rgb8();
        assert_eq!(decoded.dimensions(), (128, 128));
        let at = |marker: &Marker| *decoded.get_pixel(marker.column, marker.row);
        assert_eq!(at(&map.objects[0]), colour("camera", true));
        assert_eq!(at(&map.objects[1]), colour("object", true));
        // x grows to the right and z upwards.
        assert!(map.objects[0].column < map.objects[1].column);
        assert!(map.objects[0].row < map.objects[1].row);
    }
}
