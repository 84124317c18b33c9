// BurilConnection: the client a Unity editor keeps to its tool server through domain reloads;
// BurilSettings, where it finds the server (Project Settings > Buril); the Awaitable and UniTask
// forms of the client's tasks.
// A piece of Buril.Unity.cs, in a Unity package only (it uses UnityEditor).

namespace Buril.Generated
{
    /// <summary>How <see cref="BurilConnection"/> reaches the server.</summary>
    public enum BurilConnectionMode
    {
        /// <summary>
        /// Over Streamable HTTP to a server started outside Unity (<c>tools serve --http
        /// 127.0.0.1:8765</c>): nothing to start or stop, and a reload costs no restart. The
        /// default.
        /// </summary>
        Http = 0,

        /// <summary>
        /// Over Streamable HTTP to a server the editor starts on first use and keeps through
        /// reloads (its process id is kept in <c>SessionState</c>), stopped when the editor quits.
        /// </summary>
        HttpStartedByEditor = 1,

        /// <summary>
        /// Over the standard input and output of a server the editor starts; a domain reload
        /// ends it (its input is closed) and the next call starts another.
        /// </summary>
        Stdio = 2,
    }

    /// <summary>
    /// Where the server is: kept in <c>ProjectSettings/BurilSettings.json</c> (commit it with
    /// the project), edited under <i>Project Settings &gt; Buril</i>. The executable path must be
    /// absolute: a Unity started from the Hub on macOS has no shell <c>PATH</c>.
    /// </summary>
    [global::System.Serializable]
    public sealed class BurilSettings
    {
        /// <summary>The settings file, relative to the project folder.</summary>
        public const string File = "ProjectSettings/BurilSettings.json";

        /// <summary>How the server is reached.</summary>
        public BurilConnectionMode Mode = BurilConnectionMode.Http;

        /// <summary>The server's endpoint for <see cref="BurilConnectionMode.Http"/>.</summary>
        public string Url = "http://127.0.0.1:8765/mcp";

        /// <summary>The program with the tools (absolute), for the modes that start it.</summary>
        public string Executable = "";

        /// <summary>
        /// Its arguments before the transport's own: for <see cref="BurilConnectionMode.Stdio"/>
        /// the whole command line (<c>serve</c>); for
        /// <see cref="BurilConnectionMode.HttpStartedByEditor"/> what comes before
        /// <c>--http 127.0.0.1:PORT --exit-with-parent</c> (<c>serve</c>; the server ends with
        /// the editor even when the editor crashes, on Linux and macOS).
        /// </summary>
        public string Arguments = "serve";

        /// <summary>The loopback port of a server the editor starts for HTTP.</summary>
        public int Port = 8765;

        /// <summary>Where a started server runs (empty: the project folder).</summary>
        public string WorkingDirectory = "";

        /// <summary>How long a call may take when it sets no timeout, in seconds.</summary>
        public int TimeoutSeconds = 60;

        /// <summary>
        /// The server's config file, relative to its working folder: which tools are on and the
        /// timeouts (<c>.buril/server.toml</c>, which <c>serve</c> reads unless given
        /// <c>--config</c>). <see cref="BurilServerSettings"/> reads and changes it.
        /// </summary>
        public string ServerConfig = ".buril/server.toml";

        /// <summary>The settings in <paramref name="projectFolder"/>, or the defaults when it has none.</summary>
        /// <param name="projectFolder">The project's folder (the parent of <c>Assets</c>).</param>
        /// <returns>The settings.</returns>
        public static BurilSettings Load(string projectFolder)
        {
            var path = global::System.IO.Path.Combine(projectFolder, File);
            if (!global::System.IO.File.Exists(path))
            {
                return new BurilSettings();
            }
            try
            {
                return global::Newtonsoft.Json.JsonConvert.DeserializeObject<BurilSettings>(global::System.IO.File.ReadAllText(path)) ?? new BurilSettings();
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                global::UnityEngine.Debug.LogWarning("Buril: " + path + " could not be read (" + error.Message + "); using the defaults");
                return new BurilSettings();
            }
        }

