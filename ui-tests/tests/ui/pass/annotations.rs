use buril::Annotations;

/// Lists the open scenes.
#[buril::tool(
    title = "List scenes",
    read_only,
    destructive = false,
    idempotent = true,
    open_world = false,
    off_thread = false,
    dangerous = false
)]
fn scene_list() -> Vec<String> {
    Vec::new()
}

fn main() {
    let tool = buril::registry().get("scene_list").unwrap();
    // `Annotations` is non-exhaustive: built from `NONE`, field by field.
    let mut expected = Annotations::NONE;
    expected.title = Some("List scenes".into());
    expected.read_only = Some(true);
    expected.destructive = Some(false);
    expected.idempotent = Some(true);
    expected.open_world = Some(false);
    assert_eq!(*tool.annotations(), expected);
    assert!(!tool.threading().is_off_thread() && !tool.is_dangerous());
}
