// The transport benchmark's C# client (`scripts/bench.sh transports`): calls `bench_spawn`
// through a transport of the generated bindings and through a raw JSON-RPC client doing the
// same work with no generated code (Process and a reader thread, or HttpClient, and Newtonsoft's
// JObject), in alternating blocks in one process, so that both meet the same machine; prints
// one JSON line for each, with the fields of `mcp-client` (requests per second, p50 and p99 in
// microseconds).
//
//   mono Bench.exe stdio <mcp-server> [CALLS]   // BurilProcessTransport and the raw client, each
//                                               // on its own `mcp-server buril`: CALLS / 4
//                                               // blocking calls one at a time (latency), then
//                                               // CALLS with 32 in flight (CallAsync)
//   mono Bench.exe http <url> [CALLS]           // BurilHttpTransport and the raw client, each
//                                               // with its own session of `mcp-server
//                                               // buril-http`: CALLS blocking calls one at a
//                                               // time; latency and requests per second over them
//
// With BENCH_SERVER_CPUS set (`1`, say), the stdio servers run under `taskset -c` on those CPUs
// (the script runs the client itself on the others), so that neither client's server is luckier
// in where the scheduler puts it.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Collections.Concurrent;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json.Linq;

public static class Bench
{
    private const int InFlight = 32;

    /// <summary>Calls one at a time per block (32 in flight: eight times as many).</summary>
    private const int Block = 500;

    /// <summary>The stdio server's command and arguments, under <c>taskset</c> when BENCH_SERVER_CPUS says so.</summary>
    private static string[] Server(string server)
    {
        var cpus = Environment.GetEnvironmentVariable("BENCH_SERVER_CPUS");
        return string.IsNullOrEmpty(cpus)
            ? new[] { server, "buril" }
            : new[] { "taskset", "-c " + cpus + " " + server + " buril" };
    }

    private static BenchSpawnInput Input()
    {
        return new BenchSpawnInput { Name = "crate_01", X = 12.5, Tag = "props" };
    }

    private static void Check(BenchSpawnOutput output)
    {
        if (output.Name != "crate_01")
        {
            throw new Exception("unexpected answer: " + output.Name);
        }
    }

    /// <summary>Blocks of calls one at a time, each client's block in turn: each client's latencies, sorted, and seconds in all.</summary>
    private static double[][] Sequential(Action[] clients, int calls, double[] seconds)
    {
        var latencies = new double[clients.Length][];
        for (int c = 0; c < clients.Length; c++)
        {
            latencies[c] = new double[calls];
        }
        int done = 0;
        for (int block = 0; done < calls; block++)
        {
            int size = Math.Min(Block, calls - done);
            for (int turn = 0; turn < clients.Length; turn++)
            {
                // Who goes first alternates, so that neither always follows the other.
                int c = (turn + block) % clients.Length;
                var total = Stopwatch.StartNew();
                for (int k = 0; k < size; k++)
                {
                    var watch = Stopwatch.StartNew();
                    clients[c]();
                    latencies[c][done + k] = watch.Elapsed.TotalMilliseconds * 1000.0;
                }
                seconds[c] += total.Elapsed.TotalSeconds;
            }
            done += size;
        }
        foreach (var each in latencies)
        {
            Array.Sort(each);
        }
        return latencies;
    }

    private static async Task Lane(Func<Task> call, Func<bool> take)
    {
        while (take())
        {
            await call().ConfigureAwait(false);
        }
    }

    /// <summary>Blocks of calls with <see cref="InFlight"/> in flight, each client's in turn: each client's seconds.</summary>
    private static double[] Pipelined(Func<Task>[] clients, int calls)
    {
        var seconds = new double[clients.Length];
        int done = 0;
        for (int block = 0; done < calls; block++)
        {
            int size = Math.Min(Block * 8, calls - done);
            for (int turn = 0; turn < clients.Length; turn++)
            {
                int c = (turn + block) % clients.Length;
                int next = 0;
                Func<bool> take = () => Interlocked.Increment(ref next) <= size;
                var watch = Stopwatch.StartNew();
                var lanes = new List<Task>();
                for (int k = 0; k < InFlight; k++)
                {
                    lanes.Add(Lane(clients[c], take));
                }
                Task.WaitAll(lanes.ToArray());
                seconds[c] += watch.Elapsed.TotalSeconds;
            }
            done += size;
        }
        return seconds;
    }

