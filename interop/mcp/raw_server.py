"""A hand-written MCP server over stdio (newline-delimited JSON-RPC, protocol 2025-11-25), for the
cases of buril's hub tests that no well-behaved SDK server makes:

    python raw_server.py many N      # N tools (`tool_0` … ), listed 500 a page
    python raw_server.py awkward     # names that clash or cannot be mapped, a schema that does not compile
    python raw_server.py garbage     # answers `initialize` with a line that is not JSON
    python raw_server.py exit        # exits at once, saying why on standard error

Every `tools/call` answers `{"called": NAME, "arguments": …}` as text.
"""

import json
import sys


def tools_of(mode, count):
    if mode == "many":
        return [
            {
                "name": f"tool_{i}",
                "description": f"Tool number {i}.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                },
            }
            for i in range(count)
        ]
    plain = {"type": "object", "properties": {}}
    return [
        {"name": "good_tool", "description": "Served.", "inputSchema": plain},
        # With the prefix `local_`, `local_hello`: the name of a tool linked into the binary.
        {"name": "hello", "description": "Served unless its name is taken.", "inputSchema": plain},
        # `get-sum` and `get_sum` both map to `get_sum`: the second is left out.
        {"name": "get-sum", "description": "Served.", "inputSchema": plain},
        {"name": "get_sum", "description": "Clashes.", "inputSchema": plain},
        {"name": "日本語", "description": "Cannot be mapped.", "inputSchema": plain},
        {
            "name": "bad_schema",
            "description": "Its schema does not compile.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": 12}}},
        },
    ]


def main():
    mode = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if mode == "exit":
        sys.stderr.write("raw_server: refusing to start, as asked\n")
        sys.exit(3)
    tools = tools_of(mode, count)
    page = 500
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message:
            continue
        answer = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "initialize":
            if mode == "garbage":
                sys.stdout.write("this is not JSON-RPC at all\n")
                sys.stdout.flush()
                continue
            answer["result"] = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
        elif method == "tools/list":
            start = int((message.get("params") or {}).get("cursor") or 0)
            result = {"tools": tools[start : start + page]}
            if start + page < len(tools):
                result["nextCursor"] = str(start + page)
            answer["result"] = result
        elif method == "tools/call":
            params = message.get("params") or {}
            text = json.dumps({"called": params.get("name"), "arguments": params.get("arguments")})
            answer["result"] = {"content": [{"type": "text", "text": text}]}
        elif method == "ping":
            answer["result"] = {}
        else:
            answer["error"] = {"code": -32601, "message": f"Method not found: {method}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
