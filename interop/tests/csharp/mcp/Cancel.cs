// Cancels an `asset_search` in flight over BurilHttpTransport against a real
// `tools serve --http` (see `tests/csharp/mcp.rs`): `Cancel.exe URL`. The project's
// `Assets/Blocking/a.fifo` is a named pipe: the tool blocks reading it (after its progress
// report naming it) until the test writes to it, once the server has logged the cancellation.
// An HttpMessageHandler reads the call's response stream itself (handing the transport a copy),
// so that what the server sends on it after the cancellation is seen. Prints one JSON object.
//
// `Cancel.exe stdio TOOLS FIFO LOG`: the same over BurilProcessTransport, the server run as
// `sh -c 'exec TOOLS serve 2>>LOG'` with `BURIL_LOG=buril::dispatch=debug,buril::server=debug`;
// once the server has logged the cancellation the pipe is written, and the program waits (at
// most a minute) for the server's line saying what the tool returned after its call ended.

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.CancelTest
{
    /// <summary>A read-only stream of the chunks another thread adds; ends when it completes.</summary>
    internal sealed class ChunkStream : Stream
    {
        private readonly BlockingCollection<byte[]> chunks = new BlockingCollection<byte[]>();
        private byte[] current = new byte[0];
        private int offsetInCurrent;

        public void Add(byte[] chunk)
        {
            try
            {
                chunks.Add(chunk);
            }
            catch (InvalidOperationException)
            {
                // Completed: the reader is gone.
            }
        }

        public void Complete()
        {
            chunks.CompleteAdding();
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            while (offsetInCurrent == current.Length)
            {
                byte[] next;
                if (!chunks.TryTake(out next, Timeout.Infinite))
                {
                    return 0;
                }
                current = next;
                offsetInCurrent = 0;
            }
            var n = Math.Min(count, current.Length - offsetInCurrent);
            Array.Copy(current, offsetInCurrent, buffer, offset, n);
            offsetInCurrent += n;
            return n;
        }

        public override bool CanRead { get { return true; } }
        public override bool CanSeek { get { return false; } }
        public override bool CanWrite { get { return false; } }
        public override long Length { get { throw new NotSupportedException(); } }
        public override long Position { get { throw new NotSupportedException(); } set { throw new NotSupportedException(); } }
        public override void Flush() { }
        public override long Seek(long offset, SeekOrigin origin) { throw new NotSupportedException(); }
        public override void SetLength(long value) { throw new NotSupportedException(); }
        public override void Write(byte[] buffer, int offset, int count) { throw new NotSupportedException(); }
    }

    /// <summary>Sends every request; reads the answer of the `asset_search` call itself.</summary>
    internal sealed class Copying : DelegatingHandler
    {
        public readonly TaskCompletionSource<string> StreamEnded = new TaskCompletionSource<string>();
        public readonly List<JObject> Sent = new List<JObject>();
        public long CallId = -1;

        public Copying() : base(new HttpClientHandler()) { }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var body = request.Content == null ? "" : await request.Content.ReadAsStringAsync().ConfigureAwait(false);
            JObject message = null;
            if (body.Length > 0)
            {
                message = JObject.Parse(body);
                lock (Sent)
                {
                    Sent.Add(message);
                }
            }
            if (message == null || (string)message["method"] != "tools/call" || (string)message["params"]["name"] != "asset_search")
            {
                return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            }
            CallId = (long)message["id"];
            // The request itself is never cancelled: only the transport's copy of its answer is.
            var response = await base.SendAsync(request, CancellationToken.None).ConfigureAwait(false);
            var source = await response.Content.ReadAsStreamAsync().ConfigureAwait(false);
            var copy = new ChunkStream();
            var thread = new Thread(() =>
            {
                var text = new StringBuilder();
                var buffer = new byte[4096];
                try
                {
                    int n;
                    while ((n = source.Read(buffer, 0, buffer.Length)) > 0)
                    {
                        var chunk = new byte[n];
                        Array.Copy(buffer, chunk, n);
                        text.Append(Encoding.UTF8.GetString(chunk));
                        copy.Add(chunk);
                    }
                }
                catch (Exception error)
                {
                    text.Append("\n(read failed: " + error.Message + ")");
                }
                copy.Complete();
                StreamEnded.TrySetResult(text.ToString());
            });
            thread.IsBackground = true;
            thread.Start();
            var content = new StreamContent(copy);
            foreach (var header in response.Content.Headers)
            {
                content.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
            response.Content = content;
            return response;
        }
    }

    public static class Program
    {
        /// <summary>
        /// Calls <c>asset_search</c> over <c>Assets/Blocking</c> and cancels it on the progress
        /// report naming <c>a.fifo</c> (the tool is then blocked reading it); puts how the call
        /// ended in <c>o["rejected"]</c> and returns the progress messages seen.
        /// </summary>
        private static JArray SearchAndCancel(BurilClient client, JObject o)
        {
            var cancel = new CancellationTokenSource();
            var progress = new JArray();
            try
            {
                client.AssetSearchAsync(
                    new AssetSearchInput { Query = "anything", Folder = "Assets/Blocking" },
                    new BurilCallOptions
                    {
                        CancellationToken = cancel.Token,
                        Progress = p =>
                        {
                            lock (progress)
                            {
                                progress.Add(p.Message);
                            }
                            // The tool is now reading the named pipe, and blocked there.
                            if (p.Message != null && p.Message.EndsWith("a.fifo", StringComparison.Ordinal))
                            {
                                cancel.Cancel();
                            }
                        },
                    }).GetAwaiter().GetResult();
                o["rejected"] = "no exception";
            }
            catch (Exception error)
            {
                var tool = error as BurilToolException;
                o["rejected"] = new JObject
                {
                    { "class", error.GetType().Name },
                    { "cancellation", error is OperationCanceledException },
                    { "type", tool == null ? null : tool.Type },
                };
            }
            return progress;
        }

        /// <summary>The first line of the server's log about <c>asset_search</c> that contains <paramref name="text"/>, within a minute (else null).</summary>
        private static string Logged(string log, string text)
        {
            for (int waited = 0; waited < 60000; waited += 50)
            {
                foreach (var each in File.ReadAllLines(log))
                {
                    if (each.Contains("tool=\"asset_search\"") && each.Contains(text))
                    {
                        return each;
                    }
                }
                Thread.Sleep(50);
            }
            return null;
        }

        /// <summary>The stdio mode: the call cancelled over the process transport, and what the server logged of the tool.</summary>
        private static int Stdio(string tools, string fifo, string log)
        {
            var o = new JObject();
            using (var transport = new BurilProcessTransport("/bin/sh", "-c \"exec $0 serve 2>>$1\" " + tools + " " + log, null))
            {
                transport.Environment["BURIL_LOG"] = "buril::dispatch=debug,buril::server=debug";
                var client = new BurilClient(transport);
                client.SceneList(new SceneListInput());
                var progress = SearchAndCancel(client, o);
                // Once the server has cancelled the call's context (it logs so), lets the tool's
                // read end; what it does next is what its context knows. Unblocked before, the tool
                // could read on before the server has read the cancellation.
                Logged(log, "cancelled the call");
                File.WriteAllText(fifo, "unblocked\n");
                string line = Logged(log, "returned=");
                lock (progress)
                {
                    o["progress"] = progress;
                }
                o["line"] = line;
                o["after"] = client.SceneList(new SceneListInput()).Scenes.Count;
            }
            Console.WriteLine(o.ToString(Formatting.None));
            return 0;
        }

        public static int Main(string[] args)
        {
            if (args.Length == 4 && args[0] == "stdio")
            {
                return Ending.End(Stdio(args[1], args[2], args[3]));
            }
            if (args.Length != 1)
            {
                Console.Error.WriteLine("usage: Cancel.exe URL | Cancel.exe stdio TOOLS FIFO LOG");
                return 2;
            }
            var handler = new Copying();
            var o = new JObject();
            using (var transport = new BurilHttpTransport(new Uri(args[0]), handler))
            {
                var client = new BurilClient(transport);
                client.SceneList(new SceneListInput());
                var progress = SearchAndCancel(client, o);
                // What the server sent on the call's stream, up to its end, while the tool is
                // still blocked: the test lets its read end once the server has logged the
                // cancellation (unblocked before, the tool could read on before the server's
                // call task has cancelled its context).
                var stream = handler.StreamEnded.Task.GetAwaiter().GetResult();
                var events = new JArray();
                foreach (var line in stream.Split('\n'))
                {
                    if (line.StartsWith("data:", StringComparison.Ordinal) && line.Substring(5).Trim().Length > 0)
                    {
                        var data = JObject.Parse(line.Substring(5).Trim());
                        events.Add(data["method"] != null ? (string)data["method"] : "response " + data["id"]);
                    }
                }
                o["callId"] = handler.CallId;
                lock (progress)
                {
                    o["progress"] = progress;
                }
                o["onStream"] = events;
                var cancelled = new JArray();
                lock (handler.Sent)
                {
                    foreach (var message in handler.Sent)
                    {
                        if ((string)message["method"] == "notifications/cancelled")
                        {
                            cancelled.Add(message["params"]);
                        }
                    }
                }
                o["cancelled"] = cancelled;
                o["after"] = client.SceneList(new SceneListInput()).Scenes.Count;
            }
            Console.WriteLine(o.ToString(Formatting.None));
            return Ending.End(0);
        }
    }
}
