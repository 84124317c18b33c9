// BurilHttpTransport against a fake server (an HttpMessageHandler): the answers the real server
// does not give (plain JSON, results without buril's _meta, an expired session, content that is
// not MCP, events split over several data lines), and the headers and _meta every request
// carries. `Mcp.exe fake` prints what it saw.

#if BURIL_HTTP
using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.McpTest
{
    public sealed class FakeServer : HttpMessageHandler
    {
        private int sessions;

        public FakeServer()
        {
            Seen = new List<string>();
            Meta = new List<JToken>();
        }

        /// <summary>Each request: its JSON-RPC method, session and protocol headers.</summary>
        public List<string> Seen { get; private set; }

        /// <summary>The <c>_meta</c> of each <c>tools/call</c>.</summary>
        public List<JToken> Meta { get; private set; }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var session = Header(request, "Mcp-Session-Id");
            var version = Header(request, "MCP-Protocol-Version");
            if (request.Method == HttpMethod.Delete)
            {
                lock (Seen)
                {
                    Seen.Add("DELETE session=" + session);
                }
                return new HttpResponseMessage(HttpStatusCode.OK);
            }
            var body = await request.Content.ReadAsStringAsync().ConfigureAwait(false);
            var message = JObject.Parse(body);
            var method = (string)message["method"];
            var name = method == "tools/call" ? (string)message["params"]["name"] : null;
            lock (Seen)
            {
                Seen.Add((name ?? method) + " session=" + session + " version=" + version);
                if (name != null)
                {
                    Meta.Add(message["params"]["_meta"]);
                }
            }
            if (method == "initialize")
            {
                int number = Interlocked.Increment(ref sessions);
                var answer = Json(Result(message, new JObject
                {
                    { "protocolVersion", "2025-06-18" },
                    { "capabilities", new JObject() },
                    { "serverInfo", new JObject { { "name", "fake" }, { "version", "1" } } },
                }));
                answer.Headers.Add("Mcp-Session-Id", "s" + number);
                return answer;
            }
            if (message["id"] == null)
            {
                return new HttpResponseMessage(HttpStatusCode.Accepted);
            }
            switch (name)
            {
                case "console_log":
                    return Json(Result(message, new JObject
                    {
                        { "content", new JArray(new JObject { { "type", "text" }, { "text", "{}" } }) },
                        { "structuredContent", new JObject { { "time_ms", 1 }, { "level", "info" }, { "message", "plain" } } },
                        { "isError", false },
                        { "_meta", new JObject { { "buril/metadata", "feedfacefeedface" }, { "buril/warnings", new JArray("regenerate") } } },
                    }));
                case "tricky":
                case "pretty":
                    // Written by hand, with space around its tokens and strings holding brackets,
                    // quotes and escapes: the structured data must come back exactly (on one line
                    // it is read from its text; `pretty` spreads the answer over lines).
                    var tricky = "{ \"jsonrpc\" : \"2.0\", \"id\" : " + message["id"].ToString(Newtonsoft.Json.Formatting.None)
                        + ", \"result\" : { \"content\" : [ { \"type\" : \"text\", \"text\" : \"{\\\"s\\\": \\\"]}\\\"}\" } ] ,"
                        + " \"structuredContent\" : { \"s\" : \"a \\\"}] \\u00e9 \u00e9 \ud83d\ude00 \\\\ [\", \"n\" : [ 1, { \"x\" : [ ] } ], \"big\" : 12345678901234567890 } ,"
                        + " \"isError\" : false } }";
                    if (name == "pretty")
                    {
                        tricky = tricky.Replace(" , ", ",\n  ").Replace(" : { ", " : {\r\n ");
                    }
                    return new HttpResponseMessage(HttpStatusCode.OK)
                    {
                        Content = new StringContent(tricky, Encoding.UTF8, "application/json"),
                    };
                case "text_only":
                    return Json(Result(message, new JObject
                    {
                        { "content", new JArray(new JObject { { "type", "text" }, { "text", "{\"answer\":42}" } }) },
                    }));
                case "broken":
                    return Json(Result(message, new JObject
                    {
                        { "content", new JArray(new JObject { { "type", "text" }, { "text", "it broke" } }) },
                        { "isError", true },
                    }));
                case "expire":
                    if (session == "s1")
                    {
                        return new HttpResponseMessage(HttpStatusCode.NotFound) { Content = new StringContent("session not found") };
                    }
                    return Json(Result(message, new JObject { { "structuredContent", new JObject { { "session", session } } } }));
                case "garbage":
                    return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent("<html>nope</html>", Encoding.UTF8, "text/html") };
                case "events":
                    var id = (long)message["id"];
                    var result = Result(message, new JObject { { "structuredContent", new JObject { { "lines", "two" } } } }).ToString(Newtonsoft.Json.Formatting.Indented);
                    var progress = new JObject
                    {
                        { "jsonrpc", "2.0" },
                        { "method", "notifications/progress" },
                        { "params", new JObject { { "progressToken", id }, { "progress", 1 }, { "total", 2 }, { "message", "half" } } },
                    };
                    var stream = new StringBuilder();
                    stream.Append("id: 0\ndata:\n\n");
                    stream.Append(": a comment\n");
                    stream.Append("event: message\ndata: " + progress.ToString(Newtonsoft.Json.Formatting.None) + "\n\n");
                    foreach (var line in result.Split('\n'))
                    {
                        stream.Append("data: " + line.TrimEnd('\r') + "\n");
                    }
                    stream.Append("\n");
                    return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(stream.ToString(), Encoding.UTF8, "text/event-stream") };
                default:
                    return Json(new JObject
                    {
                        { "jsonrpc", "2.0" },
                        { "id", message["id"] },
                        { "error", new JObject { { "code", -32602 }, { "message", "no tool is named `" + name + "`" } } },
                    });
            }
        }

        private static string Header(HttpRequestMessage request, string name)
        {
            IEnumerable<string> values;
            return request.Headers.TryGetValues(name, out values) ? string.Join(",", values) : "-";
        }

        private static JObject Result(JObject request, JObject result)
        {
            return new JObject { { "jsonrpc", "2.0" }, { "id", request["id"] }, { "result", result } };
        }

        private static HttpResponseMessage Json(JObject message)
        {
            return new HttpResponseMessage(HttpStatusCode.OK)
            {
                Content = new StringContent(message.ToString(Newtonsoft.Json.Formatting.None), Encoding.UTF8, "application/json"),
            };
        }
    }

    public static class Fake
    {
        public static JObject Run()
        {
            var o = new JObject();
            var server = new FakeServer();
            var transport = new BurilHttpTransport(new Uri("http://fake.invalid/mcp"), server);
            var client = new BurilClient(transport);
            var warnings = new List<string>();
            client.WarningReceived += (sender, e) => warnings.Add(e.Tool + ": " + e.Warning);
            using (transport)
            {
                var logged = client.ConsoleLog(new ConsoleLogInput { Message = "x" });
                o["plain"] = logged.Message;
                o["serverVersion"] = client.ServerVersion;
                o["warnings"] = new JArray(warnings);
                o["protocolVersion"] = transport.ProtocolVersion;
                o["envelope"] = JObject.Parse(transport.Call("console_log", "{}"));
                o["textOnly"] = client.Call<JObject>("text_only", null);
                o["broken"] = Catch(() => client.Call<JObject>("broken", null));
                o["expire"] = client.Call<JObject>("expire", null);
                o["sessions"] = transport.Sessions;
                o["garbage"] = Catch(() => client.Call<JObject>("garbage", null));
                var reports = new List<string>();
                o["events"] = client.CallAsync<JObject>("events", null, new BurilCallOptions
                {
                    Progress = p => reports.Add(p.Progress + "/" + p.Total + " " + p.Message),
                }).Result;
                o["reports"] = new JArray(reports);
                o["unknown"] = Catch(() => client.Call<JObject>("nothing", null));
                o["tricky"] = client.Call<JObject>("tricky", null);
                o["trickyEnvelope"] = JObject.Parse(transport.Call("tricky", "{}"));
                o["pretty"] = client.Call<JObject>("pretty", null);
            }
            lock (server.Seen)
            {
                o["seen"] = new JArray(server.Seen);
                o["firstMeta"] = server.Meta[0];
                o["secondMeta"] = server.Meta[1];
            }
            o["metadataHash"] = BurilClient.MetadataHash;
            return o;
        }

        private static JToken Catch(Func<JObject> call)
        {
            try
            {
                return new JObject { { "answer", call() } };
            }
            catch (Exception error)
            {
                var o = new JObject { { "class", error.GetType().Name }, { "message", error.Message } };
                var tool = error as BurilToolException;
                if (tool != null)
                {
                    o["type"] = tool.Type;
                }
                var transport = error as BurilTransportException;
                if (transport != null)
                {
                    o["failure"] = transport.Failure.ToString();
                }
                return o;
            }
        }
    }
}
#endif
