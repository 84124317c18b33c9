mod editor {
    /// Opens a scene in the editor.
    #[buril::tool]
    pub fn scene_open() {}
}

mod runtime {
    /// Opens a scene at runtime.
    #[buril::tool]
    pub fn scene_open() {}
}

fn main() {}
