#!/bin/sh
# run.sh BUILD_DIR -- the speed and memory measurements quoted in the README.
set -eu
B=${1:-build/release}
echo "# $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)"
"$B/bench/dispatch" 10000 50
"$B/bench/dispatch" 10000 50 hooks
"$B/bench/memory" 256
"$B/bench/session" 10000 256
"$B/bench/tui" 100000 1000
"$B/bench/profile" 11
"$B/bench/load"
"$B/bench/kernels"
