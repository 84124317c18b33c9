//! Type names a Unity editor script already has: a generated type never takes one, so that a
//! script with `using UnityEngine;`, `using UnityEditor;`, `using System;` and
//! `using Buril.Generated;` can name both without an ambiguous reference (CS0104). A type
//! whose name is reserved is written with `Data` after it (`Color` is `ColorData`), or `Data2`,
//! `Data3`… when that is taken too; the file's header and the generator's report say so.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Api, Field, TypeDef, TypeRef};

/// The types of `UnityEngine`, `UnityEngine.SceneManagement`, `UnityEditor`,
/// `UnityEditor.SceneManagement`, `System`, `System.Collections.Generic` and
/// `System.Threading.Tasks` that editor scripts commonly import and use, sorted.
pub(crate) const RESERVED: &[&str] = &[
    "Action",
    "Activator",
    "AnimationClip",
    "AnimationCurve",
    "Animator",
    "Application",
    "Array",
    "AssetDatabase",
    "AssetImporter",
    "Attribute",
    "AudioClip",
    "AudioSource",
    "Avatar",
    "Behaviour",
    "Bounds",
    "Buffer",
    "BuildPipeline",
    "BuildTarget",
    "Camera",
    "Canvas",
    "CharacterController",
    "Collider",
    "Collision",
    "Color",
    "Color32",
    "Component",
    "Console",
    "Convert",
    "Cubemap",
    "Cursor",
    "DateTime",
    "Debug",
    "Delegate",
    "Dictionary",
    "Editor",
    "EditorApplication",
    "EditorGUI",
    "EditorGUILayout",
    "EditorPrefs",
    "EditorSceneManager",
    "EditorStyles",
    "EditorUtility",
    "EditorWindow",
    "Enum",
    "Environment",
    "Event",
    "EventArgs",
    "EventHandler",
    "EventType",
    "Exception",
    "Font",
    "Func",
    "GC",
    "GUI",
    "GUIContent",
    "GUILayout",
    "GUIStyle",
    "GameObject",
    "GenericMenu",
    "Gizmos",
    "Gradient",
    "Guid",
    "Handles",
    "Hash128",
    "HashSet",
    "Input",
    "KeyCode",
    "KeyValuePair",
    "Keyframe",
    "LayerMask",
    "Lazy",
    "Light",
    "LineRenderer",
    "List",
    "LogType",
    "Material",
    "Math",
    "Mathf",
    "Matrix4x4",
    "MenuItem",
    "Mesh",
    "MeshFilter",
    "MeshRenderer",
    "MessageType",
    "MonoBehaviour",
    "Motion",
    "Nullable",
    "Object",
    "ParticleSystem",
    "Physics",
    "Plane",
    "PlayModeStateChange",
    "PlayerPrefs",
    "PlayerSettings",
    "PrefabUtility",
    "PrimitiveType",
    "Progress",
    "Quaternion",
    "Random",
    "Ray",
    "RaycastHit",
    "Rect",
    "RectTransform",
    "RenderTexture",
    "Renderer",
    "Resources",
    "Rigidbody",
    "Scene",
    "SceneManager",
    "SceneView",
    "Screen",
    "ScriptableObject",
    "Selection",
    "SerializedObject",
    "SerializedProperty",
    "SessionState",
    "SettingsProvider",
    "Shader",
    "Space",
    "Sprite",
    "String",
    "Task",
    "Terrain",
    "TextAsset",
    "Texture",
    "Texture2D",
    "Time",
    "TimeSpan",
    "Tools",
    "Transform",
    "Tuple",
    "Type",
    "Undo",
    "Uri",
    "Vector2",
    "Vector2Int",
    "Vector3",
    "Vector3Int",
    "Vector4",
    "Version",
];

/// Whether `name` is a type name a Unity editor script already has.
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.binary_search(&name).is_ok()
}

/// Each reserved type name of `api` and what it is written instead, in name order.
pub(crate) fn renames(api: &Api) -> Vec<(String, String)> {
    let mut taken: BTreeSet<String> = api.types.keys().cloned().collect();
    for def in api.types.values() {
        if let TypeDef::TaggedUnion(union) = def {
            taken.extend(union.variants.iter().map(|variant| variant.name.clone()));
        }
    }
    let reserved: Vec<String> = taken
        .iter()
        .filter(|name| is_reserved(name))
        .cloned()
        .collect();
    let mut renamed = Vec::new();
    for name in reserved {
        let mut candidate = format!("{name}Data");
        let mut next = 2;
        while taken.contains(&candidate) || is_reserved(&candidate) {
            candidate = format!("{name}Data{next}");
            next += 1;
        }
        taken.insert(candidate.clone());
        renamed.push((name, candidate));
    }
    renamed
}

/// `api` with its type names changed as `renamed` says ([`renames`] of it; borrowed when
/// none is).
pub(crate) fn avoid<'a>(api: &'a Api, renamed: &[(String, String)]) -> Cow<'a, Api> {
    let renamed: BTreeMap<String, String> = renamed.iter().cloned().collect();
    if renamed.is_empty() {
        return Cow::Borrowed(api);
    }
    let name = |old: &String| renamed.get(old).cloned().unwrap_or_else(|| old.clone());
    let mut api = api.clone();
    for tool in &mut api.tools {
        tool.input_type = name(&tool.input_type);
        tool.output_type = name(&tool.output_type);
    }
    let types = std::mem::take(&mut api.types);
    for (_, mut def) in types {
        match &mut def {
            TypeDef::Struct(def) => {
                def.name = name(&def.name);
                fields(&mut def.fields, &renamed);
            }
            TypeDef::Enum(def) => def.name = name(&def.name),
            TypeDef::TaggedUnion(def) => {
                def.name = name(&def.name);
                for variant in &mut def.variants {
                    variant.name = name(&variant.name);
                    fields(&mut variant.fields, &renamed);
                }
            }
            TypeDef::Untagged(def) => {
                def.name = name(&def.name);
                for variant in &mut def.variants {
                    type_ref(variant, &renamed);
                }
            }
        }
        api.types.insert(def.name().to_owned(), def);
    }
    Cow::Owned(api)
}

fn fields(fields: &mut [Field], renamed: &BTreeMap<String, String>) {
    for field in fields {
        type_ref(&mut field.ty, renamed);
    }
}

fn type_ref(ty: &mut TypeRef, renamed: &BTreeMap<String, String>) {
    match ty {
        TypeRef::Named(name) => {
            if let Some(new) = renamed.get(name) {
                *name = new.clone();
            }
        }
        TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
            type_ref(inner, renamed)
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_for_the_binary_search() {
        let mut sorted = RESERVED.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, RESERVED);
    }
}
