# Shared harness of the benchmark scripts (source it; it defines functions only).
#
#   bench_require MLIR_OPT IRDL           GNU time, mlir-opt and the IRDL file exist
#   bench_build_bins                      release ge-opt / ge-gen unless GE_OPT / GE_GEN set;
#                                         sets GE_OPT and GE_GEN
#   bench_graph FAMILY SIZE SEED DIR      path of the ge-gen graph (generated once; REGEN=1
#                                         regenerates)
#   bench_timed KEY ERRLOG CMD...         wall time of CMD into BENCH_BEST[KEY] (best kept;
#                                         FAIL on failure, its stderr appended to ERRLOG);
#                                         CMD's stderr is left in $BENCH_STDERR for parsing
#   bench_keep KEY SECONDS                keep the smaller of BENCH_BEST[KEY] and SECONDS
#   bench_since T0                        seconds (3 decimals) since $EPOCHREALTIME was T0:
#                                         wall times with microsecond resolution (GNU time's
#                                         %e has 10 ms, a tenth of a 10k cell)
#   bench_ratio A B / bench_growth T1 T2 N1 N2     formatted A/B and log(T2/T1)/log(N2/N1)
#   bench_ops FILE                        ascend ops in a generated .mlir file
#   bench_machine                         cores, load and the kernel's free page reporting,
#                                         for a results header
# Every script dies with its own name: set BENCH_NAME before sourcing.

bench_die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 1; }

bench_require() {
    [[ -x /usr/bin/time ]] || bench_die "GNU time missing (apt-get install -y time)"
    [[ -x $1 ]] || bench_die "mlir-opt not found at $1"
    [[ -f $2 ]] || bench_die "IRDL file $2 not found"
}

bench_build_bins() {
    local bins=()
    [[ -n ${GE_OPT:-} ]] || bins+=(--bin ge-opt)
    [[ -n ${GE_GEN:-} ]] || bins+=(--bin ge-gen)
    if ((${#bins[@]})); then
        echo "building release ${bins[*]}" >&2
        cargo build --release --quiet "${bins[@]}"
    fi
    GE_OPT=${GE_OPT:-target/release/ge-opt}
    GE_GEN=${GE_GEN:-target/release/ge-gen}
}

bench_graph() {
    local family=$1 size=$2 seed=$3 dir=$4
    local file="$dir/$family-$size-s$seed.mlir"
    if [[ ${REGEN:-0} == 1 || ! -s $file ]]; then
        "$GE_GEN" --family "$family" --ops "$size" --seed "$seed" --format mlir -o "$file"
    fi
    echo "$file"
}

bench_ops() { grep -c ' = "ascend\.' "$1" || true; }

# The machine a table was measured on. Free page reporting (a VM's balloon handing the
# guest's free memory back to the host) makes a page new to a process cost a host fault
# too: a 1M-op run needs far more of those than a 10k one, so the growth exponents depend
# on it (README, "Where the growth comes from"). `min_free_ms` (how long a block stays
# free before it is reported) is not in every kernel.
bench_machine() {
    local p=/sys/module/page_reporting/parameters reporting=off
    if [[ -r $p/page_reporting_order ]]; then
        reporting="order $(cat "$p/page_reporting_order")"
        [[ -r $p/min_free_ms ]] && reporting+=", after $(cat "$p/min_free_ms") ms"
    fi
    echo "$(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); free page reporting: $reporting"
}

declare -gA BENCH_BEST
BENCH_STDERR=""

bench_since() { LC_ALL=C awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }

bench_keep() {
    local key=$1 t=$2
    [[ ${BENCH_BEST[$key]:-} == FAIL ]] && return
    if [[ -z $t ]]; then BENCH_BEST[$key]=FAIL; return; fi
    if [[ -z ${BENCH_BEST[$key]:-} ]] || awk -v a="$t" -v b="${BENCH_BEST[$key]}" 'BEGIN { exit !(a < b) }'; then
        BENCH_BEST[$key]=$t
    fi
}

bench_timed() {
    local key=$1 errlog=$2; shift 2
    [[ ${BENCH_BEST[$key]:-} == FAIL ]] && return 1
    local tf
    tf=$(mktemp)
    [[ -n $BENCH_STDERR ]] && rm -f "$BENCH_STDERR"
    BENCH_STDERR=$(mktemp)
    local t0=$EPOCHREALTIME
    if /usr/bin/time -f "%e" -o "$tf" "$@" >/dev/null 2>"$BENCH_STDERR"; then
        bench_keep "$key" "$(bench_since "$t0")"
        rm -f "$tf"
        return 0
    fi
    { echo "== FAILED: $*"; head -c 4000 "$BENCH_STDERR"; } >>"$errlog"
    BENCH_BEST[$key]=FAIL
    rm -f "$tf"
    return 1
}

bench_ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "FAIL" || b == "FAIL" || a == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

bench_growth() {
    awk -v t1="$1" -v t2="$2" -v n1="$3" -v n2="$4" 'BEGIN {
        if (t1 == "" || t2 == "" || t1 == "FAIL" || t2 == "FAIL" || t1 + 0 == 0 || n1 == n2) print "-";
        else printf "%.2f", log(t2 / t1) / log(n2 / n1) }'
}
