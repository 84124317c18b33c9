// What both MCP transports share: BurilDeadlines (the timeouts of calls in flight), BurilMcp
// (the MCP messages they send and the envelope they read from results) and BurilMessageReader
// (their reader of JSON-RPC messages).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>
    /// The deadlines of a transport's calls in flight: one timer that looks every 20 ms for
    /// calls past theirs (a call times out at most that much late) instead of a timer per call,
    /// which cost more than the rest of a quick call's work on this side. The timer stops after
    /// a second with no call in flight and starts again with the next one.
    /// </summary>
    internal sealed class BurilDeadlines : global::System.IDisposable
    {
        private const int PeriodMilliseconds = 20;

        private readonly global::System.Collections.Concurrent.ConcurrentDictionary<long, Entry> entries =
            new global::System.Collections.Concurrent.ConcurrentDictionary<long, Entry>();
        private readonly object gate = new object();
        private global::System.Threading.Timer timer;
        private long idleSince;
        private bool disposed;

        private sealed class Entry
        {
            internal long At;
            internal global::System.Action<object> Expire;
            internal object State;
        }

        /// <summary>
        /// Calls <paramref name="expire"/> with <paramref name="state"/> once <paramref name="timeout"/>
        /// has passed, unless <see cref="Remove"/> comes first; never for <c>Timeout.InfiniteTimeSpan</c>.
        /// False (and nothing kept) for a timeout of zero or less: it has passed already.
        /// </summary>
        internal bool Add(long key, global::System.TimeSpan timeout, global::System.Action<object> expire, object state)
        {
            if (timeout == global::System.Threading.Timeout.InfiniteTimeSpan)
            {
                return true;
            }
            if (timeout <= global::System.TimeSpan.Zero)
            {
                return false;
            }
            double ticks = timeout.TotalSeconds * global::System.Diagnostics.Stopwatch.Frequency;
            long at = ticks >= long.MaxValue / 2 ? long.MaxValue : global::System.Diagnostics.Stopwatch.GetTimestamp() + (long)ticks;
            entries[key] = new Entry { At = at, Expire = expire, State = state };
            lock (gate)
            {
                // After the entry is in: a sweep that stops the timer meanwhile sees it, or this
                // starts a new one.
                if (timer == null && !disposed)
                {
                    timer = new global::System.Threading.Timer(Sweep, null, PeriodMilliseconds, PeriodMilliseconds);
                }
            }
            return true;
        }

        internal void Remove(long key)
        {
            Entry ignored;
            entries.TryRemove(key, out ignored);
        }

        private void Sweep(object unused)
        {
            long now = global::System.Diagnostics.Stopwatch.GetTimestamp();
            bool any = false;
            foreach (var pair in entries)
            {
                any = true;
                var entry = pair.Value;
                Entry removed;
                if (entry.At <= now && entries.TryRemove(pair.Key, out removed))
                {
                    try
                    {
                        entry.Expire(entry.State);
                    }
                    catch (global::System.ObjectDisposedException)
                    {
                        // The call ended as its deadline passed.
                    }
                }
            }
            if (any)
            {
                idleSince = 0;
                return;
            }
            if (idleSince == 0)
            {
                idleSince = now;
                return;
            }
            if (now - idleSince < global::System.Diagnostics.Stopwatch.Frequency)
            {
                return;
            }
            lock (gate)
            {
                if (timer != null && entries.IsEmpty)
                {
                    timer.Dispose();
                    timer = null;
                    idleSince = 0;
                }
            }
        }

        public void Dispose()
        {
            lock (gate)
            {
                disposed = true;
                if (timer != null)
                {
                    timer.Dispose();
                    timer = null;
                }
            }
        }
    }

    /// <summary>The MCP messages both transports send and the envelope they read from results.</summary>
    internal static class BurilMcp
    {
        /// <summary>The protocol version the transports ask for.</summary>
        internal const string ProtocolVersion = "2025-11-25";

        /// <summary>A task that failed with <paramref name="error"/>.</summary>
        internal static global::System.Threading.Tasks.Task<T> Failed<T>(global::System.Exception error)
        {
            var failed = new global::System.Threading.Tasks.TaskCompletionSource<T>();
            failed.SetException(error);
            return failed.Task;
        }

        /// <summary>
        /// Waits for <paramref name="call"/>'s task. A thread with a synchronization context
        /// (Unity's main thread) starts it on a pool thread, so that no continuation of it is
        /// queued to the thread that waits; any other thread starts it itself.
        /// </summary>
        internal static T Blocking<T>(global::System.Func<global::System.Threading.Tasks.Task<T>> call)
        {
            var task = global::System.Threading.SynchronizationContext.Current == null
                ? call()
                : global::System.Threading.Tasks.Task.Run(call);
            return task.GetAwaiter().GetResult();
        }

        /// <summary>The protocol versions the transports speak, newest first.</summary>
        internal static readonly string[] ProtocolVersions = { "2025-11-25", "2025-06-18", "2025-03-26" };

        /// <summary>The server's metadata hash in a result's <c>_meta</c>, or null.</summary>
        internal static string ServerVersionOf(global::Newtonsoft.Json.Linq.JObject result)
        {
            var meta = result["_meta"] as global::Newtonsoft.Json.Linq.JObject;
            var hash = meta == null ? null : meta["buril/metadata"];
            return hash != null && hash.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)hash : null;
        }

        /// <summary>MCP's tasks extension, declared on every request of a task.</summary>
        internal const string TasksExtension = "io.modelcontextprotocol/tasks";

        /// <summary>The <c>_meta</c> that declares, for one request, that the client follows tasks.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject FollowsTasks()
        {
            var extensions = new global::Newtonsoft.Json.Linq.JObject();
            extensions[TasksExtension] = new global::Newtonsoft.Json.Linq.JObject();
            var capabilities = new global::Newtonsoft.Json.Linq.JObject();
            capabilities["extensions"] = extensions;
            var meta = new global::Newtonsoft.Json.Linq.JObject();
            meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
            return meta;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Request(long id, string method, global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var message = new global::Newtonsoft.Json.Linq.JObject();
            message["jsonrpc"] = "2.0";
            message["id"] = id;
            message["method"] = method;
            message["params"] = parameters ?? new global::Newtonsoft.Json.Linq.JObject();
            return message;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Notification(string method, global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var message = new global::Newtonsoft.Json.Linq.JObject();
            message["jsonrpc"] = "2.0";
            message["method"] = method;
            if (parameters != null)
            {
                message["params"] = parameters;
            }
            return message;
        }

        /// <summary>Checks a protocol version to ask for.</summary>
        internal static string Speaks(string version)
        {
            if (global::System.Array.IndexOf(ProtocolVersions, version) < 0)
            {
                throw new global::System.ArgumentException("the transports speak " + string.Join(", ", ProtocolVersions) + ", not " + version, "version");
            }
            return version;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Initialize(long id, string version)
        {
            var info = new global::Newtonsoft.Json.Linq.JObject();
            info["name"] = "buril-csharp";
            info["version"] = "1";
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["protocolVersion"] = version;
            parameters["capabilities"] = new global::Newtonsoft.Json.Linq.JObject();
            parameters["clientInfo"] = info;
            return Request(id, "initialize", parameters);
        }

        /// <summary>The negotiated protocol version from an <c>initialize</c> answer; throws for one the transports do not speak.</summary>
        internal static string AcceptInitialize(global::Newtonsoft.Json.Linq.JObject response)
        {
            var result = ResultOf(response, "initialize");
            var version = result["protocolVersion"];
            var text = version != null && version.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)version : null;
            if (text == null || global::System.Array.IndexOf(ProtocolVersions, text) < 0)
            {
                throw new BurilTransportException(
                    BurilTransportFailure.Protocol,
                    "the server answered `initialize` with protocol version " + (text ?? "(none)") + "; this transport speaks " + string.Join(", ", ProtocolVersions),
                    null, 0, 0, null);
            }
            return text;
        }

        /// <summary>Tool names and hashes as JSON strings, quoted once each (a binding has a few hundred at most).</summary>
        private static readonly global::System.Collections.Concurrent.ConcurrentDictionary<string, string> quoted =
            new global::System.Collections.Concurrent.ConcurrentDictionary<string, string>();

        private static string Quoted(string text)
        {
            string json;
            if (quoted.TryGetValue(text, out json))
            {
                return json;
            }
            json = global::Newtonsoft.Json.JsonConvert.ToString(text);
            // Bounded: names a caller makes up (`CallAsync("...")`) are quoted but not kept past a limit.
            if (quoted.Count < 4096)
            {
                quoted[text] = json;
            }
            return json;
        }

        /// <summary>The calling thread's builder of lines to send (emptied; one too large is let go).</summary>
        [global::System.ThreadStatic]
        private static global::System.Text.StringBuilder lineBuilder;

        /// <summary>The calling thread's line builder, emptied: a message is built there and written from there, with no string of its own.</summary>
        internal static global::System.Text.StringBuilder LineBuilder()
        {
            var line = lineBuilder;
            if (line == null || line.Capacity > 1 << 16)
            {
                line = lineBuilder = new global::System.Text.StringBuilder(512);
            }
            line.Clear();
            return line;
        }

        /// <summary><paramref name="message"/> and a line feed, in the calling thread's line builder.</summary>
        internal static global::System.Text.StringBuilder Line(string message)
        {
            return LineBuilder().Append(message).Append('\n');
        }

        /// <summary>
        /// The <c>tools/call</c> request and its line feed, in the calling thread's line builder:
        /// the input written by the serializer straight into it (or as the caller's JSON was
        /// given), not parsed and printed again.
        /// </summary>
        internal static global::System.Text.StringBuilder CallLine(long id, BurilCallRequest request, bool wantsProgress)
        {
            var text = LineBuilder();
            if (request.Serialized)
            {
                text.Append("{\"jsonrpc\":\"2.0\",\"id\":").Append(id);
                text.Append(",\"method\":\"tools/call\",\"params\":{\"name\":").Append(Quoted(request.Name));
                text.Append(",\"arguments\":");
                int start = text.Length;
                request.AppendInput(text);
                if (text.Length > start && text[start] == '{')
                {
                    AppendCallMeta(text, id, request, wantsProgress);
                    return text.Append("}}}\n");
                }
            }
            return Line(Text(Call(id, request, wantsProgress)));
        }

        private static void AppendCallMeta(global::System.Text.StringBuilder text, long id, BurilCallRequest request, bool wantsProgress)
        {
            text.Append(",\"_meta\":{");
            bool first = true;
            if (request.MetadataHash != null)
            {
                text.Append("\"buril/metadata\":").Append(Quoted(request.MetadataHash));
                first = false;
            }
            if (request.ToolMetadataHash != null)
            {
                text.Append(first ? "" : ",").Append("\"buril/tool-metadata\":").Append(Quoted(request.ToolMetadataHash));
                first = false;
            }
            if (wantsProgress)
            {
                text.Append(first ? "" : ",").Append("\"progressToken\":").Append(id);
            }
        }

        /// <summary>The <c>tools/call</c> request, as JSON text (no line feed).</summary>
        internal static string CallText(long id, BurilCallRequest request, bool wantsProgress)
        {
            var line = CallLine(id, request, wantsProgress);
            return line.ToString(0, line.Length - 1);
        }

        internal static global::Newtonsoft.Json.Linq.JObject Call(long id, BurilCallRequest request, bool wantsProgress)
        {
            global::Newtonsoft.Json.Linq.JObject arguments;
            try
            {
                arguments = BurilJson.Parse(request.InputJson) as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                throw new global::System.ArgumentException("the input is not JSON: " + error.Message, "request", error);
            }
            if (arguments == null)
            {
                throw new global::System.ArgumentException("the input is not a JSON object", "request");
            }
            var meta = new global::Newtonsoft.Json.Linq.JObject();
            if (request.MetadataHash != null)
            {
                meta["buril/metadata"] = request.MetadataHash;
            }
            if (request.ToolMetadataHash != null)
            {
                meta["buril/tool-metadata"] = request.ToolMetadataHash;
            }
            if (wantsProgress)
            {
                meta["progressToken"] = id;
            }
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["name"] = request.Name;
            parameters["arguments"] = arguments;
            parameters["_meta"] = meta;
            return Request(id, "tools/call", parameters);
        }

        /// <summary>
        /// A token cancelled when <paramref name="timeout"/> has passed: at once for zero or less,
        /// never for <c>Timeout.InfiniteTimeSpan</c>.
        /// </summary>
        internal static global::System.Threading.CancellationTokenSource Timer(global::System.TimeSpan timeout)
        {
            var timer = new global::System.Threading.CancellationTokenSource();
            if (timeout == global::System.Threading.Timeout.InfiniteTimeSpan)
            {
                return timer;
            }
            if (timeout <= global::System.TimeSpan.Zero)
            {
                timer.Cancel();
            }
            else
            {
                timer.CancelAfter(timeout);
            }
            return timer;
        }

        internal static BurilTransportException TimedOut(string what, global::System.TimeSpan timeout, bool sent)
        {
            return new BurilTransportException(
                BurilTransportFailure.Timeout,
                "`" + what + "` got no answer within " + timeout + (sent ? "; the server was told to cancel it" : "; it was not sent"),
                null, 0, 0, null);
        }

        internal static global::Newtonsoft.Json.Linq.JObject Cancelled(long id, string reason)
        {
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["requestId"] = id;
            parameters["reason"] = reason;
            return Notification("notifications/cancelled", parameters);
        }

        internal static string Text(global::Newtonsoft.Json.Linq.JToken message)
        {
            return message.ToString(global::Newtonsoft.Json.Formatting.None);
        }

        /// <summary>The id of an answer (a response to a request of ours), or null for anything else.</summary>
        internal static long? AnswerId(global::Newtonsoft.Json.Linq.JObject message)
        {
            if (message["method"] != null)
            {
                return null;
            }
            var id = message["id"];
            if (id == null || id.Type != global::Newtonsoft.Json.Linq.JTokenType.Integer)
            {
                return null;
            }
            return (long)id;
        }

        /// <summary>A progress notification's token and report, or false for any other message.</summary>
        internal static bool TryProgress(global::Newtonsoft.Json.Linq.JObject message, out long token, out BurilProgress progress)
        {
            token = 0;
            progress = null;
            var method = message["method"];
            var parameters = message["params"] as global::Newtonsoft.Json.Linq.JObject;
            if (method == null || (string)method != "notifications/progress" || parameters == null)
            {
                return false;
            }
            var key = parameters["progressToken"];
            var value = parameters["progress"];
            if (key == null || key.Type != global::Newtonsoft.Json.Linq.JTokenType.Integer || value == null)
            {
                return false;
            }
            token = (long)key;
            var total = parameters["total"];
            var text = parameters["message"];
            progress = new BurilProgress(
                (double)value,
                total == null || total.Type == global::Newtonsoft.Json.Linq.JTokenType.Null ? (double?)null : (double)total,
                text == null || text.Type != global::Newtonsoft.Json.Linq.JTokenType.String ? null : (string)text);
            return true;
        }

        /// <summary>A response's result; a JSON-RPC error or a missing result throws.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject ResultOf(global::Newtonsoft.Json.Linq.JObject response, string method)
        {
            var error = response["error"] as global::Newtonsoft.Json.Linq.JObject;
            if (error != null)
            {
                var code = error["code"];
                var message = error["message"];
                var data = error["data"];
                var words = message == null ? Text(error) : (string)message;
                if (data != null && data.Type != global::Newtonsoft.Json.Linq.JTokenType.Null)
                {
                    words += " (" + Text(data) + ")";
                }
                throw new BurilTransportException(
                    BurilTransportFailure.RpcError,
                    "the server refused `" + method + "` with JSON-RPC error " + (code == null ? "?" : Text(code)),
                    words,
                    0,
                    code != null && code.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer ? (int)code : 0,
                    null);
            }
            var result = response["result"] as global::Newtonsoft.Json.Linq.JObject;
            if (result == null)
            {
                throw new BurilTransportException(BurilTransportFailure.Protocol, "the answer to `" + method + "` has no result object", Text(response), 0, 0, null);
            }
            return result;
        }

        /// <summary>
        /// The envelope of a <c>tools/call</c> answer: <c>_meta["buril/envelope"]</c>, or else
        /// rebuilt from <c>structuredContent</c> (or the text content) and <c>isError</c>; and
        /// the server's metadata hash from <c>_meta["buril/metadata"]</c>.
        /// </summary>
        internal static string Envelope(global::Newtonsoft.Json.Linq.JObject response, out string serverVersion)
        {
            return Text(EnvelopeObject(response, out serverVersion));
        }

        /// <summary>The envelope of a <c>tools/call</c> answer, as <see cref="Envelope"/> says, parsed.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject EnvelopeObject(global::Newtonsoft.Json.Linq.JObject response, out string serverVersion)
        {
            serverVersion = null;
            // An unknown (or disabled) tool is JSON-RPC -32602 over MCP: the `not_found`
            // envelope, as `tools call` answers it, so that every transport throws the same.
            var error = response["error"] as global::Newtonsoft.Json.Linq.JObject;
            var code = error == null ? null : error["code"];
            if (code != null && code.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer && (long)code == -32602)
            {
                var message = error["message"];
                var notFound = new global::Newtonsoft.Json.Linq.JObject();
                notFound["ok"] = false;
                notFound["type"] = "not_found";
                notFound["error"] = message == null ? Text(error) : (string)message;
                return notFound;
            }
            var result = ResultOf(response, "tools/call");
            var meta = result["_meta"] as global::Newtonsoft.Json.Linq.JObject;
            if (meta != null)
            {
                var hash = meta["buril/metadata"];
                if (hash != null && hash.Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                {
                    serverVersion = (string)hash;
                }
                var whole = meta["buril/envelope"] as global::Newtonsoft.Json.Linq.JObject;
                if (whole != null)
                {
                    return whole;
                }
            }
            var isError = result["isError"];
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            if (isError != null && isError.Type == global::Newtonsoft.Json.Linq.JTokenType.Boolean && (bool)isError)
            {
                envelope["ok"] = false;
                // A server other than buril's says no more than its text: a failure of the tool's own.
                envelope["type"] = FromOtherServer ? "tool" : "runtime";
                envelope["error"] = ContentText(result);
                return envelope;
            }
            envelope["ok"] = true;
            var kind = meta == null ? null : meta["buril/result"];
            var rendered = kind != null && kind.Type == global::Newtonsoft.Json.Linq.JTokenType.String
                && ((string)kind == "content" || (string)kind == "rich");
            var blocks = rendered ? Materialized(result, "content") as global::Newtonsoft.Json.Linq.JArray : null;
            if (blocks != null)
            {
                envelope["data"] = ContentData(blocks, (string)kind == "rich", meta);
                if (meta["buril/warnings"] is global::Newtonsoft.Json.Linq.JArray)
                {
                    envelope["warnings"] = Detach(meta, "buril/warnings");
                }
                return envelope;
            }
            // Taken out of the answer, not copied (Newtonsoft copies a token that has a parent).
            var data = Detach(result, "structuredContent");
            var foreignBlocks = data == null && FromOtherServer ? Materialized(result, "content") as global::Newtonsoft.Json.Linq.JArray : null;
            if (foreignBlocks != null)
            {
                // Another server's content blocks, as buril's hub answers them: the data is {content}.
                var blocksOnly = new global::Newtonsoft.Json.Linq.JObject();
                blocksOnly["content"] = Detach(result, "content");
                envelope["data"] = blocksOnly;
                return envelope;
            }
            if (data == null)
            {
                var text = ContentText(result);
                try
                {
                    data = BurilJson.Parse(text);
                }
                catch (global::Newtonsoft.Json.JsonException)
                {
                    data = text;
                }
            }
            envelope["data"] = data;
            if (meta != null && meta["buril/warnings"] is global::Newtonsoft.Json.Linq.JArray)
            {
                envelope["warnings"] = Detach(meta, "buril/warnings");
            }
            return envelope;
        }

        /// <summary>
        /// Whether these bindings are for another MCP server than buril's (<c>codegen
        /// --from-server</c>): its answers are read as buril's hub reads them (content blocks as
        /// <c>{content}</c>, <c>isError</c> as a <c>tool</c> failure).
        /// </summary>
        private static readonly bool FromOtherServer = false;

        /// <summary>
        /// The data of a tool that returns content blocks: <c>{"content": [...]}</c>, the
        /// result's blocks before its warnings; for a rich tool <c>{"structured": …, "content":
        /// [...]}</c>, the structured data being the JSON of the first text block.
        /// </summary>
        private static global::Newtonsoft.Json.Linq.JObject ContentData(global::Newtonsoft.Json.Linq.JArray content, bool rich, global::Newtonsoft.Json.Linq.JObject meta)
        {
            var warnings = meta["buril/warnings"] as global::Newtonsoft.Json.Linq.JArray;
            var count = content.Count - (warnings == null ? 0 : warnings.Count);
            var items = new global::System.Collections.Generic.List<global::Newtonsoft.Json.Linq.JToken>(content);
            // Out of the answer first, so that they are moved rather than copied.
            content.Clear();
            var data = new global::Newtonsoft.Json.Linq.JObject();
            var blocks = new global::Newtonsoft.Json.Linq.JArray();
            var start = 0;
            if (rich)
            {
                global::Newtonsoft.Json.Linq.JToken structured = global::Newtonsoft.Json.Linq.JValue.CreateNull();
                var first = count > 0 ? items[0] as global::Newtonsoft.Json.Linq.JObject : null;
                var text = first == null ? null : first["text"];
                if (text != null && text.Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                {
                    try
                    {
                        structured = BurilJson.Parse((string)text);
                    }
                    catch (global::Newtonsoft.Json.JsonException)
                    {
                        structured = text;
                    }
                }
                data["structured"] = structured;
                start = 1;
            }
            for (var i = start; i < count; i++)
            {
                blocks.Add(items[i]);
            }
            data["content"] = blocks;
            return data;
        }

        /// <summary>The value of <paramref name="key"/> in <paramref name="container"/>, parsed in place if <see cref="ParseMessage"/> kept it as text.</summary>
        internal static global::Newtonsoft.Json.Linq.JToken Materialized(global::Newtonsoft.Json.Linq.JObject container, string key)
        {
            var property = container.Property(key);
            if (property == null)
            {
                return null;
            }
            var raw = property.Value as global::Newtonsoft.Json.Linq.JRaw;
            if (raw != null && raw.Value is string)
            {
                property.Value = BurilJson.Parse((string)raw.Value);
            }
            return property.Value;
        }

        /// <summary>A result as a caller of a request sees it: nothing kept as text.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject Materialized(global::Newtonsoft.Json.Linq.JObject result)
        {
            Materialized(result, "content");
            Materialized(result, "structuredContent");
            return result;
        }

        /// <summary>The value of <paramref name="key"/>, taken out of <paramref name="container"/> (null there now), or null.</summary>
        private static global::Newtonsoft.Json.Linq.JToken Detach(global::Newtonsoft.Json.Linq.JObject container, string key)
        {
            var property = container.Property(key);
            if (property == null)
            {
                return null;
            }
            var value = property.Value;
            property.Value = global::Newtonsoft.Json.Linq.JValue.CreateNull();
            return value;
        }

        private static string ContentText(global::Newtonsoft.Json.Linq.JObject result)
        {
            var parts = new global::System.Collections.Generic.List<string>();
            var content = Materialized(result, "content") as global::Newtonsoft.Json.Linq.JArray;
            if (content != null)
            {
                foreach (var item in content)
                {
                    var block = item as global::Newtonsoft.Json.Linq.JObject;
                    if (block != null && block["text"] != null && block["text"].Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                    {
                        parts.Add((string)block["text"]);
                    }
                }
            }
            return string.Join("\n", parts.ToArray());
        }

        /// <summary>
        /// Parses one message; anything but a JSON object is a protocol error. A result's
        /// <c>content</c> and <c>structuredContent</c> are kept as their JSON text (a
        /// <c>JRaw</c>, parsed in place by <c>Materialized</c> when needed): a call's answer
        /// carries its data twice, and its typed output is read from the text. The message is
        /// read by <see cref="BurilMessageReader"/>, and by Newtonsoft.Json's parser when that
        /// declines it.
        /// </summary>
        internal static global::Newtonsoft.Json.Linq.JObject ParseMessage(string text, string where)
        {
            global::Newtonsoft.Json.Linq.JObject message = null;
            try
            {
                message = BurilMessageReader.Read(text) ?? BurilJson.Parse(text) as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::Newtonsoft.Json.JsonException)
            {
            }
            if (message == null)
            {
                throw new BurilTransportException(BurilTransportFailure.Protocol, where + " is not a JSON-RPC message", text, 0, 0, null);
            }
            return message;
        }
    }

    /// <summary>
    /// The transports' reader of a JSON-RPC message: strict JSON (RFC 8259), read into the
    /// tokens Newtonsoft.Json's parser makes of it with <c>DateParseHandling.None</c> and
    /// <c>FloatParseHandling.Double</c>, except that a result's <c>content</c> array and
    /// <c>structuredContent</c> object are kept as their text (a <c>JRaw</c>). It declines
    /// (null) what it does not read exactly so: anything that is not strict JSON, an integer
    /// beyond 64 bits, a number a double cannot hold, a duplicate member, an escaped surrogate,
    /// nesting deeper than 64; <see cref="BurilMcp.ParseMessage"/> then gives the text to
    /// Newtonsoft.Json's parser, which decides. Under Mono, Newtonsoft.Json's reader takes about
    /// 20 ns a character, this one a few: most of a small call's time on the client side.
    /// </summary>
    internal static class BurilMessageReader
    {
        private const int MaxDepth = 64;

        /// <summary>Where an object is: the message, its <c>result</c>, or anywhere else.</summary>
        private enum Place
        {
            Message,
            Result,
            Other,
        }

        /// <summary>The message in <paramref name="text"/>, or null when this reader declines it.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject Read(string text)
        {
            int at = Space(text, 0);
            if (at >= text.Length || text[at] != '{')
            {
                return null;
            }
            var message = ReadObject(text, ref at, 0, Place.Message);
            return message != null && Space(text, at) == text.Length ? message : null;
        }

        /// <summary>The object at <paramref name="at"/> (its <c>{</c>); <paramref name="at"/> ends past it.</summary>
        private static global::Newtonsoft.Json.Linq.JObject ReadObject(string text, ref int at, int depth, Place place)
        {
            if (depth >= MaxDepth)
            {
                return null;
            }
            var members = new global::Newtonsoft.Json.Linq.JObject();
            at = Space(text, at + 1);
            if (at < text.Length && text[at] == '}')
            {
                at++;
                return members;
            }
            while (true)
            {
                var name = ReadString(text, ref at);
                if (name == null)
                {
                    return null;
                }
                if (!Colon(text, ref at) || at >= text.Length || members.Property(name) != null)
                {
                    return null;
                }
                char first = text[at];
                global::Newtonsoft.Json.Linq.JToken value;
                if (place == Place.Message && first == '{' && name == "result")
                {
                    value = ReadObject(text, ref at, depth + 1, Place.Result);
                }
                else if (place == Place.Result
                    && ((first == '[' && name == "content") || (first == '{' && name == "structuredContent")))
                {
                    int start = at;
                    value = Skip(text, ref at, depth + 1) ? new global::Newtonsoft.Json.Linq.JRaw(text.Substring(start, at - start)) : null;
                }
                else
                {
                    value = ReadValue(text, ref at, depth + 1);
                }
                if (value == null)
                {
                    return null;
                }
                members.Add(name, value);
                var closed = After(text, ref at, '}');
                if (closed != false)
                {
                    return closed == true ? members : null;
                }
            }
        }

        private static global::Newtonsoft.Json.Linq.JArray ReadArray(string text, ref int at, int depth)
        {
            if (depth >= MaxDepth)
            {
                return null;
            }
            var items = new global::Newtonsoft.Json.Linq.JArray();
            at = Space(text, at + 1);
            if (at < text.Length && text[at] == ']')
            {
                at++;
                return items;
            }
            while (true)
            {
                var item = ReadValue(text, ref at, depth + 1);
                if (item == null)
                {
                    return null;
                }
                items.Add(item);
                var closed = After(text, ref at, ']');
                if (closed != false)
                {
                    return closed == true ? items : null;
                }
            }
        }

        /// <summary>The value at <paramref name="at"/> (no space before it), or null.</summary>
        private static global::Newtonsoft.Json.Linq.JToken ReadValue(string text, ref int at, int depth)
        {
            if (at >= text.Length)
            {
                return null;
            }
            switch (text[at])
            {
                case '{':
                    return ReadObject(text, ref at, depth, Place.Other);
                case '[':
                    return ReadArray(text, ref at, depth);
                case '"':
                    var value = ReadString(text, ref at);
                    return value == null ? null : new global::Newtonsoft.Json.Linq.JValue(value);
                case 't':
                    return Literal(text, ref at, "true") ? new global::Newtonsoft.Json.Linq.JValue(true) : null;
                case 'f':
                    return Literal(text, ref at, "false") ? new global::Newtonsoft.Json.Linq.JValue(false) : null;
                case 'n':
                    return Literal(text, ref at, "null") ? global::Newtonsoft.Json.Linq.JValue.CreateNull() : null;
                default:
                    return ReadNumber(text, ref at);
            }
        }

        /// <summary>Past the value at <paramref name="at"/>, checked as <see cref="ReadValue"/> checks it, making nothing.</summary>
        private static bool Skip(string text, ref int at, int depth)
        {
            if (at >= text.Length || depth >= MaxDepth)
            {
                return false;
            }
            char open = text[at];
            switch (open)
            {
                case '{':
                case '[':
                    char close = open == '{' ? '}' : ']';
                    at = Space(text, at + 1);
                    if (at < text.Length && text[at] == close)
                    {
                        at++;
                        return true;
                    }
                    while (true)
                    {
                        if (open == '{')
                        {
                            // Duplicate names are not looked for here: the text is read again by
                            // Newtonsoft.Json's parser or serializer, which decides.
                            if (!SkipString(text, ref at) || !Colon(text, ref at))
                            {
                                return false;
                            }
                        }
                        if (!Skip(text, ref at, depth + 1))
                        {
                            return false;
                        }
                        var closed = After(text, ref at, close);
                        if (closed != false)
                        {
                            return closed == true;
                        }
                    }
                case '"':
                    return SkipString(text, ref at);
                case 't':
                    return Literal(text, ref at, "true");
                case 'f':
                    return Literal(text, ref at, "false");
                case 'n':
                    return Literal(text, ref at, "null");
                default:
                    // Any number: the text is read again by Newtonsoft.Json, which reads what
                    // ReadNumber declines (an integer beyond 64 bits, say).
                    bool floating;
                    int end = NumberEnd(text, at, out floating);
                    if (end == at)
                    {
                        return false;
                    }
                    at = end;
                    return true;
            }
        }

        /// <summary>Past the <c>:</c> after a member's name and the space around it; false when there is none.</summary>
        private static bool Colon(string text, ref int at)
        {
            at = Space(text, at);
            if (at >= text.Length || text[at] != ':')
            {
                return false;
            }
            at = Space(text, at + 1);
            return true;
        }

        /// <summary>
        /// After a member or an item: past the <c>,</c> and the space before the next one
        /// (false), or past <paramref name="close"/>, which ends the container (true); null when
        /// neither comes.
        /// </summary>
        private static bool? After(string text, ref int at, char close)
        {
            at = Space(text, at);
            if (at >= text.Length)
            {
                return null;
            }
            if (text[at] == close)
            {
                at++;
                return true;
            }
            if (text[at] != ',')
            {
                return null;
            }
            at = Space(text, at + 1);
            return false;
        }

        private static int Space(string text, int at)
        {
            while (at < text.Length)
            {
                char c = text[at];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                {
                    break;
                }
                at++;
            }
            return at;
        }

        private static bool Literal(string text, ref int at, string word)
        {
            if (string.CompareOrdinal(text, at, word, 0, word.Length) != 0)
            {
                return false;
            }
            at += word.Length;
            return true;
        }

        /// <summary>The string at <paramref name="at"/> (its opening quote), unescaped; null if it is not one this reader reads.</summary>
        private static string ReadString(string text, ref int at)
        {
            if (at >= text.Length || text[at] != '"')
            {
                return null;
            }
            int start = at + 1;
            for (int i = start; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return text.Substring(start, i - start);
                }
                if (c == '\\')
                {
                    return ReadEscaped(text, ref at, start, i);
                }
                if (c < ' ')
                {
                    return null;
                }
            }
            return null;
        }

        /// <summary>The rest of a string from its first escape, at <paramref name="escape"/>.</summary>
        private static string ReadEscaped(string text, ref int at, int start, int escape)
        {
            var value = new global::System.Text.StringBuilder(text, start, escape - start, escape - start + 16);
            for (int i = escape; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return value.ToString();
                }
                if (c < ' ')
                {
                    return null;
                }
                if (c != '\\')
                {
                    value.Append(c);
                    continue;
                }
                if (++i >= text.Length)
                {
                    return null;
                }
                if (text[i] == 'u')
                {
                    int code = Hex(text, i + 1);
                    // An escaped surrogate (half of a pair, or alone) is left to Newtonsoft.Json.
                    if (code < 0 || (code >= 0xD800 && code <= 0xDFFF))
                    {
                        return null;
                    }
                    value.Append((char)code);
                    i += 4;
                    continue;
                }
                char plain = Unescaped(text[i]);
                if (plain == '\0')
                {
                    return null;
                }
                value.Append(plain);
            }
            return null;
        }

        /// <summary>The character a one-letter escape (<c>\n</c>, say) stands for, or <c>'\0'</c> for no such escape.</summary>
        private static char Unescaped(char escape)
        {
            switch (escape)
            {
                case '"': return '"';
                case '\\': return '\\';
                case '/': return '/';
                case 'b': return '\b';
                case 'f': return '\f';
                case 'n': return '\n';
                case 'r': return '\r';
                case 't': return '\t';
                default: return '\0';
            }
        }

        private static bool SkipString(string text, ref int at)
        {
            if (at >= text.Length || text[at] != '"')
            {
                return false;
            }
            for (int i = at + 1; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return true;
                }
                if (c < ' ')
                {
                    return false;
                }
                if (c == '\\')
                {
                    if (++i >= text.Length)
                    {
                        return false;
                    }
                    char e = text[i];
                    if (e == 'u')
                    {
                        if (Hex(text, i + 1) < 0)
                        {
                            return false;
                        }
                        i += 4;
                    }
                    else if (Unescaped(e) == '\0')
                    {
                        return false;
                    }
                }
            }
            return false;
        }

        /// <summary>The four hex digits at <paramref name="at"/> as a number, or -1.</summary>
        private static int Hex(string text, int at)
        {
            if (at + 4 > text.Length)
            {
                return -1;
            }
            int code = 0;
            for (int i = at; i < at + 4; i++)
            {
                char c = text[i];
                int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                    : -1;
                if (digit < 0)
                {
                    return -1;
                }
                code = (code << 4) | digit;
            }
            return code;
        }

        /// <summary>
        /// The end of the JSON number at <paramref name="at"/> (<paramref name="at"/> itself when
        /// there is none): <c>-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?</c>.
        /// </summary>
        private static int NumberEnd(string text, int at, out bool floating)
        {
            floating = false;
            int i = at;
            if (i < text.Length && text[i] == '-')
            {
                i++;
            }
            if (i >= text.Length || text[i] < '0' || text[i] > '9')
            {
                return at;
            }
            if (text[i] == '0')
            {
                i++;
            }
            else
            {
                i = Digits(text, i);
            }
            if (i < text.Length && text[i] == '.')
            {
                floating = true;
                int fraction = Digits(text, i + 1);
                if (fraction == i + 1)
                {
                    return at;
                }
                i = fraction;
            }
            if (i < text.Length && (text[i] == 'e' || text[i] == 'E'))
            {
                floating = true;
                i++;
                if (i < text.Length && (text[i] == '+' || text[i] == '-'))
                {
                    i++;
                }
                int exponent = Digits(text, i);
                if (exponent == i)
                {
                    return at;
                }
                i = exponent;
            }
            return i;
        }

        private static int Digits(string text, int at)
        {
            while (at < text.Length && text[at] >= '0' && text[at] <= '9')
            {
                at++;
            }
            return at;
        }

        /// <summary>The number at <paramref name="at"/>: a 64-bit integer or a finite double, as Newtonsoft.Json reads them; null for anything else.</summary>
        private static global::Newtonsoft.Json.Linq.JValue ReadNumber(string text, ref int at)
        {
            bool floating;
            int end = NumberEnd(text, at, out floating);
            if (end == at)
            {
                return null;
            }
            var number = text.Substring(at, end - at);
            global::Newtonsoft.Json.Linq.JValue value = null;
            if (floating)
            {
                double real;
                if (double.TryParse(number, global::System.Globalization.NumberStyles.Float, global::System.Globalization.CultureInfo.InvariantCulture, out real)
                    && !double.IsInfinity(real))
                {
                    value = new global::Newtonsoft.Json.Linq.JValue(real);
                }
            }
            else
            {
                long integer;
                if (long.TryParse(number, global::System.Globalization.NumberStyles.AllowLeadingSign, global::System.Globalization.CultureInfo.InvariantCulture, out integer))
                {
                    value = new global::Newtonsoft.Json.Linq.JValue(integer);
                }
            }
            if (value != null)
            {
                at = end;
            }
            return value;
        }
    }
}
