#!/bin/sh
# check-layers.sh -- the layers of the source tree, checked.
#
#   symbolic/ <- interp/ <- profiler/ <- debugger/ <- {tui/, cli/} <- main.c
#
# Each folder may use only its own layer and the ones below it; tui/ and cli/
# are siblings and use neither each other.  tests/, bench/, fuzz/ and
# examples/ stand outside the stack and may use any layer.
#
#   scripts/check-layers.sh            the includes and the README's Layout
#   scripts/check-layers.sh BUILD_DIR  also the objects in BUILD_DIR (nm):
#                                      calls that bypass headers, and two
#                                      files of different folders calling
#                                      each other
#
# Every broken rule is printed as FILE:LINE: what, and the rule; the exit
# status is 1 when any rule is broken.  `make check` runs it.
set -eu
cd "$(dirname "$0")/.."

STACK='symbolic <- interp <- profiler <- debugger <- {tui, cli} <- main.c'
LAYERS='symbolic interp profiler debugger tui cli'

# The layer a path belongs to, and its rank (higher ranks may use lower).
layer_of() {
    case "$1" in
    symbolic/*) echo symbolic ;;
    interp/*) echo interp ;;
    profiler/*) echo profiler ;;
    debugger/*) echo debugger ;;
    tui/*) echo tui ;;
    cli/*) echo cli ;;
    main.c) echo main ;;
    *) echo outside ;;
    esac
}

sources() {
    for d in $LAYERS; do
        [ -d "$d" ] && find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \)
    done | sort
    echo main.c
}

# Rank and sibling rules in one awk function, shared by both checks.
AWK_RULES='
function rank(l) {
    if (l == "symbolic") return 0
    if (l == "interp") return 1
    if (l == "profiler") return 2
    if (l == "debugger") return 3
    if (l == "tui" || l == "cli") return 4
    if (l == "main") return 5
    return -1
}
function layer(p) {
    if (p ~ /^symbolic\//) return "symbolic"
    if (p ~ /^interp\//) return "interp"
    if (p ~ /^profiler\//) return "profiler"
    if (p ~ /^debugger\//) return "debugger"
    if (p ~ /^tui\//) return "tui"
    if (p ~ /^cli\//) return "cli"
    if (p == "main.c" || p == "main.o") return "main"
    return "outside"
}
# Whether code of layer a may use layer b.
function may_use(a, b) {
    if (b == "outside") return a == "outside"
    if (a == "outside" || a == b) return 1
    if ((a == "tui" && b == "cli") || (a == "cli" && b == "tui")) return 0
    return rank(b) <= rank(a)
}
'

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1. includes ---------------------------------------------------------
# A quoted include resolves next to the file first, then from the top (the
# compiler's -I.).  Curses belongs to tui/screen.c alone: the panes draw on a
# canvas, so they can be tested headless.
for f in $(sources); do
    dir=$(dirname "$f")
    grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
        n=${line%%:*}
        text=${line#*:}
        case "$text" in
        *'"'*)
            name=$(printf '%s\n' "$text" | sed 's/.*"\(.*\)".*/\1/')
            if [ -f "$dir/$name" ]; then
                path=$(realpath --relative-to=. "$dir/$name")
            elif [ -f "$name" ]; then
                path=$name
            else
                echo "$f:$n: includes \"$name\", which is not in the tree"
                continue
            fi
            printf '%s %s %s %s\n' "$f" "$n" "$path" "$name"
            ;;
        *'<curses.h>'* | *'<ncurses.h>'* | *'<ncursesw/'*)
            [ "$f" = tui/screen.c ] || echo "$f:$n: includes curses: only tui/screen.c talks to curses (the panes draw on a canvas)"
            ;;
        esac
    done
done > "$tmp/includes"