        /// <summary>Writes the settings into <paramref name="projectFolder"/>.</summary>
        /// <param name="projectFolder">The project's folder.</param>
        public void Save(string projectFolder)
        {
            var path = global::System.IO.Path.Combine(projectFolder, File);
            global::System.IO.Directory.CreateDirectory(global::System.IO.Path.GetDirectoryName(path));
            global::System.IO.File.WriteAllText(path, global::Newtonsoft.Json.JsonConvert.SerializeObject(this, global::Newtonsoft.Json.Formatting.Indented));
        }

        /// <summary>The working folder of a started server.</summary>
        internal string Folder(string projectFolder)
        {
            return string.IsNullOrEmpty(WorkingDirectory) ? projectFolder : WorkingDirectory;
        }
    }

    /// <summary>
    /// The editor's client of the tool server, which lives through domain reloads: made on first
    /// use of <see cref="Client"/> from <see cref="BurilSettings"/>, released before each reload
    /// without waiting on anything (the HTTP connections let go, a stdio server's input closed),
    /// and made again on first use after it. A server the editor started is remembered in
    /// <c>SessionState</c> by its process id and start time: reused after a reload (HTTP),
    /// or made sure to have exited and stopped if not (stdio), so that none is left running or
    /// started twice; and stopped when the editor quits.
    /// </summary>
    /// <remarks>
    /// Keep a task's id, not its handle, across a reload (<c>SessionState.SetString</c>), and
    /// follow it again with <see cref="BurilClient.ResumeTaskAsync{TOutput}"/>.
    /// </remarks>
    [global::UnityEditor.InitializeOnLoad]
    public static class BurilConnection
    {
        private const string ServerKey = "Buril.Connection.Server";
        private const string StdioKey = "Buril.Connection.Stdio";
        private const string SessionKey = "Buril.Connection.Session";

        private static readonly object Gate = new object();
        private static BurilClient client;
        private static BurilSettings settings;

        static BurilConnection()
        {
            global::UnityEditor.AssemblyReloadEvents.beforeAssemblyReload += Release;
            global::UnityEditor.EditorApplication.quitting += Quit;
            // A stdio server of the domain before this one was told to exit: make sure it did.
            StopRemembered(StdioKey, global::System.TimeSpan.FromMilliseconds(500));
        }

        /// <summary>The project's folder (the parent of <c>Assets</c>).</summary>
        public static string ProjectFolder
        {
            get { return global::System.IO.Path.GetDirectoryName(global::UnityEngine.Application.dataPath); }
        }

        /// <summary>The settings in use (read from <see cref="BurilSettings.File"/> on first use).</summary>
        public static BurilSettings Settings
        {
            get
            {
                lock (Gate)
                {
                    if (settings == null)
                    {
                        settings = BurilSettings.Load(ProjectFolder);
                    }
                    return settings;
                }
            }
        }

        /// <summary>The client, made (and the server started, in the modes that start it) on first use.</summary>
        /// <exception cref="BurilTransportException">The server could not be started or reached.</exception>
        public static BurilClient Client
        {
            get
            {
                lock (Gate)
                {
                    if (client == null)
                    {
                        client = Connect(Settings);
                    }
                    return client;
                }
            }
        }

        /// <summary>How long the latest release before a reload took (it waits on nothing: well under 100 ms).</summary>
        public static global::System.TimeSpan LastRelease { get; private set; }

        /// <summary>Lets the client go and reads the settings again; the next use of <see cref="Client"/> connects anew.</summary>
        public static void Reconnect()
        {
            Release();
            lock (Gate)
            {
                settings = null;
            }
        }

