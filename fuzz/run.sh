#!/bin/sh
# run.sh BUILD SECONDS NAME... -- run each harness BUILD/fuzz_NAME for
# SECONDS on BUILD/corpus/NAME (new inputs are added there), with its
# dictionary fuzz/NAME.dict when there is one (or that of the format it holds), one after another at low
# priority; print the executions of each.  Crashes are written to
# BUILD/crashes/NAME-*; the exit status is 1 if any harness found one.
set -u
b=$1 secs=$2
shift 2
mkdir -p "$b/crashes" "$b/logs"
status=0
for h in "$@"; do
    # an archive holds program JSON, a replay file .npy members
    case $h in
        pipeline) d=program ;;
        record) d=npy ;;
        *) d=$h ;;
    esac
    dict=
    [ -f "fuzz/$d.dict" ] && dict="-dict=fuzz/$d.dict"
    # per-harness limits: inputs of a realistic size, a second is slow
    case $h in
        pipeline|zip) len=262144 ;;
        program) len=131072 ;;
        # expressions in archives are a few hundred characters, and the
        # engine's worst inputs are short (its blow-up was 141); longer
        # ones ran at a quarter of the speed without reaching new code
        sym) len=1024 ;;
        *) len=8192 ;;
    esac
    log="$b/logs/$h.log"
    # -timeout is wall-clock time: at nice 19 beside two compiles, an input
    # that takes 0.5 s alone (fuzz_sym's slowest) was once stopped at 15 s
    # as a "timeout".  30 s still catches a hang; replay a timeout alone
    # (`build/fuzz/fuzz_NAME FILE`) before calling it a finding.
    # ASan records no stack of each allocation (30 frames by default):
    # unwinding and storing them took a third of the time of the
    # allocation-heavy harnesses (sym, program), and 8 frames still 28 %
    # of fuzz_sym's.  A report then lacks the allocation's stack; replaying
    # the finding by hand prints it whole.
    ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0} \
    nice -n 19 "$b/fuzz_$h" -max_total_time="$secs" -max_len=$len -timeout=${FUZZ_TIMEOUT:-30} -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$b/crashes/$h-" $dict "$b/corpus/$h" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ $rc -eq 0 ]; then
        echo "fuzz $h: ${execs:-?} executions in ${secs}s, no finding"
    else
        echo "fuzz $h: FINDING (exit $rc) after ${execs:-?} executions, see $log and $b/crashes/"
        grep -m3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
        status=1
    fi
done
exit $status