grep -v '^[^ ]* [0-9]* ' "$tmp/includes" > "$tmp/bad" || true
grep '^[^ ]* [0-9]* ' "$tmp/includes" | awk "$AWK_RULES"'
{
    a = layer($1); b = layer($3)
    if (!may_use(a, b))
        printf "%s:%s: includes \"%s\": %s/ may not depend on %s/ (layers: %s)\n", $1, $2, $4, a, b, STACK
}' STACK="$STACK" >> "$tmp/bad"
if [ -s "$tmp/bad" ]; then
    cat "$tmp/bad"
    fail=1
fi

# ---- 2. the README's Layout names every source file -------------------------
# The Layout section is the newcomer's map; a file it does not name is one
# nobody can find.  Names may be globs (pane_*.c, session.[ch]); a name with
# a folder (ops/*.c) matches the end of a path, one without any file of that
# name.
awk '/^## Layout/ {on = 1; next} /^## / {on = 0} on' README.md |
    grep -o '[A-Za-z0-9_*./-]*\.\(c\|h\|def\|\[ch\]\)' | sort -u > "$tmp/named"
for f in $(sources); do
    base=${f##*/}
    found=0
    while IFS= read -r pat; do
        # shellcheck disable=SC2254
        case "$pat" in
        */*) case "$f" in $pat | */$pat) found=1 ;; esac ;;
        *) case "$base" in $pat) found=1 ;; esac ;;
        esac
        [ "$found" = 1 ] && break
    done < "$tmp/named"
    [ "$found" = 1 ] || { echo "README.md: the Layout section does not name $f"; fail=1; }
done
for d in $LAYERS; do
    [ -d "$d" ] || continue
    awk '/^## Layout/ {on = 1; next} /^## / {on = 0} on' README.md | grep -q "$d/" ||
        { echo "README.md: the Layout section has no paragraph for $d/"; fail=1; }
done

# ---- 3. the objects: who calls whom ------------------------------------------
if [ $# -ge 1 ]; then
    build=$1
    # only the objects of today's sources: a moved file leaves its old
    # object behind in the build folder
    for c in $(sources | grep '\.c$'); do
        o=${c%.c}.o
        if [ ! -f "$build/$o" ]; then
            echo "$build/$o: missing: build first" >&2
            exit 2
        fi
        # "D symbol" for what the object defines, "U symbol" for what it uses
        nm "$build/$o" | awk -v obj="$o" '
            NF == 3 && $2 ~ /^[TDBRCVW]$/ { print "D", obj, $3 }
            NF == 2 && $1 == "U" { print "U", obj, $2 }'
    done > "$tmp/symbols"
    awk "$AWK_RULES"'
    $1 == "D" { def[$3] = $2; next }
    $1 == "U" { use[++n] = $2 " " $3 }
    END {
        for (i = 1; i <= n; i++) {
            split(use[i], p, " ")
            from = p[1]; sym = p[2]
            if (!(sym in def) || def[sym] == from) continue
            to = def[sym]
            k = from SUBSEP to
            if (count[k]++ < 4)
                edge[k] = edge[k] (edge[k] == "" ? "" : " ") sym
            else if (count[k] == 5)
                edge[k] = edge[k] " ..."
        }
        for (k in edge) {
            split(k, p, SUBSEP)
            from = p[1]; to = p[2]
            if (!may_use(layer(from), layer(to)))
                printf "%s: calls %s (%s): %s/ may not depend on %s/ (layers: %s)\n",
                       from, to, edge[k], layer(from), layer(to), STACK
            dfrom = from; sub(/\/[^\/]*$/, "", dfrom)
            dto = to; sub(/\/[^\/]*$/, "", dto)
            if (dfrom != dto && from < to && ((to SUBSEP from) in edge))
                printf "%s <-> %s: files of different folders call each other (%s / %s)\n",
                       from, to, edge[k], edge[to SUBSEP from]
        }
    }' STACK="$STACK" "$tmp/symbols" | sed 's/\.o\b/.c/g' | sort > "$tmp/bad"
    if [ -s "$tmp/bad" ]; then
        cat "$tmp/bad"
        fail=1
    fi
fi

if [ "$fail" = 0 ]; then
    echo "layers: every include and call points down ($STACK)"
fi
exit "$fail"
