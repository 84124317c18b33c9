// The Tool Browser sample: Window > Buril > Tool Browser. Lists the server's tools
// (tools/list), builds a form from the input schema of the one chosen (strings, numbers,
// integers, booleans, enums as choices; other properties as JSON), calls it through
// BurilConnection's client and shows the answer or the failure. Its Security tab shows and
// changes which dangerous and third parties' tools are on, in the server's config file
// (BurilServerSettings), which the running server takes at once.

using System.Collections.Generic;
using System.Linq;
using Buril.Generated;
using Newtonsoft.Json.Linq;
using UnityEditor;
using UnityEngine;

namespace Buril.Samples
{
    /// <summary>Lists, fills in and calls the tools of the server <see cref="BurilConnection"/> reaches.</summary>
    public sealed class ToolBrowserWindow : EditorWindow
    {
        private readonly List<JObject> tools = new List<JObject>();
        private readonly Dictionary<string, string> values = new Dictionary<string, string>();
        private int chosen = -1;
        private string search = "";
        private string answer = "";
        private string status = "";
        private Vector2 listScroll;
        private Vector2 formScroll;
        private int tab;
        private JObject security;
        private string securityStatus = "";
        private Vector2 securityScroll;

        [MenuItem("Window/Buril/Tool Browser")]
        private static void Open()
        {
            GetWindow<ToolBrowserWindow>("Tool Browser");
        }

        private void OnEnable()
        {
            Refresh();
        }

        private async void Refresh()
        {
            status = "listing…";
            try
            {
                var requests = (IBurilRequestTransport)BurilConnection.Client.Transport;
                tools.Clear();
                string cursor = null;
                do
                {
                    var parameters = new JObject();
                    if (cursor != null)
                    {
                        parameters["cursor"] = cursor;
                    }
                    var page = await requests.RequestAsync("tools/list", parameters, default(System.Threading.CancellationToken));
                    foreach (var tool in (JArray)page["tools"])
                    {
                        tools.Add((JObject)tool);
                    }
                    cursor = (string)page["nextCursor"];
                }
                while (cursor != null);
                status = tools.Count + " tools";
            }
            catch (System.Exception error)
            {
                status = error.Message;
            }
            Repaint();
        }

        private void OnGUI()
        {
            var chosenTab = GUILayout.Toolbar(tab, new[] { "Tools", "Security" });
            if (chosenTab != tab)
            {
                tab = chosenTab;
                if (tab == 1)
                {
                    Change(BurilServerSettings.ReadAsync());
                }
            }
            if (tab == 1)
            {
                Security();
                return;
            }
            EditorGUILayout.BeginHorizontal();
            search = EditorGUILayout.TextField("Search", search);
            if (GUILayout.Button("Refresh", GUILayout.Width(80)))
            {
                Refresh();
            }
            EditorGUILayout.EndHorizontal();
            GUILayout.Label(status);
            EditorGUILayout.BeginHorizontal();
            listScroll = EditorGUILayout.BeginScrollView(listScroll, GUILayout.Width(240));
            for (var i = 0; i < tools.Count; i++)
            {
                var name = (string)tools[i]["name"];
                if (search.Length > 0 && name.IndexOf(search, System.StringComparison.OrdinalIgnoreCase) < 0)
                {
                    continue;
                }
                if (GUILayout.Toggle(chosen == i, name, "Button") && chosen != i)
                {
                    chosen = i;
                    values.Clear();
                    answer = "";
                }
            }
            EditorGUILayout.EndScrollView();
            formScroll = EditorGUILayout.BeginScrollView(formScroll);
            if (chosen >= 0 && chosen < tools.Count)
            {
                Form(tools[chosen]);
            }
            EditorGUILayout.EndScrollView();
            EditorGUILayout.EndHorizontal();
        }

