// A stand-in for UnityEngine.dll: the types and members the package and the tests use, with
// Unity's names and signatures, so that code compiled against it compiles against Unity's.
// Application.dataPath comes from BURIL_TEST_PROJECT (the project folder).

using System;
using System.Threading.Tasks;

namespace UnityEngine
{
    public class Object
    {
        public string name;
    }

    public class Component : Object
    {
        public GameObject gameObject;
        public Transform transform;
    }

    public class Transform : Component
    {
        public Vector3 position;
    }

    public class GameObject : Object
    {
        public Transform transform;
    }

    public class Material : Object
    {
        public Color color;
    }

    public class ScriptableObject : Object
    {
    }

    public struct Color
    {
        public float r;
        public float g;
        public float b;
        public float a;

        public Color(float r, float g, float b, float a)
        {
            this.r = r;
            this.g = g;
            this.b = b;
            this.a = a;
        }
    }

    public struct Vector2
    {
        public float x;
        public float y;
    }

    public struct Vector3
    {
        public float x;
        public float y;
        public float z;

        public Vector3(float x, float y, float z)
        {
            this.x = x;
            this.y = y;
            this.z = z;
        }
    }

    public static class Debug
    {
        public static void Log(object message)
        {
            Console.Error.WriteLine("[Log] " + message);
        }

        public static void LogWarning(object message)
        {
            Console.Error.WriteLine("[Warning] " + message);
        }

        public static void LogError(object message)
        {
            Console.Error.WriteLine("[Error] " + message);
        }
    }

    public static class Application
    {
        public static string dataPath
        {
            get { return System.IO.Path.Combine(Environment.GetEnvironmentVariable("BURIL_TEST_PROJECT") ?? ".", "Assets"); }
        }
    }

    public sealed class GUILayoutOption
    {
    }

    public class GUIStyle
    {
        public static implicit operator GUIStyle(string name)
        {
            return new GUIStyle();
        }
    }

    public static class GUILayout
    {
        public static bool Button(string text, params GUILayoutOption[] options)
        {
            return false;
        }

        public static void Label(string text, params GUILayoutOption[] options)
        {
        }

        public static void Label(string text, GUIStyle style, params GUILayoutOption[] options)
        {
        }

        public static bool Toggle(bool value, string text, GUIStyle style, params GUILayoutOption[] options)
        {
            return value;
        }

        public static int Toolbar(int selected, string[] texts, params GUILayoutOption[] options)
        {
            return selected;
        }

        public static GUILayoutOption Width(float width)
        {
            return new GUILayoutOption();
        }

        public static GUILayoutOption ExpandHeight(bool expand)
        {
            return new GUILayoutOption();
        }
    }

    // Unity 2023.1 and later: the package's Awaitable form compiles with UNITY_2023_1_OR_NEWER.
    public class Awaitable
    {
    }

    public class Awaitable<T>
    {
        internal readonly TaskCompletionSource<T> Source = new TaskCompletionSource<T>();

        public Task<T> AsTask()
        {
            return Source.Task;
        }
    }

    public class AwaitableCompletionSource<T>
    {
        private Awaitable<T> awaitable;

        public Awaitable<T> Awaitable
        {
            get
            {
                if (awaitable == null)
                {
                    awaitable = new Awaitable<T>();
                }
                return awaitable;
            }
        }

        public void SetResult(T result)
        {
            Awaitable.Source.SetResult(result);
        }

        public void SetException(Exception error)
        {
            Awaitable.Source.SetException(error);
        }

        public void SetCanceled()
        {
            Awaitable.Source.SetCanceled();
        }
    }
}
