//! The `.meta` file Unity keeps beside every asset and folder (`Red.mat.meta` beside
//! `Red.mat`), which holds the asset's GUID: references to the asset are by that GUID, so an
//! asset moved or deleted without its `.meta` loses it and breaks every reference. The tools
//! move and delete the two together, and give each folder they create one of its own.

use std::collections::hash_map::RandomState;
use std::fs;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The `.meta` of the asset or folder at `path`.
pub(crate) fn of(path: &Path) -> PathBuf {
    let mut meta = path.as_os_str().to_owned();
    meta.push(".meta");
    PathBuf::from(meta)
}

/// Whether `name` is a `.meta` file's (not an asset).
pub(crate) fn is_meta(name: &str) -> bool {
    name.ends_with(".meta")
}

/// Moves `from`'s `.meta` beside `to`, when it has one.
pub(crate) fn follow(from: &Path, to: &Path) -> io::Result<()> {
    match fs::rename(of(from), of(to)) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Deletes `path`'s `.meta`, when it has one.
pub(crate) fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(of(path)) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Creates `folder` and any missing parents below `root` (the `Assets` folder), each with a
/// folder `.meta` and a GUID of its own, as the editor does.
pub(crate) fn create_folders(root: &Path, folder: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut current = folder;
    while current != root && !current.is_dir() {
        missing.push(current.to_path_buf());
        match current.parent() {
            Some(parent) => current = parent,
            None => break,
        }
    }
    for created in missing.iter().rev() {
        fs::create_dir(created)?;
        if !of(created).exists() {
            fs::write(of(created), folder_meta(&guid()))?;
        }
    }
    Ok(())
}

/// A folder's `.meta`, as Unity writes it.
fn folder_meta(guid: &str) -> String {
    format!(
        "fileFormatVersion: 2\nguid: {guid}\nfolderAsset: yes\nDefaultImporter:\n  \
         externalObjects: {{}}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
    )
}

/// A new GUID: 32 lowercase hexadecimal digits, random (std's per-process random hasher keys,
/// the time and a counter).
pub(crate) fn guid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = |salt: u64| {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u64(count);
        hasher.write_u64(salt);
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guids_are_32_hex_digits_and_differ() {
        let a = guid();
        let b = guid();
        assert_eq!(a.len(), 32);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }

    #[test]
    fn a_meta_sits_beside_its_asset() {
        assert_eq!(
            of(Path::new("Assets/Materials/Red.mat")),
            Path::new("Assets/Materials/Red.mat.meta")
        );
        assert!(is_meta("Red.mat.meta"));
        assert!(!is_meta("Red.mat"));
    }
}