        /// <summary>The Security tab: the switch for every dangerous tool, each dangerous tool, each external server.</summary>
        private void Security()
        {
            GUILayout.Label(securityStatus, EditorStyles.wordWrappedLabel);
            if (security == null)
            {
                return;
            }
            GUILayout.Label("Changes are written to " + (string)security["config"] + "; the server takes them at once.", EditorStyles.wordWrappedLabel);
            securityScroll = EditorGUILayout.BeginScrollView(securityScroll);
            var allowed = (bool)security["allow_dangerous"];
            if (EditorGUILayout.Toggle("Every dangerous tool", allowed) != allowed)
            {
                Change(BurilServerSettings.AllowDangerousAsync(!allowed));
            }
            GUILayout.Label("Dangerous tools", EditorStyles.boldLabel);
            foreach (var tool in (JArray)security["tools"])
            {
                if (!(bool)tool["dangerous"])
                {
                    continue;
                }
                var name = (string)tool["name"];
                var enabled = (bool)tool["enabled"];
                if (EditorGUILayout.Toggle(name, enabled) != enabled)
                {
                    Change(BurilServerSettings.SetToolAsync(name, !enabled));
                }
            }
            var externals = (JArray)security["externals"];
            if (externals.Count > 0)
            {
                GUILayout.Label("Third parties' servers", EditorStyles.boldLabel);
                foreach (var external in externals)
                {
                    var name = (string)external["name"];
                    var enabled = (bool)external["enabled"];
                    if (EditorGUILayout.Toggle(name + " (" + (string)external["prefix"] + "*)", enabled) != enabled)
                    {
                        Change(BurilServerSettings.SetExternalAsync(name, !enabled));
                    }
                }
            }
            EditorGUILayout.EndScrollView();
        }

        /// <summary>Shows the settings <paramref name="change"/> answers; the tool list is read again once the server has taken them.</summary>
        private async void Change(System.Threading.Tasks.Task<JObject> change)
        {
            securityStatus = "…";
            try
            {
                security = await change;
                securityStatus = "";
                await System.Threading.Tasks.Task.Delay(1000);
                Refresh();
            }
            catch (BurilTransportException error)
            {
                securityStatus = error.Message;
            }
            Repaint();
        }

        private void Form(JObject tool)
        {
            GUILayout.Label((string)tool["name"], EditorStyles.boldLabel);
            GUILayout.Label((string)tool["description"] ?? "", EditorStyles.wordWrappedLabel);
            var schema = tool["inputSchema"] as JObject;
            var properties = schema == null ? null : schema["properties"] as JObject;
            var required = schema == null ? null : schema["required"] as JArray;
            if (properties != null)
            {
                foreach (var property in properties.Properties())
                {
                    var fieldSchema = property.Value as JObject ?? new JObject();
                    var isRequired = required != null && required.Any(r => (string)r == property.Name);
                    Field(property.Name + (isRequired ? " *" : ""), property.Name, fieldSchema);
                }
            }
            if (GUILayout.Button("Call"))
            {
                Call((string)tool["name"], properties);
            }
            EditorGUILayout.TextArea(answer, GUILayout.ExpandHeight(true));
        }

        private void Field(string label, string key, JObject schema)
        {
            string current;
            values.TryGetValue(key, out current);
            var type = (string)schema["type"];
            var choices = schema["enum"] as JArray;
            if (choices != null)
            {
                var names = new List<string> { "(none)" };
                foreach (var choice in choices)
                {
                    names.Add((string)choice);
                }
                var at = System.Math.Max(0, names.IndexOf(current ?? "(none)"));
                at = EditorGUILayout.Popup(label, at, names.ToArray());
                values[key] = at == 0 ? null : names[at];
            }
            else if (type == "boolean")
            {
                values[key] = EditorGUILayout.Toggle(label, current == "true") ? "true" : "false";
            }
            else
            {
                values[key] = EditorGUILayout.TextField(label + (type == "string" || type == null ? "" : " (" + type + ")"), current ?? "");
            }
        }

        private async void Call(string name, JObject properties)
        {
            var input = new JObject();
            foreach (var pair in values)
            {
                if (string.IsNullOrEmpty(pair.Value))
                {
                    continue;
                }
                var schema = properties == null ? null : properties[pair.Key] as JObject;
                var type = schema == null ? null : (string)schema["type"];
                try
                {
                    input[pair.Key] = type == "string" || (schema != null && schema["enum"] != null) ? new JValue(pair.Value) : JToken.Parse(pair.Value);
                }
                catch (Newtonsoft.Json.JsonException)
                {
                    input[pair.Key] = pair.Value;
                }
            }
            answer = "calling…";
            try
            {
                var data = await BurilConnection.Client.CallAsync<JToken>(name, input);
                answer = data == null ? "null" : data.ToString();
            }
            catch (ToolValidationException error)
            {
                answer = "validation:\n" + string.Join("\n", error.Problems);
            }
            catch (BurilToolException error)
            {
                answer = error.Type + ": " + error.Error;
            }
            catch (BurilTransportException error)
            {
                answer = error.Failure + ": " + error.Message;
            }
            Repaint();
        }
    }
}
