// Calls npm's servers through the C# bindings `tools codegen --from-command` generated for
// them, with the generated BurilProcessTransport (which starts the server and speaks MCP to it
// over stdio): a typed call each, printed as JSON.
//
// Usage: mono Foreign.exe everything|memory <node> <index.js> [the memory graph's file]

using System;
using Buril.Generated;
using Newtonsoft.Json;

public static class Foreign
{
    public static int Main(string[] args)
    {
        var server = args[0];
        if (args.Length > 3)
        {
            // The server the transport starts inherits this process's environment.
            Environment.SetEnvironmentVariable("MEMORY_FILE_PATH", args[3]);
        }
        using (var transport = new BurilProcessTransport(args[1], "\"" + args[2] + "\"" + (server == "everything" ? " stdio" : ""), null))
        {
            var client = new BurilClient(transport);
#if EVERYTHING
            var sum = client.GetSum(new GetSumInput { A = 1, B = 2.5 });
            Console.WriteLine(JsonConvert.SerializeObject(new { sumText = ((ContentBlockText)sum.Content[0]).Text }));
#else
            client.CreateEntities(new CreateEntitiesInput
            {
                Entities = new System.Collections.Generic.List<CreateEntitiesInputEntitiesItem>
                {
                    new CreateEntitiesInputEntitiesItem { Name = "Ada", EntityType = "person", Observations = new System.Collections.Generic.List<string> { "typed, in C#" } },
                },
            });
            var graph = client.ReadGraph(new ReadGraphInput());
            Console.WriteLine(JsonConvert.SerializeObject(new { names = graph.Entities.ConvertAll(e => e.Name), observations = graph.Entities[0].Observations }));
#endif
        }
        return 0;
    }
}