        /// <summary>
        /// Lets the client go without waiting on the server: what happens before each domain
        /// reload. A stdio server's input is closed (it exits) and its id remembered, so that
        /// the next domain makes sure it is gone; a server started for HTTP keeps running for
        /// the next domain to reuse.
        /// </summary>
        public static void Release()
        {
            var watch = global::System.Diagnostics.Stopwatch.StartNew();
            BurilClient released;
            lock (Gate)
            {
                released = client;
                client = null;
            }
            if (released != null)
            {
                var process = released.Transport as BurilProcessTransport;
                var http = released.Transport as BurilHttpTransport;
                if (process != null)
                {
                    var id = process.Release();
                    if (id > 0)
                    {
                        Remember(StdioKey, id);
                    }
                }
                else if (http != null)
                {
                    // The session goes on: the next domain continues it, and its tasks.
                    var id = http.SessionId;
                    var version = http.ProtocolVersion;
                    http.Release();
                    if (id != null && version != null)
                    {
                        global::UnityEditor.SessionState.SetString(SessionKey, http.Endpoint + " " + id + " " + version);
                    }
                }
                else
                {
                    var disposable = released.Transport as global::System.IDisposable;
                    if (disposable != null)
                    {
                        disposable.Dispose();
                    }
                }
            }
            LastRelease = watch.Elapsed;
        }

        /// <summary>The editor quits: the client goes, and every server it started stops.</summary>
        private static void Quit()
        {
            Release();
            StopRemembered(StdioKey, global::System.TimeSpan.FromMilliseconds(500));
            StopRemembered(ServerKey, global::System.TimeSpan.Zero);
        }

        private static BurilClient Connect(BurilSettings settings)
        {
            var timeout = global::System.TimeSpan.FromSeconds(global::System.Math.Max(1, settings.TimeoutSeconds));
            switch (settings.Mode)
            {
                case BurilConnectionMode.Stdio:
                {
                    StopRemembered(StdioKey, global::System.TimeSpan.FromMilliseconds(500));
                    var transport = new BurilProcessTransport(Executable(settings), settings.Arguments, settings.Folder(ProjectFolder));
                    transport.Timeout = timeout;
                    return new BurilClient(transport);
                }
                case BurilConnectionMode.HttpStartedByEditor:
                {
                    var url = "http://127.0.0.1:" + settings.Port + "/mcp";
                    if (Remembered(ServerKey) == null)
                    {
                        StartServer(settings);
                    }
                    return new BurilClient(Http(url, timeout));
                }
                default:
                    return new BurilClient(Http(settings.Url, timeout));
            }
        }

        /// <summary>A transport to <paramref name="url"/>, continuing the session of the domain before this one when it was to the same endpoint.</summary>
        private static BurilHttpTransport Http(string url, global::System.TimeSpan timeout)
        {
            var transport = new BurilHttpTransport(url);
            transport.Timeout = timeout;
            var kept = global::UnityEditor.SessionState.GetString(SessionKey, "").Split(' ');
            global::UnityEditor.SessionState.EraseString(SessionKey);
            if (kept.Length == 3 && kept[0] == transport.Endpoint.ToString())
            {
                transport.ResumeSession(kept[1], kept[2]);
            }
            return transport;
        }

        private static string Executable(BurilSettings settings)
        {
            if (string.IsNullOrEmpty(settings.Executable) || !global::System.IO.Path.IsPathRooted(settings.Executable))
            {
                throw new BurilTransportException(BurilTransportFailure.Process, "Buril: set the tool server's absolute path under Project Settings > Buril (now \"" + settings.Executable + "\"); a Unity started from the Hub has no shell PATH to find it on", null, 0, 0, null);
            }
            return settings.Executable;
        }

