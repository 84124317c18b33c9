// An editor script as a Unity user writes one: UnityEngine, UnityEditor, System and the
// bindings imported together, naming Unity's Color, Component, Material and Transform and the
// tools' own types. It must compile with no error (no ambiguous reference) and no warning.

using System;
using System.Threading.Tasks;
using Buril.Generated;
using UnityEditor;
using UnityEngine;

public static class UserScript
{
    [MenuItem("Tools/Make a red material")]
    public static async Task<string> MakeRed(Material unityMaterial, Component component, Transform transform)
    {
        Color red = new Color(1, 0, 0, 1);
        unityMaterial.color = red;
        var client = BurilConnection.Client;
        var created = await client.AssetCreateMaterialAsync(new AssetCreateMaterialInput
        {
            Path = "Assets/Materials/Red2.mat",
            Color = new ColorData { R = red.r, G = red.g, B = red.b },
        });
        Debug.Log(created.Path + " " + component.name + " " + transform.position.x);
        return unityMaterial.name + created.Path + (typeof(MaterialData) != null) + (typeof(ComponentData) != null) + (typeof(TransformData) != null);
    }

    public static async Task<AssetSearchOutput> Search()
    {
        var task = await BurilConnection.Client.StartAssetSearchAsync(new AssetSearchInput { Query = "Red" });
        SessionState.SetString("search", task.TaskId);
        var again = await BurilConnection.Client.ResumeTaskAsync<AssetSearchOutput>("asset_search", SessionState.GetString("search", ""));
        return await again.WaitAsync(default(System.Threading.CancellationToken), TimeSpan.FromSeconds(30), status => Debug.Log(status.Status));
    }
}
