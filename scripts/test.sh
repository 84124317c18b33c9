#!/usr/bin/env bash
# Runs every test of the workspace: formatting, lints, unit, integration, UI (trybuild) and doc
# tests. Installs whatever the tests need first, so that it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== toolchain"
cargo --version
rustc --version
rustup component list --installed 2>/dev/null | grep -E "^(rustfmt|clippy)" || true
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    rustup component add "$component"
  fi
done

echo "== format"
cargo fmt --all -- --check

echo "== lints"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

echo "== tests"
cargo test --workspace --locked