        /// <summary>Starts the server for HTTP and waits (up to 10 s) until its port answers.</summary>
        private static void StartServer(BurilSettings settings)
        {
            var start = new global::System.Diagnostics.ProcessStartInfo(
                Executable(settings),
                (settings.Arguments ?? "serve") + " --http 127.0.0.1:" + settings.Port + " --exit-with-parent")
            {
                UseShellExecute = false,
                CreateNoWindow = true,
                WorkingDirectory = settings.Folder(ProjectFolder),
            };
            global::System.Diagnostics.Process process;
            try
            {
                process = global::System.Diagnostics.Process.Start(start);
            }
            catch (global::System.Exception error)
            {
                throw new BurilTransportException(BurilTransportFailure.Process, "Buril: " + settings.Executable + " could not be started: " + error.Message, null, 0, 0, error);
            }
            Remember(ServerKey, process.Id);
            var until = global::System.DateTime.UtcNow.AddSeconds(10);
            while (global::System.DateTime.UtcNow < until)
            {
                if (process.HasExited)
                {
                    Forget(ServerKey);
                    throw new BurilTransportException(BurilTransportFailure.Process, "Buril: the server exited at once (code " + process.ExitCode + "); is port " + settings.Port + " taken?", null, 0, 0, null);
                }
                try
                {
                    using (var socket = new global::System.Net.Sockets.TcpClient())
                    {
                        socket.Connect("127.0.0.1", settings.Port);
                        return;
                    }
                }
                catch (global::System.Net.Sockets.SocketException)
                {
                    global::System.Threading.Thread.Sleep(50);
                }
            }
            throw new BurilTransportException(BurilTransportFailure.Connection, "Buril: the server did not listen on port " + settings.Port + " within 10 s", null, 0, 0, null);
        }

        /// <summary>Keeps process <paramref name="id"/> under <paramref name="key"/>, with its start time (against a reused id).</summary>
        private static void Remember(string key, int id)
        {
            string started = StartTime(id);
            if (started != null)
            {
                global::UnityEditor.SessionState.SetString(key, id + " " + started);
            }
        }

        private static void Forget(string key)
        {
            global::UnityEditor.SessionState.EraseString(key);
        }

        /// <summary>The process kept under <paramref name="key"/>, when it still runs.</summary>
        private static global::System.Diagnostics.Process Remembered(string key)
        {
            var kept = global::UnityEditor.SessionState.GetString(key, "");
            var space = kept.IndexOf(' ');
            int id;
            if (space < 0 || !int.TryParse(kept.Substring(0, space), out id))
            {
                return null;
            }
            if (StartTime(id) != kept.Substring(space + 1))
            {
                Forget(key);
                return null;
            }
            try
            {
                return global::System.Diagnostics.Process.GetProcessById(id);
            }
            catch (global::System.ArgumentException)
            {
                Forget(key);
                return null;
            }
        }

        /// <summary>Stops the process kept under <paramref name="key"/>: waits up to <paramref name="grace"/> for it to exit, then kills it.</summary>
        private static void StopRemembered(string key, global::System.TimeSpan grace)
        {
            var process = Remembered(key);
            Forget(key);
            if (process == null)
            {
                return;
            }
            try
            {
                if (!process.WaitForExit((int)grace.TotalMilliseconds))
                {
                    process.Kill();
                    process.WaitForExit(2000);
                }
            }
            catch (global::System.Exception)
            {
                // Gone already.
            }
        }

        /// <summary>When process <paramref name="id"/> started, as text, or null when it is not running.</summary>
        private static string StartTime(int id)
        {
            try
            {
                using (var process = global::System.Diagnostics.Process.GetProcessById(id))
                {
                    return process.HasExited ? null : process.StartTime.ToUniversalTime().Ticks.ToString(global::System.Globalization.CultureInfo.InvariantCulture);
                }
            }
            catch (global::System.Exception)
            {
                return null;
            }
        }
    }

    /// <summary>The settings page, <i>Project Settings &gt; Buril</i>.</summary>
    internal static class BurilSettingsPage
    {
        [global::UnityEditor.SettingsProvider]
        private static global::UnityEditor.SettingsProvider Create()
        {
            var page = new global::UnityEditor.SettingsProvider("Project/Buril", global::UnityEditor.SettingsScope.Project);
            page.label = "Buril";
            page.guiHandler = search => Draw();
            return page;
        }

