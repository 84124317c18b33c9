"""A long mixed run against one server over Streamable HTTP and one over stdio, sampling each
server's resident memory, open file descriptors and threads every 10 s.

    python3 bench/soak/soak.py SERVER_BINARY MINUTES OUT_DIR

SERVER_BINARY is the conformance fixture server (`conformance-server`), whose tools the run
calls: `test_simple_text` (ordinary), `test_error_handling` (fails as a tool fails),
`slow_compute` (a task over HTTP, followed with `tasks/get`, one in three cancelled with
`tasks/cancel`; a plain call over stdio, one in three cancelled with `notifications/cancelled`).
Every answer is checked; an unexpected one counts as an error. SOAK_WORKERS (e.g.
`http_tasks,stdio_mix`) runs only the clients it names. Writes OUT_DIR/soak.csv (one
row a sample) and prints a summary as JSON. Only Python's standard library is used.
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
import http.client

binary, minutes, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
deadline = time.monotonic() + minutes * 60
stop = threading.Event()
counts = {}
errors = []
lock = threading.Lock()


def count(what, ok=True, said=None):
    with lock:
        counts[what] = counts.get(what, 0) + 1
        if not ok:
            counts["errors"] = counts.get("errors", 0) + 1
            if len(errors) < 20:
                errors.append(f"{what}: {said}")


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
    "io.modelcontextprotocol/clientInfo": {"name": "buril-soak", "version": "1"},
}

# --- The HTTP server -------------------------------------------------------------------------

http_server = subprocess.Popen(
    # Tasks' results are kept a minute (not the default hour), so that the run reaches the
    # store's steady state: results past their TTL are dropped, their tombstones kept an hour.
    [binary, "serve", "--http", "127.0.0.1:0", "--tasks", "memory", "--task-ttl", "60"],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.PIPE,
    text=True,
)
prefix = "buril: serving MCP over Streamable HTTP at "
while True:
    line = http_server.stderr.readline()
    if not line:
        sys.exit("the HTTP server ended before saying its address")
    if line.startswith(prefix):
        url = line[len(prefix):].strip()
        break
threading.Thread(target=lambda: [None for _ in http_server.stderr], daemon=True).start()
authority = url.split("/")[2]
host, port = authority.split(":")


class Http:
    """Stateless requests on one kept-alive connection (a new one after an error)."""

    def __init__(self):
        self.connection = None

    def rpc(self, method, params):
        params = dict(params, _meta=META)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
        }
        name = params.get("name") or params.get("taskId")
        if name:
            headers["mcp-name"] = name
        for attempt in range(2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
                self.connection.request("POST", "/mcp", body, headers)
                response = self.connection.getresponse()
                text = response.read().decode()
                break
            except (OSError, http.client.HTTPException):
                self.connection = None
                if attempt == 1:
                    raise
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1] if data else text)


def http_ordinary():
    client = Http()
    while not stop.is_set():
        answer = client.rpc("tools/call", {"name": "test_simple_text", "arguments": {}})
        text = answer.get("result", {}).get("content", [{}])[0].get("text", "")
        count("http ordinary", text.startswith("This is a simple text"), answer)
        time.sleep(0.005)


def http_failing():
    client = Http()
    while not stop.is_set():
        answer = client.rpc("tools/call", {"name": "test_error_handling", "arguments": {}})
        count("http failing", answer.get("result", {}).get("isError") is True, answer)
        time.sleep(0.02)


def http_tasks():
    client = Http()
    n = 0
    while not stop.is_set():
        n += 1
        created = client.rpc(
            "tools/call",
            {"name": "slow_compute", "arguments": {"seconds": 0.3, "label": f"s{n}"}},
        )
        task = created.get("result", {})
        if task.get("resultType") != "task":
            count("http task", False, created)
            continue
        cancel = n % 3 == 0
        if cancel:
            client.rpc("tasks/cancel", {"taskId": task["taskId"]})
        while True:
            got = client.rpc("tasks/get", {"taskId": task["taskId"]}).get("result", {})
            if got.get("status") in ("completed", "failed", "cancelled"):
                break
            time.sleep(0.05)
        expected = "cancelled" if cancel else "completed"
        count("http task " + expected, got.get("status") == expected, got)


# --- The stdio server ------------------------------------------------------------------------

stdio_server = subprocess.Popen(
    [binary, "serve"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    stderr=subprocess.DEVNULL,
    text=True,
    bufsize=1,
)


def send(message):
    stdio_server.stdin.write(json.dumps(message) + "\n")
    stdio_server.stdin.flush()


def answer_to(wanted):
    while True:
        line = stdio_server.stdout.readline()
        if not line:
            raise RuntimeError("the stdio server closed its output")
        message = json.loads(line)
        if message.get("id") == wanted:
            return message


def stdio_mix():
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "buril-soak", "version": "1"}}})
    answer_to(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    n = 0
    while not stop.is_set():
        n += 1
        if n % 50 == 0:
            # A call cancelled while it runs: no answer is due; the next call is answered.
            send({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "slow_compute", "arguments": {"seconds": 5, "label": f"c{n}"}}})
            time.sleep(0.05)
            send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": n, "reason": "soak"}})
            count("stdio cancelled")
            continue
        tool = "test_error_handling" if n % 5 == 0 else "test_simple_text"
        send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
              "params": {"name": tool, "arguments": {}}})
        answer = answer_to(n)
        failed = answer.get("result", {}).get("isError")
        count("stdio " + ("failing" if failed else "ordinary"), failed == (tool == "test_error_handling"), answer)
        time.sleep(0.005)


# --- Sampling --------------------------------------------------------------------------------

def sample(pid):
    status = open(f"/proc/{pid}/status").read()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds, threads


def guarded(work):
    def run():
        try:
            work()
        except Exception as error:  # a client that stops is an error of the run
            count(work.__name__ + " stopped", False, repr(error))
    return run


# SOAK_WORKERS names the clients to run (comma-separated), to find which load moves a figure.
everyone = (http_ordinary, http_failing, http_tasks, http_tasks, stdio_mix)
chosen = os.environ.get("SOAK_WORKERS", "")
workers = [threading.Thread(target=guarded(w), daemon=True)
           for w in everyone if not chosen or w.__name__ in chosen.split(",")]
for worker in workers:
    worker.start()
started = time.monotonic()
rows = []
with open(os.path.join(out, "soak.csv"), "w") as csv:
    csv.write("seconds,http_rss_kib,http_fds,http_threads,stdio_rss_kib,stdio_fds,stdio_threads,calls\n")
    while time.monotonic() < deadline:
        time.sleep(10)
        with lock:
            calls = sum(v for k, v in counts.items() if k != "errors")
        row = (round(time.monotonic() - started),) + sample(http_server.pid) + sample(stdio_server.pid) + (calls,)
        rows.append(row)
        csv.write(",".join(map(str, row)) + "\n")
        csv.flush()
stop.set()
for worker in workers:
    worker.join(timeout=30)
stdio_server.stdin.close()
http_server.terminate()
stdio_server.wait(timeout=30)
http_server.wait(timeout=30)

# After a warm-up of a fifth of the run (at least a minute), each figure's least and most.
warm = [row for row in rows if row[0] >= max(60, rows[-1][0] / 5)] or rows
def span(i):
    values = [row[i] for row in warm]
    return {"min": min(values), "max": max(values), "first": values[0], "last": values[-1]}
print(json.dumps({
    "minutes": minutes,
    "samples": len(rows),
    "calls": counts,
    "errors": errors,
    "after_warm_up": {
        "http_rss_kib": span(1), "http_fds": span(2), "http_threads": span(3),
        "stdio_rss_kib": span(4), "stdio_fds": span(5), "stdio_threads": span(6),
    },
}, indent=1))
sys.exit(1 if counts.get("errors") else 0)
