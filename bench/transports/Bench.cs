// The transport benchmark's C# client (`scripts/bench.sh transports`): calls `bench_spawn`
// through a transport of the generated bindings, with the work and the output of `mcp-client`
// (one JSON line: requests per second, p50 and p99 in microseconds).
//
//   mono Bench.exe stdio <mcp-server> [CALLS]   // BurilProcessTransport on `mcp-server buril`:
//                                               // CALLS / 4 blocking calls one at a time
//                                               // (latency), then CALLS through CallAsync, 32 in
//                                               // flight
//   mono Bench.exe http <url> [CALLS]           // BurilHttpTransport on `mcp-server buril-http`:
//                                               // CALLS blocking calls one at a time; latency and
//                                               // requests per second over them

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading.Tasks;
using Buril.Generated;

public static class Bench
{
    private const int InFlight = 32;

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

    private static double[] Sequential(BurilClient client, int calls)
    {
        var latencies = new double[calls];
        for (int k = 0; k < calls; k++)
        {
            var watch = Stopwatch.StartNew();
            Check(client.BenchSpawn(Input()));
            latencies[k] = watch.Elapsed.TotalMilliseconds * 1000.0;
        }
        Array.Sort(latencies);
        return latencies;
    }

    private static async Task Lane(BurilClient client, Func<bool> take)
    {
        while (take())
        {
            Check(await client.BenchSpawnAsync(Input()).ConfigureAwait(false));
        }
    }

    private static double Pipelined(BurilClient client, int calls)
    {
        int next = 0;
        Func<bool> take = () => System.Threading.Interlocked.Increment(ref next) <= calls;
        var watch = Stopwatch.StartNew();
        var lanes = new List<Task>();
        for (int k = 0; k < InFlight; k++)
        {
            lanes.Add(Lane(client, take));
        }
        Task.WaitAll(lanes.ToArray());
        return watch.Elapsed.TotalSeconds;
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
            using (var transport = new BurilProcessTransport(args[1], "buril", null))
            {
                var client = new BurilClient(transport);
                for (int k = 0; k < 200; k++)
                {
                    Check(client.BenchSpawn(Input()));
                }
                int latencyCalls = Math.Max(calls / 4, 100);
                var latencies = Sequential(client, latencyCalls);
                double seconds = Pipelined(client, calls);
                Print("cs-stdio", calls, calls / seconds, latencies, latencyCalls);
            }
        }
        else
        {
            int calls = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 2000;
            using (var transport = new BurilHttpTransport(args[1]))
            {
                var client = new BurilClient(transport);
                for (int k = 0; k < Math.Min(Math.Max(calls / 10, 10), 200); k++)
                {
                    Check(client.BenchSpawn(Input()));
                }
                var watch = Stopwatch.StartNew();
                var latencies = Sequential(client, calls);
                double seconds = watch.Elapsed.TotalSeconds;
                Print("cs-http", calls, calls / seconds, latencies, calls);
            }
        }
        return 0;
    }
}
