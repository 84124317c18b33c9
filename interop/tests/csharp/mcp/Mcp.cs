// Drives the committed C# bindings' BurilClient over a real MCP transport to the real `tools`
// binary: `Mcp.exe stdio TOOLS` (BurilProcessTransport, `tools serve`) or `Mcp.exe http URL`
// (BurilHttpTransport, `tools serve --http`). Prints one JSON object of what it saw.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.McpTest
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length < 2 && !(args.Length == 1 && args[0] == "fake"))
            {
                Console.Error.WriteLine("usage: Mcp.exe stdio TOOLS | Mcp.exe http URL REFUSED_URL | Mcp.exe fake");
                return 2;
            }
            var o = new JObject();
#if BURIL_HTTP
            if (args[0] == "fake")
            {
                Print(Fake.Run());
                return Ending.End(0);
            }
#endif
            BurilProcessTransport process = null;
            IMcpToolTransport transport;
            if (args[0] == "stdio")
            {
                process = new BurilProcessTransport(args[1]);
                transport = process;
            }
            else
            {
                transport = MakeHttp(args[1]);
            }
            try
            {
                Run(new BurilClient(transport), transport, o);
                if (process != null)
                {
                    Restart(new BurilClient(transport), process, o);
                }
            }
            finally
            {
                ((IDisposable)transport).Dispose();
            }
            if (process != null)
            {
                o["afterDispose"] = process.ProcessId;
                var previous = new BurilProcessTransport(args[1]) { RequestedProtocolVersion = "2025-06-18" };
                using (previous)
                {
                    o["previous"] = new JObject
                    {
                        { "log", new BurilClient(previous).ConsoleLog(new ConsoleLogInput { Message = "old" }).Message },
                        { "protocolVersion", previous.ProtocolVersion },
                    };
                }
            }
            else
            {
                Http(args[1], args[2], o);
            }
            if (process != null)
            {
                // A server that cannot start, and one that exits at once: what failed, in its words.
                foreach (var pair in new[]
                {
                    new[] { "cannotStart", args[1] + ".missing", "serve" },
                    new[] { "exitsAtOnce", args[1], "serve --no-such-option" },
                })
                {
                    var failing = new BurilProcessTransport(pair[1], pair[2], null);
                    using (failing)
                    {
                        try
                        {
                            new BurilClient(failing).ConsoleLog(new ConsoleLogInput { Message = "x" });
                            o[pair[0]] = "no exception";
                        }
                        catch (Exception error)
                        {
                            o[pair[0]] = Failure(error);
                        }
                    }
                }
            }
            Print(o);
            return Ending.End(0);
        }

        private static void Print(JObject o)
        {
            var text = new System.IO.StringWriter();
            using (var writer = new JsonTextWriter(text))
            {
                writer.StringEscapeHandling = StringEscapeHandling.EscapeNonAscii;
                o.WriteTo(writer);
            }
            Console.Out.WriteLine(text.ToString());
        }

        private static IMcpToolTransport MakeHttp(string url)
        {
#if BURIL_HTTP
            return new BurilHttpTransport(url);
#else
            throw new NotSupportedException("built without BURIL_HTTP: " + url);
#endif
        }

        /// <summary>What only HTTP has: the session, the previous protocol version, failures to connect and HTTP errors.</summary>
        private static void Http(string url, string refused, JObject o)
        {
#if BURIL_HTTP
            var http = new BurilHttpTransport(url);
            using (http)
            {
                o["sessionLog"] = new BurilClient(http).ConsoleLog(new ConsoleLogInput { Message = "session" }).Message;
                o["protocolVersion"] = http.ProtocolVersion;
                o["hasSession"] = !string.IsNullOrEmpty(http.SessionId);
                new BurilClient(http).ConsoleLog(new ConsoleLogInput { Message = "again" });
                o["sessions"] = http.Sessions;
            }
            var previous = new BurilHttpTransport(url) { RequestedProtocolVersion = "2025-06-18" };
            using (previous)
            {
                o["previous"] = new JObject
                {
                    { "log", new BurilClient(previous).ConsoleLog(new ConsoleLogInput { Message = "old" }).Message },
                    { "protocolVersion", previous.ProtocolVersion },
                };
            }
            foreach (var pair in new[] { new[] { "wrongPath", url.Replace("/mcp", "/nope") }, new[] { "refused", refused } })
            {
                var other = new BurilHttpTransport(pair[1]);
                using (other)
                {
                    try
                    {
                        new BurilClient(other).ConsoleLog(new ConsoleLogInput { Message = "x" });
                        o[pair[0]] = "no exception";
                    }
                    catch (Exception error)
                    {
                        var failure = Failure(error);
                        var transport = error as BurilTransportException;
                        if (transport != null)
                        {
                            failure["statusCode"] = transport.StatusCode;
                        }
                        o[pair[0]] = failure;
                    }
                }
            }
#else
            throw new NotSupportedException("built without BURIL_HTTP: " + url + " " + refused);
#endif
        }

        private static JObject Failure(Exception error)
        {
            var o = new JObject { { "class", error.GetType().Name }, { "message", error.Message } };
            var tool = error as BurilToolException;
            if (tool != null)
            {
                o["type"] = tool.Type;
                o["error"] = tool.Error;
                o["problems"] = new JArray(tool.Problems.Select(p => new JObject { { "path", p.Path }, { "message", p.Message } }));
            }
            var transport = error as BurilTransportException;
            if (transport != null)
            {
                o["failure"] = transport.Failure.ToString();
                o["rpcCode"] = transport.RpcCode;
                o["serverText"] = transport.ServerText;
            }
            return o;
        }

        private static void Run(BurilClient client, IMcpToolTransport transport, JObject o)
        {
            o["serverVersionBefore"] = client.ServerVersion;
            o["metadataHash"] = BurilClient.MetadataHash;

            var open = client.SceneOpen(new SceneOpenInput { Path = "Assets/Scenes/Main.scene" });
            o["open"] = new JObject { { "scene", open.Scene.Name }, { "objectCount", (long)open.Scene.ObjectCount } };
            var listed = client.SceneListGameobjects();
            o["roots"] = new JArray(listed.Roots.Select(r => r.Name));
            o["log"] = client.ConsoleLog(new ConsoleLogInput { Message = "hello" }).Message;
            o["serverVersion"] = client.ServerVersion;
            var process = transport as BurilProcessTransport;
            if (process != null)
            {
                o["protocolVersion"] = process.ProtocolVersion;
            }

            // Bindings of other metadata: the server warns, and the warning reaches the envelope
            // and the client's event.
            var stale = JObject.Parse(transport.CallAsync(new BurilCallRequest("console_log", "{\"message\":\"old\"}", "0123456789abcdef", null, null)).Result);
            o["staleWarnings"] = stale["warnings"];
            var warned = new List<string>();
            client.WarningReceived += (sender, e) => { lock (warned) { warned.Add(e.Tool + ": " + e.Warning); } };
            client.ConsoleLog(new ConsoleLogInput { Message = "current" });
            o["currentWarnings"] = new JArray(warned);

            try
            {
                client.Call<GameobjectCreateOutput>("gameobject_create", new JObject { { "name", 3 } });
                o["invalid"] = "no exception";
            }
            catch (Exception error)
            {
                o["invalid"] = Failure(error);
            }
            try
            {
                client.GameobjectGet(new GameobjectGetInput { Id = 999 });
                o["missing"] = "no exception";
            }
            catch (Exception error)
            {
                o["missing"] = Failure(error);
            }
            try
            {
                client.Call<SceneListOutput>("scene_lst", null);
                o["unknown"] = "no exception";
            }
            catch (Exception error)
            {
                o["unknown"] = Failure(error);
            }

            // Progress: every report the tool sent arrives before the answer.
            var reports = new List<BurilProgress>();
            var searched = client.AssetSearchAsync(
                new AssetSearchInput { Query = "x" },
                new BurilCallOptions { Progress = p => { lock (reports) { reports.Add(p); } } }).Result;
            lock (reports)
            {
                o["progress"] = new JObject
                {
                    { "filesScanned", (long)searched.FilesScanned },
                    { "reports", reports.Count },
                    { "last", reports.Count == 0 ? null : reports[reports.Count - 1].Message },
                    { "lastTotal", reports.Count == 0 ? null : reports[reports.Count - 1].Total },
                };
            }

            // Cancellation: cancelled from the first progress report, so before the answer.
            var cancel = new CancellationTokenSource();
            try
            {
                client.AssetSearchAsync(
                    new AssetSearchInput { Query = "x" },
                    new BurilCallOptions { CancellationToken = cancel.Token, Progress = p => cancel.Cancel() }).GetAwaiter().GetResult();
                o["cancelled"] = "no exception";
            }
            catch (Exception error)
            {
                o["cancelled"] = Failure(error);
            }
            try
            {
                client.CallAsync<ConsoleLogOutput>("console_log", new ConsoleLogInput { Message = "x" }, new BurilCallOptions { CancellationToken = cancel.Token }).GetAwaiter().GetResult();
                o["preCancelled"] = "no exception";
            }
            catch (Exception error)
            {
                o["preCancelled"] = Failure(error);
            }
            try
            {
                client.CallAsync<ConsoleLogOutput>("console_log", new ConsoleLogInput { Message = "x" }, new BurilCallOptions { Timeout = TimeSpan.Zero }).GetAwaiter().GetResult();
                o["timedOut"] = "no exception";
            }
            catch (Exception error)
            {
                o["timedOut"] = Failure(error);
            }
            o["afterCancel"] = client.ConsoleLog(new ConsoleLogInput { Message = "still here" }).Message;
            MainThread(client, o);

            // 8 threads x 200 calls: every answer is its own call's.
            const int threads = 8;
            const int calls = 200;
            int answered = 0;
            int crossed = 0;
            var errors = new List<string>();
            var workers = new List<Thread>();
            for (int t = 0; t < threads; t++)
            {
                int thread = t;
                var worker = new Thread(() =>
                {
                    for (int i = 0; i < calls; i++)
                    {
                        var message = "thread " + thread + " call " + i;
                        try
                        {
                            var answer = i % 2 == 0
                                ? client.ConsoleLog(new ConsoleLogInput { Message = message })
                                : client.ConsoleLogAsync(new ConsoleLogInput { Message = message }).Result;
                            Interlocked.Increment(ref answered);
                            if (answer.Message != message)
                            {
                                Interlocked.Increment(ref crossed);
                            }
                        }
                        catch (Exception error)
                        {
                            lock (errors)
                            {
                                errors.Add(error.ToString());
                            }
                        }
                    }
                });
                workers.Add(worker);
                worker.Start();
            }
            foreach (var worker in workers)
            {
                worker.Join();
            }
            o["concurrent"] = new JObject
            {
                { "answered", answered },
                { "crossed", crossed },
                { "errors", new JArray(errors.Take(5)) },
            };
        }

        /// <summary>
        /// A thread with a single-threaded synchronization context, as Unity's main thread has:
        /// the blocking call returns, and an awaited call resumes on that thread.
        /// </summary>
        private static void MainThread(BurilClient client, JObject o)
        {
            var context = new MainThreadContext();
            var seen = new JObject();
            var main = new Thread(() =>
            {
                SynchronizationContext.SetSynchronizationContext(context);
                seen["blocking"] = client.ConsoleLog(new ConsoleLogInput { Message = "blocking" }).Message;
                var flow = OnMainThread(client, Thread.CurrentThread.ManagedThreadId, seen);
                context.RunUntil(flow);
                flow.GetAwaiter().GetResult();
            });
            main.Start();
            main.Join();
            o["mainThread"] = seen;
        }

        private static async Task OnMainThread(BurilClient client, int mainThread, JObject seen)
        {
            var answer = await client.ConsoleLogAsync(new ConsoleLogInput { Message = "awaited" });
            seen["awaited"] = answer.Message;
            seen["resumedOnMainThread"] = Thread.CurrentThread.ManagedThreadId == mainThread;
        }

        /// <summary>Runs what is posted to it, in order, on the thread that calls <see cref="RunUntil"/>.</summary>
        private sealed class MainThreadContext : SynchronizationContext
        {
            private readonly System.Collections.Concurrent.BlockingCollection<KeyValuePair<SendOrPostCallback, object>> queue =
                new System.Collections.Concurrent.BlockingCollection<KeyValuePair<SendOrPostCallback, object>>();

            public override void Post(SendOrPostCallback callback, object state)
            {
                queue.Add(new KeyValuePair<SendOrPostCallback, object>(callback, state));
            }

            public override void Send(SendOrPostCallback callback, object state)
            {
                throw new NotSupportedException("Send would block the main thread");
            }

            public void RunUntil(Task task)
            {
                task.ContinueWith(done => queue.CompleteAdding(), TaskScheduler.Default);
                foreach (var item in queue.GetConsumingEnumerable())
                {
                    item.Key(item.Value);
                }
            }
        }

        /// <summary>Kills the server process; the next call starts it again and says so.</summary>
        private static void Restart(BurilClient client, BurilProcessTransport process, JObject o)
        {
            var reasons = new List<string>();
            process.Restarted += (sender, e) => reasons.Add(e.Restarts + ": " + e.Reason);
            int before = process.ProcessId;
            var victim = Process.GetProcessById(before);
            victim.Kill();
            victim.WaitForExit();
            o["afterRestart"] = client.ConsoleLog(new ConsoleLogInput { Message = "again" }).Message;
            o["restarts"] = process.Restarts;
            o["restartReasons"] = new JArray(reasons);
            o["newProcess"] = process.ProcessId != before && process.ProcessId != 0;
        }
    }
}
