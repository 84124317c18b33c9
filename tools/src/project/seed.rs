//! The sample project written into an empty folder, from templates embedded in the binary.

use std::fs;
use std::io;
use std::path::Path;

macro_rules! template {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/templates/project/",
                $path
            )),
        )
    };
}

/// Every file of the sample project: its path and its contents.
pub const FILES: &[(&str, &str)] = &[
    template!("Assets/Scenes/Main.scene"),
    template!("Assets/Materials/Red.mat"),
    template!("Assets/Materials/Ground.mat"),
    template!("Assets/Prefabs/Coin.prefab"),
    template!("Assets/Prefabs/Enemy.prefab"),
    template!("Assets/Scripts/PlayerController.cs"),
    template!("Assets/Scripts/Rotator.cs"),
    template!("Assets/Scripts/GameSettings.cs"),
    template!("ProjectSettings/ProjectVersion.txt"),
    template!("Library/EditorSession.json"),
];

/// Whether `root` is missing or an empty folder: a place to seed a project.
pub fn is_vacant(root: &Path) -> io::Result<bool> {
    match fs::read_dir(root) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(error) => Err(error),
    }
}

/// Writes the sample project into `root`, creating it.
pub fn write(root: &Path) -> io::Result<()> {
    for (path, contents) in FILES {
        let file = root.join(path);
        if let Some(folder) = file.parent() {
            fs::create_dir_all(folder)?;
        }
        fs::write(file, contents)?;
    }
    Ok(())
}
