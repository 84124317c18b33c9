/// Opens a scene.
#[buril::tool]
fn scene_open_with_every_option_that_anyone_has_ever_asked_for_so_far() {}

fn main() {}