    private const string Initialize =
        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}";

    private static string Request(long id, string method, string paramsJson)
    {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id.ToString(CultureInfo.InvariantCulture)
            + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}";
    }

    /// <summary>The raw client's input: a plain class, as a hand-written client would have.</summary>
    private sealed class RawInput
    {
        [Newtonsoft.Json.JsonProperty("name")]
        public string Name { get; set; }

        [Newtonsoft.Json.JsonProperty("x")]
        public double X { get; set; }

        [Newtonsoft.Json.JsonProperty("tag")]
        public string Tag { get; set; }
    }

    /// <summary>The raw client's output, read from <c>structuredContent</c>.</summary>
    private sealed class RawOutput
    {
        [Newtonsoft.Json.JsonProperty("name")]
        public string Name { get; set; }

        [Newtonsoft.Json.JsonProperty("x")]
        public double X { get; set; }

        [Newtonsoft.Json.JsonProperty("tagged")]
        public bool Tagged { get; set; }
    }

    /// <summary>The same work as the generated client's: a typed input written as JSON, a typed output read back.</summary>
    private static string CallParams()
    {
        var input = new RawInput { Name = "crate_01", X = 12.5, Tag = "props" };
        return "{\"name\":\"bench_spawn\",\"arguments\":" + Newtonsoft.Json.JsonConvert.SerializeObject(input) + "}";
    }

    private static void CheckRaw(JObject answer)
    {
        var result = answer["result"] as JObject;
        var data = result == null ? null : result["structuredContent"] as JObject;
        var output = data == null ? null : data.ToObject<RawOutput>();
        if (output == null || output.Name != "crate_01")
        {
            throw new Exception("unexpected answer: " + answer);
        }
    }

    /// <summary>The raw stdio client: newline-delimited JSON-RPC, a reader thread, answers by id.</summary>
    private sealed class RawStdio : IDisposable
    {
        private readonly Process process;
        private readonly Stream input;
        private readonly object writeGate = new object();
        private readonly ConcurrentDictionary<long, TaskCompletionSource<JObject>> waiting =
            new ConcurrentDictionary<long, TaskCompletionSource<JObject>>();
        private long nextId;

        internal RawStdio(string server)
        {
            var command = Server(server);
            var start = new ProcessStartInfo(command[0], command[1])
            {
                UseShellExecute = false,
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                StandardOutputEncoding = new UTF8Encoding(false),
            };
            process = Process.Start(start);
            input = process.StandardInput.BaseStream;
            new Thread(Read) { IsBackground = true }.Start();
        }

        private void Read()
        {
            string line;
            while ((line = process.StandardOutput.ReadLine()) != null)
            {
                var message = JObject.Parse(line);
                var id = message["id"];
                TaskCompletionSource<JObject> answer;
                if (id != null && waiting.TryRemove((long)id, out answer))
                {
                    answer.TrySetResult(message);
                }
            }
        }

        internal void Send(string text)
        {
            var bytes = new UTF8Encoding(false).GetBytes(text + "\n");
            lock (writeGate)
            {
                input.Write(bytes, 0, bytes.Length);
                input.Flush();
            }
        }

        internal Task<JObject> Ask(string method, string paramsJson)
        {
            long id = Interlocked.Increment(ref nextId);
            var answer = new TaskCompletionSource<JObject>(TaskCreationOptions.RunContinuationsAsynchronously);
            waiting[id] = answer;
            Send(Request(id, method, paramsJson));
            return answer.Task;
        }

        public void Dispose()
        {
            input.Close();
            process.WaitForExit();
        }
    }

    /// <summary>The raw HTTP client: one session, HttpClient, JSON or one Server-Sent Event per answer.</summary>
    private sealed class RawHttp : IDisposable
    {
        private readonly HttpClient http = new HttpClient();
        private readonly string url;
        private string session;
        private long nextId;

        internal RawHttp(string url)
        {
            this.url = url;
        }

        private async Task<string> Post(string body)
        {
            var request = new HttpRequestMessage(HttpMethod.Post, url)
            {
                Content = new StringContent(body, new UTF8Encoding(false), "application/json"),
            };
            request.Headers.TryAddWithoutValidation("accept", "application/json, text/event-stream");
            if (session != null)
            {
                request.Headers.TryAddWithoutValidation("mcp-session-id", session);
                request.Headers.TryAddWithoutValidation("mcp-protocol-version", "2025-11-25");
            }
            using (var response = await http.SendAsync(request).ConfigureAwait(false))
            {
                IEnumerable<string> values;
                if (response.Headers.TryGetValues("mcp-session-id", out values))
                {
                    foreach (var value in values)
                    {
                        session = value;
                    }
                }
                var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                if (!response.IsSuccessStatusCode)
                {
                    throw new Exception("HTTP " + (int)response.StatusCode + ": " + text);
                }
                return text;
            }
        }

        internal async Task<JObject> Ask(string method, string paramsJson)
        {
            var text = await Post(Request(Interlocked.Increment(ref nextId), method, paramsJson)).ConfigureAwait(false);
            if (text.StartsWith("{", StringComparison.Ordinal))
            {
                return JObject.Parse(text);
            }
            // A Server-Sent Events stream: the answer is its last non-empty `data:` line.
            string data = null;
            foreach (var line in text.Split('\n'))
            {
                if (line.StartsWith("data:", StringComparison.Ordinal) && line.Trim().Length > 5)
                {
                    data = line.Substring(5);
                }
            }
            return JObject.Parse(data);
        }

        internal void Notify(string method)
        {
            Post("{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\"}").GetAwaiter().GetResult();
        }

        public void Dispose()
        {
            http.Dispose();
        }
    }

    private static double Percentile(double[] sorted, double p)
    {
        return sorted[(int)Math.Round((sorted.Length - 1) * p)];
    }

    private static void Print(string server, int calls, double rps, double[] latencies, int latencyCalls)
    {
        Console.WriteLine(string.Format(
            CultureInfo.InvariantCulture,
            "{{\"server\":\"{0}\",\"calls\":{1},\"requests_per_second\":{2},\"p50_us\":{3},\"p99_us\":{4},\"latency_calls\":{5}}}",
            server, calls, rps, Percentile(latencies, 0.5), Percentile(latencies, 0.99), latencyCalls));
    }

    public static int Main(string[] args)
    {
        if (args.Length < 2 || (args[0] != "stdio" && args[0] != "http"))
        {
            Console.Error.WriteLine("usage: mono Bench.exe (stdio <mcp-server>|http <url>) [CALLS]");
            return 2;
        }
        if (args[0] == "stdio")
        {
            int calls = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 20000;
            using (var raw = new RawStdio(args[1]))
            using (var transport = new BurilProcessTransport(Server(args[1])[0], Server(args[1])[1], null))
            {
                raw.Ask("initialize", Initialize).GetAwaiter().GetResult();
                raw.Send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
                var client = new BurilClient(transport);
                Action[] blocking =
                {
                    () => CheckRaw(raw.Ask("tools/call", CallParams()).GetAwaiter().GetResult()),
                    () => Check(client.BenchSpawn(Input())),
                };
                Func<Task>[] async =
                {
                    async () => CheckRaw(await raw.Ask("tools/call", CallParams()).ConfigureAwait(false)),
                    async () => Check(await client.BenchSpawnAsync(Input()).ConfigureAwait(false)),
                };
                Sequential(blocking, 200, new double[2]);
                int latencyCalls = Math.Max(calls / 4, 100);
                var latencies = Sequential(blocking, latencyCalls, new double[2]);
                var seconds = Pipelined(async, calls);
                Print("cs-raw-stdio", calls, calls / seconds[0], latencies[0], latencyCalls);
                Print("cs-stdio", calls, calls / seconds[1], latencies[1], latencyCalls);
            }
        }
        else
        {
            int calls = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 2000;
            using (var raw = new RawHttp(args[1]))
            using (var transport = new BurilHttpTransport(args[1]))
            {
                raw.Ask("initialize", Initialize).GetAwaiter().GetResult();
                raw.Notify("notifications/initialized");
                var client = new BurilClient(transport);
                Action[] blocking =
                {
                    () => CheckRaw(raw.Ask("tools/call", CallParams()).GetAwaiter().GetResult()),
                    () => Check(client.BenchSpawn(Input())),
                };
                Sequential(blocking, Math.Min(Math.Max(calls / 10, 10), 200), new double[2]);
                var seconds = new double[2];
                var latencies = Sequential(blocking, calls, seconds);
                Print("cs-raw-http", calls, calls / seconds[0], latencies[0], calls);
                Print("cs-http", calls, calls / seconds[1], latencies[1], calls);
            }
        }
        return 0;
    }
}
