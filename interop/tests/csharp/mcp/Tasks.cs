// The task handles of the committed C# bindings (`StartAssetSearchAsync`, `BurilTask<T>`)
// against a real `tools serve`, over BurilHttpTransport (`Tasks.exe http URL`) and
// BurilProcessTransport (`Tasks.exe stdio TOOLS`, the project in BURIL_PROJECT): `asset_search`
// (a task tool) run to its end, polled, cancelled through the wait's token while the tool is
// blocked reading a named pipe, and a wait that times out while the task goes on. Prints one
// JSON object (see `tests/csharp/mcp.rs`).

using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.TasksTest
{
    public static class Program
    {
        private static async Task<string> Ended<T>(BurilTask<T> task)
            where T : class
        {
            var last = await task.PollAsync();
            for (int i = 0; i < 200 && !last.IsEnded; i++)
            {
                await Task.Delay(50);
                last = await task.PollAsync();
            }
            return last.Status;
        }

        private static async Task<JObject> Run(IToolTransport transport)
        {
            var client = new BurilClient(transport);
            var report = new JObject();

            var task = await client.StartAssetSearchAsync(new AssetSearchInput { Query = "PlayerController", Pattern = "*.cs" });
            var statuses = new JArray();
            var output = await task.WaitAsync(onStatus: snapshot => statuses.Add(snapshot.Status));
            report["completed"] = new JObject
            {
                ["taskId"] = task.TaskId.Substring(0, 5),
                ["statuses"] = statuses,
                ["query"] = output.Query,
                ["matches"] = output.Matches.Count,
                ["polled"] = (await task.PollAsync()).Status,
            };

            var blocked = await client.StartAssetSearchAsync(new AssetSearchInput { Query = "anything", Folder = "Assets/Blocking" });
            var seen = new JArray();
            string rejected;
            using (var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(500)))
            {
                try
                {
                    await blocked.WaitAsync(cancel.Token, onStatus: snapshot => seen.Add(snapshot.Status));
                    rejected = "resolved";
                }
                catch (OperationCanceledException)
                {
                    rejected = "OperationCanceledException";
                }
            }
            report["cancelled"] = new JObject { ["seen"] = seen, ["rejected"] = rejected, ["after"] = await Ended(blocked) };

            var slow = await client.StartAssetSearchAsync(new AssetSearchInput { Query = "anything", Folder = "Assets/Blocking" });
            string timedOut;
            try
            {
                await slow.WaitAsync(timeout: TimeSpan.FromMilliseconds(200));
                timedOut = "resolved";
            }
            catch (BurilToolException error)
            {
                timedOut = error.Type;
            }
            var stillRunning = (await slow.PollAsync()).Status;
            await slow.CancelAsync();
            report["timedOut"] = new JObject { ["timedOut"] = timedOut, ["stillRunning"] = stillRunning, ["ended"] = await Ended(slow) };

            try
            {
                await client.StartTaskAsync<AssetSearchOutput>("asset_search", new JObject { ["query"] = 3 });
                report["invalid"] = "started";
            }
            catch (ToolValidationException error)
            {
                report["invalid"] = error.Type;
            }
            return report;
        }

        public static int Main(string[] args)
        {
            IToolTransport transport;
            if (args[0] == "http")
            {
                transport = new BurilHttpTransport(args[1]);
            }
            else
            {
                transport = new BurilProcessTransport(args[1], "serve", null);
            }
            try
            {
                var report = Run(transport).GetAwaiter().GetResult();
                Console.WriteLine(report.ToString(Newtonsoft.Json.Formatting.None));
                return Ending.End(0);
            }
            finally
            {
                ((IDisposable)transport).Dispose();
            }
        }
    }
}
