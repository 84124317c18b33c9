// Prints the catalog: what the generated code embeds for every tool, to compare with the
// registry (descriptions, titles and schemas must survive the C# string literals), and any
// member named after text from a description.

using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public static class Catalog
    {
        public static int Run()
        {
            var tools = new JArray();
            foreach (var info in BurilCatalog.Tools)
            {
                var tool = new JObject();
                tool["name"] = info.Name;
                tool["title"] = info.Title == null ? JValue.CreateNull() : (JToken)info.Title;
                tool["description"] = info.Description;
                tool["family"] = info.Family;
                tool["aliases"] = new JArray(info.Aliases);
                tool["dangerous"] = info.Dangerous;
                tool["offThread"] = info.OffThread;
                tool["inputSchema"] = info.InputSchemaJson;
                tool["outputSchema"] = info.OutputSchemaJson;
                tool["toolType"] = info.ToolType.FullName;
                tool["inputType"] = info.InputType.FullName;
                tool["outputType"] = info.OutputType.FullName;
                tool["offThreadAttribute"] = info.ToolType.GetCustomAttributes(typeof(OffThreadAttribute), true).Length == 1;
                tools.Add(tool);
            }
            // Members whose names come from descriptions would mean text escaped into code.
            var injected = new JArray();
            foreach (var type in typeof(BurilCatalog).Assembly.GetTypes())
            {
                foreach (var member in type.GetMembers())
                {
                    if (member.Name.Contains("Injected"))
                    {
                        injected.Add(type.FullName + "." + member.Name);
                    }
                }
            }
            var result = new JObject();
            result["tools"] = tools;
            result["injected"] = injected;
            Output.Print(result);
            return 0;
        }
    }
}
