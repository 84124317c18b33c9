// A stand-in for UnityEditor.dll: the types and members the package and the tests use, with
// Unity's names and signatures. SessionState keeps its values in the file BURIL_TEST_SESSION
// names, so that they outlive an AppDomain as Unity's outlive a domain reload; the test hooks
// (RaiseBeforeAssemblyReload, RaiseQuitting) stand for the editor raising its events.

using System;
using System.Collections.Generic;
using UnityEngine;

namespace UnityEditor
{
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute
    {
    }

    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MenuItemAttribute : Attribute
    {
        public MenuItemAttribute(string itemName)
        {
        }
    }

    [AttributeUsage(AttributeTargets.Method)]
    public sealed class SettingsProviderAttribute : Attribute
    {
    }

    public static class AssemblyReloadEvents
    {
        public delegate void AssemblyReloadCallback();

        public static event AssemblyReloadCallback beforeAssemblyReload;

        public static event AssemblyReloadCallback afterAssemblyReload;

        public static void RaiseBeforeAssemblyReload()
        {
            var handler = beforeAssemblyReload;
            if (handler != null)
            {
                handler();
            }
        }

        public static void RaiseAfterAssemblyReload()
        {
            var handler = afterAssemblyReload;
            if (handler != null)
            {
                handler();
            }
        }
    }

    public static class EditorApplication
    {
        public delegate void CallbackFunction();

        public static CallbackFunction update;

        public static event Action quitting;

        public static void RaiseQuitting()
        {
            var handler = quitting;
            if (handler != null)
            {
                handler();
            }
        }
    }

    public static class SessionState
    {
        private static readonly object Gate = new object();

        private static string File
        {
            get { return Environment.GetEnvironmentVariable("BURIL_TEST_SESSION"); }
        }

        private static Dictionary<string, string> Read()
        {
            var values = new Dictionary<string, string>();
            if (File != null && System.IO.File.Exists(File))
            {
                foreach (var line in System.IO.File.ReadAllLines(File))
                {
                    var tab = line.IndexOf('\t');
                    if (tab > 0)
                    {
                        values[line.Substring(0, tab)] = line.Substring(tab + 1);
                    }
                }
            }
            return values;
        }

        private static void Write(Dictionary<string, string> values)
        {
            var lines = new List<string>();
            foreach (var pair in values)
            {
                lines.Add(pair.Key + "\t" + pair.Value);
            }
            System.IO.File.WriteAllLines(File, lines.ToArray());
        }

        public static string GetString(string key, string defaultValue)
        {
            lock (Gate)
            {
                string value;
                return Read().TryGetValue(key, out value) ? value : defaultValue;
            }
        }

        public static void SetString(string key, string value)
        {
            lock (Gate)
            {
                var values = Read();
                values[key] = value;
                Write(values);
            }
        }

        public static void EraseString(string key)
        {
            lock (Gate)
            {
                var values = Read();
                values.Remove(key);
                Write(values);
            }
        }

        public static int GetInt(string key, int defaultValue)
        {
            int value;
            return int.TryParse(GetString(key, ""), out value) ? value : defaultValue;
        }

        public static void SetInt(string key, int value)
        {
            SetString(key, value.ToString());
        }

        public static void EraseInt(string key)
        {
            EraseString(key);
        }
    }

    public class EditorWindow : ScriptableObject
    {
        public static T GetWindow<T>(string title) where T : EditorWindow, new()
        {
            return new T();
        }

        public void Repaint()
        {
        }
    }

    public enum SettingsScope
    {
        User,
        Project,
    }

    public class SettingsProvider
    {
        public SettingsProvider(string path, SettingsScope scopes, IEnumerable<string> keywords = null)
        {
        }

        public string label { get; set; }

        public Action<string> guiHandler { get; set; }
    }

    public static class EditorStyles
    {
        public static GUIStyle boldLabel
        {
            get { return new GUIStyle(); }
        }

        public static GUIStyle wordWrappedLabel
        {
            get { return new GUIStyle(); }
        }
    }

    public static class EditorGUI
    {
        public static void BeginChangeCheck()
        {
        }

        public static bool EndChangeCheck()
        {
            return false;
        }
    }

    public static class EditorGUILayout
    {
        public static string TextField(string label, string text, params GUILayoutOption[] options)
        {
            return text;
        }

        public static int IntField(string label, int value, params GUILayoutOption[] options)
        {
            return value;
        }

        public static bool Toggle(string label, bool value, params GUILayoutOption[] options)
        {
            return value;
        }

        public static int Popup(string label, int selectedIndex, string[] displayedOptions, params GUILayoutOption[] options)
        {
            return selectedIndex;
        }

        public static Enum EnumPopup(string label, Enum selected, params GUILayoutOption[] options)
        {
            return selected;
        }

        public static string TextArea(string text, params GUILayoutOption[] options)
        {
            return text;
        }

        public static void BeginHorizontal(params GUILayoutOption[] options)
        {
        }

        public static void EndHorizontal()
        {
        }

        public static Vector2 BeginScrollView(Vector2 scrollPosition, params GUILayoutOption[] options)
        {
            return scrollPosition;
        }

        public static void EndScrollView()
        {
        }
    }
}