        private static void Draw()
        {
            var settings = BurilConnection.Settings;
            global::UnityEditor.EditorGUI.BeginChangeCheck();
            settings.Mode = (BurilConnectionMode)global::UnityEditor.EditorGUILayout.EnumPopup("Connection", settings.Mode);
            switch (settings.Mode)
            {
                case BurilConnectionMode.Http:
                    settings.Url = global::UnityEditor.EditorGUILayout.TextField("Server URL", settings.Url);
                    settings.Executable = global::UnityEditor.EditorGUILayout.TextField("Executable (for its settings)", settings.Executable);
                    settings.WorkingDirectory = global::UnityEditor.EditorGUILayout.TextField("Server's folder", settings.WorkingDirectory);
                    break;
                case BurilConnectionMode.HttpStartedByEditor:
                    settings.Executable = global::UnityEditor.EditorGUILayout.TextField("Executable (absolute)", settings.Executable);
                    settings.Arguments = global::UnityEditor.EditorGUILayout.TextField("Arguments", settings.Arguments);
                    settings.Port = global::UnityEditor.EditorGUILayout.IntField("Port", settings.Port);
                    settings.WorkingDirectory = global::UnityEditor.EditorGUILayout.TextField("Working folder", settings.WorkingDirectory);
                    break;
                default:
                    settings.Executable = global::UnityEditor.EditorGUILayout.TextField("Executable (absolute)", settings.Executable);
                    settings.Arguments = global::UnityEditor.EditorGUILayout.TextField("Arguments", settings.Arguments);
                    settings.WorkingDirectory = global::UnityEditor.EditorGUILayout.TextField("Working folder", settings.WorkingDirectory);
                    break;
            }
            settings.TimeoutSeconds = global::UnityEditor.EditorGUILayout.IntField("Call timeout (s)", settings.TimeoutSeconds);
            settings.ServerConfig = global::UnityEditor.EditorGUILayout.TextField("Server's config file", settings.ServerConfig);
            if (global::UnityEditor.EditorGUI.EndChangeCheck())
            {
                settings.Save(BurilConnection.ProjectFolder);
            }
            if (global::UnityEngine.GUILayout.Button("Reconnect"))
            {
                BurilConnection.Reconnect();
            }
        }
    }

#if UNITY_2023_1_OR_NEWER
    /// <summary>The client's tasks as Unity's <c>Awaitable</c> (Unity 2023.1 and later).</summary>
    public static class BurilAwaitables
    {
        /// <summary>
        /// <paramref name="task"/> as an <c>Awaitable</c> that ends on the
        /// <c>SynchronizationContext</c> this was called on (the main thread, called there):
        /// <c>var scenes = await client.SceneListAsync(null).AsAwaitable();</c>.
        /// </summary>
        public static global::UnityEngine.Awaitable<T> AsAwaitable<T>(this global::System.Threading.Tasks.Task<T> task)
        {
            var source = new global::UnityEngine.AwaitableCompletionSource<T>();
            var caller = global::System.Threading.SynchronizationContext.Current;
            task.ContinueWith(
                done => BurilCallbacks.Post(caller, () =>
                {
                    if (done.IsFaulted)
                    {
                        source.SetException(done.Exception.InnerException);
                    }
                    else if (done.IsCanceled)
                    {
                        source.SetCanceled();
                    }
                    else
                    {
                        source.SetResult(done.Result);
                    }
                }),
                global::System.Threading.Tasks.TaskContinuationOptions.ExecuteSynchronously);
            return source.Awaitable;
        }
    }
#endif

#if BURIL_UNITASK
    /// <summary>The client's tasks as UniTask (when <c>com.cysharp.unitask</c> is in the project).</summary>
    public static class BurilUniTasks
    {
        /// <summary><paramref name="task"/> as a <c>UniTask</c>.</summary>
        public static global::Cysharp.Threading.Tasks.UniTask<T> AsUniTask<T>(this global::System.Threading.Tasks.Task<T> task)
        {
            return global::Cysharp.Threading.Tasks.UniTaskExtensions.AsUniTask(task, true);
        }
    }
#endif
}
