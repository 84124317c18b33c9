// Calls a real `tools serve --http` through C# bindings generated from other tool metadata
// than the server's (see `tests/csharp/mcp.rs`): `Stale.exe URL`. Prints, as JSON, the warnings
// each typed call raised through `WarningReceived`, the bindings' hash and the server's.

using System;
using System.Collections.Generic;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.StaleTest
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length != 1)
            {
                Console.Error.WriteLine("usage: Stale.exe URL");
                return 2;
            }
            var o = new JObject();
            using (var transport = new BurilHttpTransport(args[0]))
            {
                var client = new BurilClient(transport);
                var warned = new List<JObject>();
                client.WarningReceived += (sender, e) =>
                {
                    lock (warned)
                    {
                        warned.Add(new JObject { { "tool", e.Tool }, { "warning", e.Warning } });
                    }
                };
                var listed = client.SceneList(new SceneListInput());
                o["scenes"] = listed.Scenes.Count;
                lock (warned)
                {
                    o["changed"] = new JArray(warned.ToArray());
                    warned.Clear();
                }
                var read = client.ConsoleRead(new ConsoleReadInput { MaxCount = 1 });
                o["totalCount"] = (long)read.TotalCount;
                lock (warned)
                {
                    o["unchanged"] = new JArray(warned.ToArray());
                }
                o["metadataHash"] = BurilClient.MetadataHash;
                o["serverVersion"] = client.ServerVersion;
            }
            Console.WriteLine(o.ToString(Formatting.None));
            return Ending.End(0);
        }
    }
}
