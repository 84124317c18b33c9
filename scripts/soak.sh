#!/usr/bin/env bash
# A long mixed run (30 minutes by default; SOAK_MINUTES) against the conformance fixture server
# over Streamable HTTP and over stdio: ordinary, failing and task tools, cancellations, every
# answer checked. Samples each server's resident memory, open file descriptors and threads every
# 10 s into target/soak/soak.csv, plots them into bench/soak/soak.png and prints a summary.
# Not part of the test command; RELIABILITY.md publishes its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${SOAK_MINUTES:-30}
OUT=${CARGO_TARGET_DIR:-target}/soak
if ! command -v gnuplot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gnuplot-nox
fi
cargo build -q --release --locked -p buril-conformance-server
mkdir -p "$OUT"
status=0
python3 bench/soak/soak.py "${CARGO_TARGET_DIR:-target}/release/conformance-server" "$MINUTES" "$OUT" \
  | tee "$OUT/summary.json" || status=$?
gnuplot -e "csv='$OUT/soak.csv'; png='bench/soak/soak.png'" bench/soak/soak.gp
echo "plot: bench/soak/soak.png"
exit "$status"
