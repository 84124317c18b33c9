// The editor's own tools: BurilEditorHost finds every ITool in the loaded assemblies, runs
// each call on the editor's main thread (from EditorApplication.update) unless the class is
// [OffThread], and serves them to buril as an MCP server on loopback (Streamable HTTP, JSON
// responses, a bearer token), announced in Library/Buril/editor.json. It stops before each
// domain reload, answering what it holds, and starts again in the next domain.
// A piece of Buril.Unity.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>What <see cref="BurilEditorHost.Start(BurilEditorHostOptions)"/> starts with.</summary>
    public sealed class BurilEditorHostOptions
    {
        /// <summary>The options of a host for the project in <paramref name="projectFolder"/>.</summary>
        /// <param name="projectFolder">The project's folder (the parent of <c>Assets</c>).</param>
        public BurilEditorHostOptions(string projectFolder)
        {
            ProjectFolder = projectFolder;
            CallTimeout = global::System.TimeSpan.FromSeconds(60);
            ReloadGrace = global::System.TimeSpan.FromSeconds(5);
        }

        /// <summary>The project's folder: the endpoint file is its <c>Library/Buril/editor.json</c>.</summary>
        public string ProjectFolder { get; set; }

        /// <summary>The loopback port to listen on; 0 (the default) takes a free one, kept for the editor's session.</summary>
        public int Port { get; set; }

        /// <summary>How long a call may take when its caller gives no timeout (60 s).</summary>
        public global::System.TimeSpan CallTimeout { get; set; }

        /// <summary>How long a reload waits for the calls in flight to be answered (5 s).</summary>
        public global::System.TimeSpan ReloadGrace { get; set; }

        /// <summary>The endpoint file buril reads: where the host listens, with its token.</summary>
        public string EndpointFile
        {
            get { return global::System.IO.Path.Combine(global::System.IO.Path.Combine(ProjectFolder, "Library"), global::System.IO.Path.Combine("Buril", "editor.json")); }
        }
    }

    /// <summary>One tool the host serves: an <see cref="ITool"/> found in the loaded assemblies.</summary>
    public sealed class BurilHostedTool
    {
        internal BurilHostedTool(ITool tool, global::Newtonsoft.Json.Linq.JObject inputSchema, global::Newtonsoft.Json.Linq.JObject outputSchema)
        {
            Tool = tool;
            Name = tool.Name;
            Description = tool.Description ?? "";
            InputSchema = inputSchema;
            OutputSchema = outputSchema;
            OffThread = tool.GetType().IsDefined(typeof(OffThreadAttribute), true);
            var declared = tool as IBurilDeclaredTool;
            MetadataHash = declared == null ? null : declared.MetadataHash;
        }

        /// <summary>The instance calls run on.</summary>
        public ITool Tool { get; private set; }

        /// <summary>The wire name.</summary>
        public string Name { get; private set; }

        /// <summary>The description.</summary>
        public string Description { get; private set; }

        /// <summary>The JSON Schema of the input.</summary>
        public global::Newtonsoft.Json.Linq.JObject InputSchema { get; private set; }

        /// <summary>The JSON Schema of the output: the declaration's, or null for a hand-written tool.</summary>
        public global::Newtonsoft.Json.Linq.JObject OutputSchema { get; private set; }

        /// <summary>Whether the class is <c>[OffThread]</c>: its calls run off the main thread.</summary>
        public bool OffThread { get; private set; }

        /// <summary>The hash of the Rust declaration the class was generated from, or null for a tool written in C# alone.</summary>
        public string MetadataHash { get; private set; }
    }

    /// <summary>
    /// Serves the editor's <see cref="ITool"/>s to buril. In the editor it starts by itself
    /// (<c>[InitializeOnLoad]</c>) and pumps its main-thread calls from
    /// <c>EditorApplication.update</c>; elsewhere (a console program, tests) one call starts it,
    /// <see cref="Start(BurilEditorHostOptions)"/>, and whatever raises
    /// <c>EditorApplication.update</c> on the thread that stands for the main one, or calls
    /// <see cref="Pump"/>, runs them.
    /// </summary>
    /// <remarks>
    /// The host listens on <c>http://127.0.0.1:PORT/mcp</c> for MCP's Streamable HTTP (JSON
    /// responses, no session), refuses any request without its bearer token or with a
    /// non-loopback <c>Host</c> or <c>Origin</c>, and writes the address and token to
    /// <see cref="BurilEditorHostOptions.EndpointFile"/>, where buril finds them. Before a domain
    /// reload it writes that it is reloading, answers the main-thread calls that have not
    /// started with a JSON-RPC error that says they did not run (buril sends them again once the
    /// next domain serves), waits for the calls that did start to be answered, and stops; the
    /// next domain keeps the port and the token.
    /// </remarks>
    [global::UnityEditor.InitializeOnLoad]
    public static class BurilEditorHost
    {
        /// <summary>The JSON-RPC error code of a call that did not run because the editor is reloading its scripts.</summary>
        public const int ReloadingCode = -32050;

        private const string PortKey = "Buril.EditorHost.Port";
        private const string TokenKey = "Buril.EditorHost.Token";
        private const string GenerationKey = "Buril.EditorHost.Generation";

        private static readonly object Gate = new object();
        private static readonly global::System.Collections.Generic.Queue<MainCall> MainQueue = new global::System.Collections.Generic.Queue<MainCall>();
        private static BurilEditorHostOptions options;
        private static global::System.Net.HttpListener listener;
        private static global::System.Threading.Thread accepting;
        private static global::System.Collections.Generic.Dictionary<string, BurilHostedTool> tools = new global::System.Collections.Generic.Dictionary<string, BurilHostedTool>();
        private static global::System.Collections.Generic.List<string> refused = new global::System.Collections.Generic.List<string>();
        private static string token;
        private static string url;
        private static int generation;
        private static int inFlight;
        private static int mainThreadId = -1;
        private static bool stopping;

        static BurilEditorHost()
        {
            global::UnityEditor.EditorApplication.update += Pump;
            global::UnityEditor.AssemblyReloadEvents.beforeAssemblyReload += BeforeReload;
            global::UnityEditor.EditorApplication.quitting += Stop;
            if (global::System.Environment.GetEnvironmentVariable("BURIL_EDITOR_HOST") != "off")
            {
                try
                {
                    Start();
                }
                catch (global::System.Exception error)
                {
                    global::UnityEngine.Debug.LogWarning("buril: the editor's tools are not served: " + error.Message);
                }
            }
        }

        /// <summary>The tools served now, by name.</summary>
        public static global::System.Collections.Generic.IList<BurilHostedTool> Tools
        {
            get
            {
                lock (Gate)
                {
                    var list = new global::System.Collections.Generic.List<BurilHostedTool>(tools.Values);
                    list.Sort((a, b) => string.CompareOrdinal(a.Name, b.Name));
                    return list.AsReadOnly();
                }
            }
        }

        /// <summary>Why each <see cref="ITool"/> class found but not served was left out (a duplicate name, a schema that is not JSON, no constructor without parameters).</summary>
        public static global::System.Collections.Generic.IList<string> Refused
        {
            get
            {
                lock (Gate)
                {
                    return refused.AsReadOnly();
                }
            }
        }

        /// <summary>Where the host listens (<c>http://127.0.0.1:PORT/mcp</c>), or null when it does not.</summary>
        public static string Url
        {
            get
            {
                lock (Gate)
                {
                    return url;
                }
            }
        }

        /// <summary>Starts the host for the project of <see cref="BurilConnection.ProjectFolder"/>, if it is not serving.</summary>
        public static void Start()
        {
            Start(new BurilEditorHostOptions(BurilConnection.ProjectFolder));
        }

        /// <summary>
        /// Starts the host: finds the tools, listens on loopback and writes the endpoint file.
        /// The thread that calls it is the main thread from then on: the one whose
        /// <see cref="Pump"/> runs the main-thread calls. Does nothing if it is serving.
        /// </summary>
        /// <param name="with">Where the project is, the port, the timeouts.</param>
        public static void Start(BurilEditorHostOptions with)
        {
            if (with == null)
            {
                throw new global::System.ArgumentNullException("with");
            }
            lock (Gate)
            {
                if (listener != null)
                {
                    return;
                }
                options = with;
                stopping = false;
                mainThreadId = global::System.Threading.Thread.CurrentThread.ManagedThreadId;
                Discover();
                token = global::UnityEditor.SessionState.GetString(TokenKey, "");
                if (token.Length == 0)
                {
                    token = NewToken();
                    global::UnityEditor.SessionState.SetString(TokenKey, token);
                }
                var port = with.Port != 0 ? with.Port : global::UnityEditor.SessionState.GetInt(PortKey, 0);
                listener = Listen(ref port);
                global::UnityEditor.SessionState.SetInt(PortKey, port);
                generation = global::UnityEditor.SessionState.GetInt(GenerationKey, 0) + 1;
                global::UnityEditor.SessionState.SetInt(GenerationKey, generation);
                url = "http://127.0.0.1:" + port + "/mcp";
                accepting = new global::System.Threading.Thread(Accept) { IsBackground = true, Name = "buril editor host" };
                accepting.Start(listener);
                WriteEndpoint("ready");
            }
        }

        /// <summary>Stops serving and removes the endpoint file: what the editor does when it quits.</summary>
        public static void Stop()
        {
            Shutdown("stopped");
        }

        /// <summary>
        /// Runs the main-thread calls that are waiting, in order; called from
        /// <c>EditorApplication.update</c>. A call whose caller stopped waiting (its timeout
        /// passed before it started) is skipped.
        /// </summary>
        public static void Pump()
        {
            while (true)
            {
                MainCall call;
                lock (Gate)
                {
                    if (MainQueue.Count == 0)
                    {
                        return;
                    }
                    call = MainQueue.Dequeue();
                }
                call.RunHere();
            }
        }

        /// <summary>
        /// Runs <paramref name="tool"/> on <paramref name="input"/> as the host does, on this
        /// thread, and answers the envelope: its value as <c>data</c>, a
        /// <see cref="ToolValidationException"/> as <c>validation</c>, any other exception
        /// (and a null return) as <c>runtime</c>. An envelope the tool returns itself (the
        /// generated classes do) is answered as it is.
        /// </summary>
        /// <param name="tool">The tool.</param>
        /// <param name="input">Its input (null reads as <c>{}</c>).</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject Invoke(ITool tool, global::Newtonsoft.Json.Linq.JObject input)
        {
            object value;
            try
            {
                value = tool.Run(input ?? new global::Newtonsoft.Json.Linq.JObject());
            }
            catch (ToolValidationException error)
            {
                return BurilJson.Failure("validation", error.Error, error.Problems);
            }
            catch (global::System.Exception error)
            {
                var inner = error is global::System.Reflection.TargetInvocationException && error.InnerException != null ? error.InnerException : error;
                return BurilJson.Failure("runtime", inner.GetType().Name + ": " + inner.Message, null);
            }
            if (value == null)
            {
                return BurilJson.Failure("runtime", "the tool `" + tool.Name + "` returned null; a tool returns a value, or throws ToolValidationException or another exception to fail", null);
            }
            var envelope = value as global::Newtonsoft.Json.Linq.JObject;
            if (envelope != null && IsEnvelope(envelope))
            {
                return envelope;
            }
            try
            {
                return BurilJson.Success(value);
            }
            catch (global::System.Exception error)
            {
                return BurilJson.Failure("runtime", "the value `" + tool.Name + "` returned cannot be written as JSON: " + error.Message, null);
            }
        }

        private static bool IsEnvelope(global::Newtonsoft.Json.Linq.JObject value)
        {
            var ok = value["ok"];
            if (ok == null || ok.Type != global::Newtonsoft.Json.Linq.JTokenType.Boolean)
            {
                return false;
            }
            return (bool)ok ? value["data"] != null : value["type"] != null && value["error"] != null;
        }

        private static void Discover()
        {
            var found = new global::System.Collections.Generic.Dictionary<string, BurilHostedTool>();
            var left = new global::System.Collections.Generic.List<string>();
            foreach (var assembly in global::System.AppDomain.CurrentDomain.GetAssemblies())
            {
                global::System.Type[] types;
                try
                {
                    types = assembly.GetTypes();
                }
                catch (global::System.Reflection.ReflectionTypeLoadException partly)
                {
                    types = partly.Types;
                }
                catch (global::System.Exception)
                {
                    continue;
                }
                foreach (var type in types)
                {
                    if (type == null || type.IsAbstract || type.IsInterface || type.ContainsGenericParameters || !typeof(ITool).IsAssignableFrom(type))
                    {
                        continue;
                    }
                    if (type.GetConstructor(global::System.Type.EmptyTypes) == null)
                    {
                        left.Add(type.FullName + ": no public constructor without parameters");
                        continue;
                    }
                    BurilHostedTool hosted;
                    try
                    {
                        var tool = (ITool)global::System.Activator.CreateInstance(type);
                        hosted = new BurilHostedTool(tool, SchemaOf(tool.InputSchemaJson, "input"), OutputSchemaOf(tool));
                    }
                    catch (global::System.Exception error)
                    {
                        var inner = error.InnerException ?? error;
                        left.Add(type.FullName + ": " + inner.Message);
                        continue;
                    }
                    if (string.IsNullOrEmpty(hosted.Name))
                    {
                        left.Add(type.FullName + ": no name");
                    }
                    else if (found.ContainsKey(hosted.Name))
                    {
                        left.Add(type.FullName + ": the name `" + hosted.Name + "` is " + found[hosted.Name].Tool.GetType().FullName + "'s already");
                    }
                    else
                    {
                        found.Add(hosted.Name, hosted);
                    }
                }
            }
            tools = found;
            refused = left;
        }

        private static global::Newtonsoft.Json.Linq.JObject SchemaOf(string json, string what)
        {
            if (string.IsNullOrEmpty(json))
            {
                return new global::Newtonsoft.Json.Linq.JObject(new global::Newtonsoft.Json.Linq.JProperty("type", "object"));
            }
            var schema = BurilJson.Parse(json) as global::Newtonsoft.Json.Linq.JObject;
            if (schema == null)
            {
                throw new global::System.FormatException("its " + what + " schema is not a JSON object");
            }
            return schema;
        }

        private static global::Newtonsoft.Json.Linq.JObject OutputSchemaOf(ITool tool)
        {
            var property = tool.GetType().GetProperty("OutputSchemaJson");
            if (property == null || property.PropertyType != typeof(string))
            {
                return null;
            }
            return SchemaOf((string)property.GetValue(tool, null), "output");
        }

        private static string NewToken()
        {
            var bytes = new byte[32];
            using (var random = global::System.Security.Cryptography.RandomNumberGenerator.Create())
            {
                random.GetBytes(bytes);
            }
            var text = new global::System.Text.StringBuilder(64);
            foreach (var b in bytes)
            {
                text.Append(b.ToString("x2"));
            }
            return text.ToString();
        }

        private static global::System.Net.HttpListener Listen(ref int port)
        {
            if (port != 0)
            {
                var kept = TryListen(port);
                if (kept != null)
                {
                    return kept;
                }
            }
            for (var attempt = 0; attempt < 10; attempt++)
            {
                var probe = new global::System.Net.Sockets.TcpListener(global::System.Net.IPAddress.Loopback, 0);
                probe.Start();
                var free = ((global::System.Net.IPEndPoint)probe.LocalEndpoint).Port;
                probe.Stop();
                var started = TryListen(free);
                if (started != null)
                {
                    port = free;
                    return started;
                }
            }
            throw new global::System.InvalidOperationException("no loopback port could be listened on");
        }

        private static global::System.Net.HttpListener TryListen(int port)
        {
            var candidate = new global::System.Net.HttpListener();
            candidate.Prefixes.Add("http://127.0.0.1:" + port + "/");
            try
            {
                candidate.Start();
                return candidate;
            }
            catch (global::System.Exception)
            {
                candidate.Close();
                return null;
            }
        }

        private static void WriteEndpoint(string state)
        {
            var file = options.EndpointFile;
            var endpoint = new global::Newtonsoft.Json.Linq.JObject
            {
                { "url", url },
                { "token", token },
                { "pid", global::System.Diagnostics.Process.GetCurrentProcess().Id },
                { "generation", generation },
                { "state", state },
                { "tools", tools.Count },
            };
            global::System.IO.Directory.CreateDirectory(global::System.IO.Path.GetDirectoryName(file));
            var temporary = file + ".tmp";
            global::System.IO.File.WriteAllText(temporary, endpoint.ToString(global::Newtonsoft.Json.Formatting.Indented));
            if (global::System.IO.File.Exists(file))
            {
                global::System.IO.File.Delete(file);
            }
            global::System.IO.File.Move(temporary, file);
        }

        private static void BeforeReload()
        {
            Shutdown("reloading");
        }

        private static void Shutdown(string state)
        {
            global::System.Net.HttpListener closing;
            MainCall[] unstarted;
            lock (Gate)
            {
                if (listener == null)
                {
                    return;
                }
                stopping = true;
                closing = listener;
                listener = null;
                unstarted = MainQueue.ToArray();
                MainQueue.Clear();
                // Reloading, the address stays: the next domain listens there again.
                if (state == "reloading")
                {
                    WriteEndpoint(state);
                }
                else if (global::System.IO.File.Exists(options.EndpointFile))
                {
                    global::System.IO.File.Delete(options.EndpointFile);
                }
                url = null;
            }
            foreach (var call in unstarted)
            {
                call.NotRun("the editor is reloading its scripts; the call did not run");
            }
            // The calls that started are answered before the domain goes.
            var until = global::System.DateTime.UtcNow + options.ReloadGrace;
            while (global::System.Threading.Volatile.Read(ref inFlight) > 0 && global::System.DateTime.UtcNow < until)
            {
                global::System.Threading.Thread.Sleep(5);
            }
            closing.Close();
        }

        private static void Accept(object state)
        {
            var from = (global::System.Net.HttpListener)state;
            while (true)
            {
                global::System.Net.HttpListenerContext context;
                try
                {
                    context = from.GetContext();
                }
                catch (global::System.Exception)
                {
                    return;
                }
                global::System.Threading.ThreadPool.QueueUserWorkItem(Serve, context);
            }
        }

        private static void Serve(object state)
        {
            var context = (global::System.Net.HttpListenerContext)state;
            global::System.Threading.Interlocked.Increment(ref inFlight);
            try
            {
                Answer(context);
            }
            catch (global::System.Exception)
            {
                try
                {
                    context.Response.Abort();
                }
                catch (global::System.Exception)
                {
                }
            }
            finally
            {
                global::System.Threading.Interlocked.Decrement(ref inFlight);
            }
        }

        private static void Answer(global::System.Net.HttpListenerContext context)
        {
            var request = context.Request;
            var response = context.Response;
            if (!IsLoopback(request.Headers["Host"], false) || !IsLoopback(request.Headers["Origin"], true))
            {
                Reply(response, 403, null);
                return;
            }
            if (!Authorized(request.Headers["Authorization"]))
            {
                response.AddHeader("WWW-Authenticate", "Bearer");
                Reply(response, 401, null);
                return;
            }
            if (request.Url.AbsolutePath != "/mcp")
            {
                Reply(response, 404, null);
                return;
            }
            if (request.HttpMethod != "POST")
            {
                // No stream of the server's own messages, and no session to end.
                response.AddHeader("Allow", "POST");
                Reply(response, 405, null);
                return;
            }
            string body;
            using (var reader = new global::System.IO.StreamReader(request.InputStream, new global::System.Text.UTF8Encoding(false)))
            {
                body = reader.ReadToEnd();
            }
            global::Newtonsoft.Json.Linq.JObject message;
            try
            {
                message = BurilJson.Parse(body) as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::System.Exception)
            {
                message = null;
            }
            if (message == null)
            {
                Reply(response, 400, RpcError(null, -32700, "the body is not one JSON-RPC message"));
                return;
            }
            var id = message["id"];
            var method = (string)message["method"];
            if (id == null)
            {
                // A notification or a response: nothing to answer.
                Reply(response, 202, null);
                return;
            }
            var parameters = message["params"] as global::Newtonsoft.Json.Linq.JObject ?? new global::Newtonsoft.Json.Linq.JObject();
            switch (method)
            {
                case "initialize":
                    Reply(response, 200, RpcResult(id, Initialized(parameters)));
                    return;
                case "ping":
                    Reply(response, 200, RpcResult(id, new global::Newtonsoft.Json.Linq.JObject()));
                    return;
                case "tools/list":
                    Reply(response, 200, RpcResult(id, Listing()));
                    return;
                case "tools/call":
                    Reply(response, 200, Call(id, parameters));
                    return;
                default:
                    Reply(response, 200, RpcError(id, -32601, "the editor's host has no method `" + method + "`"));
                    return;
            }
        }

        private static bool IsLoopback(string header, bool optional)
        {
            if (string.IsNullOrEmpty(header))
            {
                return optional;
            }
            var host = header;
            var scheme = host.IndexOf("://", global::System.StringComparison.Ordinal);
            if (scheme >= 0)
            {
                host = host.Substring(scheme + 3);
            }
            var colon = host.LastIndexOf(':');
            if (colon >= 0 && !host.EndsWith("]", global::System.StringComparison.Ordinal))
            {
                host = host.Substring(0, colon);
            }
            return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
        }

        private static bool Authorized(string header)
        {
            string expected;
            lock (Gate)
            {
                expected = "Bearer " + token;
            }
            if (header == null || header.Length != expected.Length)
            {
                return false;
            }
            var difference = 0;
            for (var i = 0; i < expected.Length; i++)
            {
                difference |= header[i] ^ expected[i];
            }
            return difference == 0;
        }

        private static global::Newtonsoft.Json.Linq.JObject Initialized(global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var asked = (string)parameters["protocolVersion"];
            var known = new[] { "2025-11-25", "2025-06-18", "2025-03-26" };
            var version = global::System.Array.IndexOf(known, asked) >= 0 ? asked : known[0];
            return new global::Newtonsoft.Json.Linq.JObject
            {
                { "protocolVersion", version },
                { "capabilities", new global::Newtonsoft.Json.Linq.JObject { { "tools", new global::Newtonsoft.Json.Linq.JObject { { "listChanged", false } } } } },
                { "serverInfo", new global::Newtonsoft.Json.Linq.JObject { { "name", "buril-editor-host" }, { "version", "1" } } },
                { "instructions", "The tools of the Unity editor that wrote " + options.EndpointFile + "." },
            };
        }

        private static global::Newtonsoft.Json.Linq.JObject Listing()
        {
            var list = new global::Newtonsoft.Json.Linq.JArray();
            foreach (var tool in Tools)
            {
                var meta = new global::Newtonsoft.Json.Linq.JObject
                {
                    { "buril/threading", tool.OffThread ? "off_thread" : "main" },
                    { "buril/class", tool.Tool.GetType().FullName },
                };
                if (tool.MetadataHash != null)
                {
                    meta.Add("buril/tool-metadata", tool.MetadataHash);
                }
                var entry = new global::Newtonsoft.Json.Linq.JObject
                {
                    { "name", tool.Name },
                    { "description", tool.Description },
                    { "inputSchema", tool.InputSchema },
                    { "_meta", meta },
                };
                // A hand-written tool's value is its own: an object, or anything as `{"value": ...}`.
                entry.Add("outputSchema", tool.OutputSchema ?? new global::Newtonsoft.Json.Linq.JObject { { "type", "object" } });
                list.Add(entry);
            }
            return new global::Newtonsoft.Json.Linq.JObject { { "tools", list } };
        }

        private static global::Newtonsoft.Json.Linq.JObject Call(global::Newtonsoft.Json.Linq.JToken id, global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var name = (string)parameters["name"];
            var input = parameters["arguments"] as global::Newtonsoft.Json.Linq.JObject ?? new global::Newtonsoft.Json.Linq.JObject();
            BurilHostedTool tool;
            global::System.TimeSpan timeout;
            lock (Gate)
            {
                tools.TryGetValue(name ?? "", out tool);
                timeout = options.CallTimeout;
            }
            var meta = parameters["_meta"] as global::Newtonsoft.Json.Linq.JObject;
            var asked = meta == null ? null : meta["buril/timeout-ms"];
            if (asked != null && (asked.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer || asked.Type == global::Newtonsoft.Json.Linq.JTokenType.Float))
            {
                timeout = global::System.TimeSpan.FromMilliseconds(global::System.Math.Max(1.0, (double)asked));
            }
            if (tool == null)
            {
                return RpcResult(id, ToResult(BurilJson.Failure("not_found", "the editor has no tool `" + name + "`", null), null));
            }
            if (tool.OffThread)
            {
                var work = new global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject>(() => Invoke(tool.Tool, input), global::System.Threading.Tasks.TaskCreationOptions.LongRunning);
                work.Start();
                if (!work.Wait(timeout))
                {
                    return RpcResult(id, ToResult(TimedOut(tool, timeout, "is still running off the main thread"), tool));
                }
                return RpcResult(id, ToResult(work.Result, tool));
            }
            var call = new MainCall(tool, input);
            lock (Gate)
            {
                if (stopping)
                {
                    return RpcError(id, ReloadingCode, "the editor is reloading its scripts; the call did not run");
                }
                MainQueue.Enqueue(call);
            }
            if (global::System.Threading.Thread.CurrentThread.ManagedThreadId == mainThreadId)
            {
                Pump();
            }
            var outcome = call.Wait(timeout);
            if (outcome.NotRun != null)
            {
                return RpcError(id, ReloadingCode, outcome.NotRun);
            }
            if (outcome.Envelope == null)
            {
                return RpcResult(id, ToResult(TimedOut(tool, timeout, outcome.Started ? "is still running on the main thread" : "did not start: the main thread was busy"), tool));
            }
            return RpcResult(id, ToResult(outcome.Envelope, tool));
        }

        private static global::Newtonsoft.Json.Linq.JObject TimedOut(BurilHostedTool tool, global::System.TimeSpan timeout, string why)
        {
            return BurilJson.Failure("timeout", "`" + tool.Name + "` " + why + " after " + timeout.TotalSeconds.ToString("0.0", global::System.Globalization.CultureInfo.InvariantCulture) + " s", null);
        }

        /// <summary>The envelope as MCP's <c>CallToolResult</c>: the data as structured content and text, a failure as <c>isError</c> with the envelope in <c>_meta["buril/envelope"]</c>.</summary>
        private static global::Newtonsoft.Json.Linq.JObject ToResult(global::Newtonsoft.Json.Linq.JObject envelope, BurilHostedTool tool)
        {
            var text = new global::Newtonsoft.Json.Linq.JObject { { "type", "text" } };
            var content = new global::Newtonsoft.Json.Linq.JArray { text };
            if ((bool)envelope["ok"])
            {
                var data = envelope["data"];
                var structured = data as global::Newtonsoft.Json.Linq.JObject;
                if (structured == null && (tool == null || tool.OutputSchema == null))
                {
                    structured = new global::Newtonsoft.Json.Linq.JObject { { "value", data } };
                }
                text.Add("text", (structured ?? data).ToString(global::Newtonsoft.Json.Formatting.None));
                var result = new global::Newtonsoft.Json.Linq.JObject { { "content", content }, { "isError", false } };
                if (structured != null)
                {
                    result.Add("structuredContent", structured);
                }
                return result;
            }
            text.Add("text", (string)envelope["error"] ?? "");
            return new global::Newtonsoft.Json.Linq.JObject
            {
                { "content", content },
                { "isError", true },
                { "_meta", new global::Newtonsoft.Json.Linq.JObject { { "buril/envelope", envelope } } },
            };
        }

        private static global::Newtonsoft.Json.Linq.JObject RpcResult(global::Newtonsoft.Json.Linq.JToken id, global::Newtonsoft.Json.Linq.JObject result)
        {
            return new global::Newtonsoft.Json.Linq.JObject { { "jsonrpc", "2.0" }, { "id", id }, { "result", result } };
        }

        private static global::Newtonsoft.Json.Linq.JObject RpcError(global::Newtonsoft.Json.Linq.JToken id, int code, string message)
        {
            return new global::Newtonsoft.Json.Linq.JObject
            {
                { "jsonrpc", "2.0" },
                { "id", id },
                { "error", new global::Newtonsoft.Json.Linq.JObject { { "code", code }, { "message", message } } },
            };
        }

        private static void Reply(global::System.Net.HttpListenerResponse response, int status, global::Newtonsoft.Json.Linq.JObject body)
        {
            response.StatusCode = status;
            if (body == null)
            {
                response.ContentLength64 = 0;
                response.OutputStream.Close();
                return;
            }
            var bytes = new global::System.Text.UTF8Encoding(false).GetBytes(body.ToString(global::Newtonsoft.Json.Formatting.None));
            response.ContentType = "application/json";
            response.ContentLength64 = bytes.Length;
            response.OutputStream.Write(bytes, 0, bytes.Length);
            response.OutputStream.Close();
        }

        /// <summary>What a main-thread call came to: its envelope, or why it did not run, or neither yet (its timeout passed).</summary>
        private struct MainOutcome
        {
            public global::Newtonsoft.Json.Linq.JObject Envelope;
            public string NotRun;
            public bool Started;
        }

        /// <summary>A call waiting for the main thread, and its waiter.</summary>
        private sealed class MainCall
        {
            private readonly BurilHostedTool tool;
            private readonly global::Newtonsoft.Json.Linq.JObject input;
            private readonly global::System.Threading.ManualResetEventSlim done = new global::System.Threading.ManualResetEventSlim(false);
            private readonly object gate = new object();
            private MainOutcome outcome;
            private bool abandoned;

            public MainCall(BurilHostedTool tool, global::Newtonsoft.Json.Linq.JObject input)
            {
                this.tool = tool;
                this.input = input;
            }

            /// <summary>Runs the call on this (the main) thread, unless its waiter gave up first.</summary>
            public void RunHere()
            {
                lock (gate)
                {
                    if (abandoned)
                    {
                        return;
                    }
                    outcome.Started = true;
                }
                var envelope = Invoke(tool.Tool, input);
                lock (gate)
                {
                    outcome.Envelope = envelope;
                }
                done.Set();
            }

            /// <summary>Answers the waiter that the call did not run, and why.</summary>
            public void NotRun(string why)
            {
                lock (gate)
                {
                    outcome.NotRun = why;
                }
                done.Set();
            }

            /// <summary>Waits at most <paramref name="timeout"/>; a call not started by then never starts.</summary>
            public MainOutcome Wait(global::System.TimeSpan timeout)
            {
                done.Wait(timeout);
                lock (gate)
                {
                    if (outcome.Envelope == null && outcome.NotRun == null)
                    {
                        abandoned = true;
                    }
                    return outcome;
                }
            }
        }
    }
}
