#!/bin/sh
# deps.sh -- make sure the libraries epdbg builds against are installed.
#
# Checks each pkg-config module; when some are missing it names the Debian
# packages that provide them and, when run as root with apt-get available,
# installs them.  Otherwise it exits 1 with the command to run.
#
#   scripts/deps.sh [--check]      --check: report only, never install
set -u

# pkg-config module : Debian package
MODULES="ncursesw:libncurses-dev libzip:libzip-dev libcjson:libcjson-dev
openblas:libopenblas-dev libpcre2-8:libpcre2-dev check:check"

missing_pkgs=""
need_pkgconfig=0
if ! command -v pkg-config >/dev/null 2>&1; then
    need_pkgconfig=1
    for m in $MODULES; do missing_pkgs="$missing_pkgs ${m#*:}"; done
else
    for m in $MODULES; do
        mod=${m%%:*}
        pkg-config --exists "$mod" 2>/dev/null || missing_pkgs="$missing_pkgs ${m#*:}"
    done
fi
[ "$need_pkgconfig" -eq 1 ] && missing_pkgs="pkg-config$missing_pkgs"
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing_pkgs="gcc make$missing_pkgs"
# tmux: the TUI tests drive the real binary in it.  Not needed to build or
# run epdbg, so its absence alone never stops a build: the tests then say
# loudly that they skip the terminal tests.
missing_test_pkgs=""
command -v tmux >/dev/null 2>&1 || missing_test_pkgs=" tmux"

if [ -z "$missing_pkgs" ] && [ -n "$missing_test_pkgs" ]; then
    if [ "${1:-}" != "--check" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "epdbg: installing tmux for the TUI tests (running as root)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >&2 && apt-get install -y -q tmux >&2 ||
            echo "epdbg: could not install tmux: the TUI terminal tests will be skipped" >&2
    else
        echo "epdbg: tmux is missing (sudo apt-get install tmux): the TUI terminal tests will be skipped" >&2
    fi
    exit 0
fi
missing_pkgs="$missing_pkgs$missing_test_pkgs"

[ -z "$missing_pkgs" ] && exit 0

echo "epdbg: missing build dependencies: Debian packages$missing_pkgs" >&2
if [ "${1:-}" != "--check" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "epdbg: installing them with apt-get (running as root)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q$missing_pkgs >&2 || {
        echo "epdbg: apt-get failed; install the packages above and run make again" >&2
        exit 1
    }
    exit 0
fi
echo "epdbg: install them with:  sudo apt-get install$missing_pkgs" >&2
exit 1
