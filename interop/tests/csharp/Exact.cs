// Reads each value into the generated input class of its tool, from text and through a JSON
// value, writes it back, and prints
// {"results": [{tool, text, tokenText} | {tool, error}], "types": {tool: {property: type}}}.
// What was written comes back as strings, so that integers beyond 64 bits reach the test as
// they were written; `types` are the C# types of the input classes' JSON properties.

using System;
using System.IO;
using System.Reflection;
using System.Text;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public static class Exact
    {
        public static int Run(string valuesPath)
        {
            var values = (JArray)BurilJson.Parse(File.ReadAllText(valuesPath, new UTF8Encoding(false)));
            var results = new JArray();
            var types = new JObject();
            foreach (var item in values)
            {
                var tool = (string)item["tool"];
                var result = new JObject();
                result["tool"] = tool;
                try
                {
                    var info = BurilCatalog.Find(tool);
                    if (info == null)
                    {
                        throw new InvalidOperationException("no tool " + tool + " in the catalog");
                    }
                    if (types[tool] == null)
                    {
                        types[tool] = PropertyTypes(info.InputType);
                    }
                    // From text, as a transport hands it over.
                    var value = BurilJson.Deserialize(Output.Compact(item["value"]), info.InputType);
                    result["text"] = BurilJson.Serialize(value);
                    // Through JSON values, as ITool.Run reads its input and writes its envelope.
                    var viaToken = BurilJson.FromToken(item["value"], info.InputType);
                    result["tokenText"] = Output.Compact(BurilJson.ToToken(viaToken));
                }
                catch (Exception error)
                {
                    result["error"] = error.GetType().Name + ": " + error.Message;
                }
                results.Add(result);
            }
            var output = new JObject();
            output["results"] = results;
            output["types"] = types;
            Output.Print(output);
            return 0;
        }

        /// <summary>The C# type of each JSON property of <paramref name="type"/>, by its JSON name.</summary>
        private static JObject PropertyTypes(Type type)
        {
            var types = new JObject();
            foreach (var property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            {
                var json = (JsonPropertyAttribute)Attribute.GetCustomAttribute(property, typeof(JsonPropertyAttribute));
                if (json != null)
                {
                    types[json.PropertyName] = property.PropertyType.ToString();
                }
            }
            return types;
        }
    }
}
