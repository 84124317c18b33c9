// Reads every sample into the generated class of its tool and side, writes it back, and prints
// [{tool, side, text} | {tool, side, error}]: `text` is what the generated class wrote.

using System;
using System.IO;
using System.Text;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public static class RoundTrip
    {
        public static int Run(string samplesPath)
        {
            var samples = (JArray)BurilJson.Parse(File.ReadAllText(samplesPath, new UTF8Encoding(false)));
            var results = new JArray();
            foreach (var item in samples)
            {
                var sample = (JObject)item;
                var tool = (string)sample["tool"];
                var side = (string)sample["side"];
                var result = new JObject();
                result["tool"] = tool;
                result["side"] = side;
                try
                {
                    var info = BurilCatalog.Find(tool);
                    if (info == null)
                    {
                        throw new InvalidOperationException("no tool " + tool + " in the catalog");
                    }
                    var type = side == "input" ? info.InputType : info.OutputType;
                    // From text, as a transport hands it over.
                    var value = BurilJson.Deserialize(Output.Compact(sample["value"]), type);
                    if (value == null || value.GetType() != type)
                    {
                        throw new InvalidOperationException("read as " + (value == null ? "null" : value.GetType().Name));
                    }
                    result["text"] = BurilJson.Serialize(value);
                    // Through JSON values, as ITool.Run and the client read them.
                    var viaToken = BurilJson.FromToken(sample["value"], type);
                    result["token"] = BurilJson.ToToken(viaToken);
                }
                catch (Exception error)
                {
                    result["error"] = error.GetType().Name + ": " + error.Message;
                }
                results.Add(result);
            }
            Output.Print(results);
            return 0;
        }
    }
}
