// The attribute does not parse the body: a syntax error there is the compiler's own, pointing
// at the user's tokens, and the attribute's rules (here: the missing parameter doc) are still
// checked, since the signature is fine.

/// Opens a scene.
#[buril::tool]
fn scene_open(path: String) -> String {
    let opened = ;
    path
}

fn main() {}
