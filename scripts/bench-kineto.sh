#!/bin/sh
# Throughput and memory of tally's Kineto reader against Python's json
# module, on the largest sample and on a generated trace, in one run on
# this machine. Not part of `go test`: it needs python3, /usr/bin/time and
# a few GB of free disk and memory (Python holds the whole file as objects;
# SKIP_PYTHON=1 leaves Python out).
#
#   scripts/bench-kineto.sh [SIZE] [WORKDIR]
#
# SIZE is the generated trace's size (default 1GiB); WORKDIR keeps the
# generated files (default a temporary directory, removed at the end).
# tally runs pinned to one core (taskset -c 0, GOMAXPROCS=1), except in the
# gzip comparison, which runs `tally report x.json.gz` as users do (all
# cores: it inflates on its own goroutine) against `zcat x.json.gz
# >/dev/null`, alternating, ROUNDS times each (default 5), and states the
# best and the median wall time of each: on a shared machine the best is
# the least disturbed.
set -eu

size=${1:-1GiB}
work=${2:-}
cleanup=
if [ -z "$work" ]; then
	work=$(mktemp -d)
	cleanup=$work
fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

pin=
command -v taskset >/dev/null && pin="taskset -c 0"

go build -o "$work/tally" ./cmd/tally
big=$work/big.json
[ -f "$big" ] || go run ./cmd/kinetogen -size "$size" -o "$big" >"$work/gen.json"
mtia=$work/mtia.json
[ -f "$mtia" ] || gzip -dc format/kineto/testdata/hta__mtia_training_rank_0.json.gz >"$mtia"

# tally: wall and CPU time, peak RSS of `tally report`.
run_tally() {
	GOMAXPROCS=1 /usr/bin/time -v $pin "$work/tally" report "$1" >"$work/report.txt" 2>"$work/time.txt" || true
	bytes=$(wc -c <"$1")
	secs=$(awk -F': ' '/Elapsed/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
	rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$work/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$work/time.txt")
	echo "$bytes $secs $cpu $rss" | awk '{printf "tally  %-10s %7.2f s wall %7.2f s cpu  %7.1f MB/s (wall)  %7.1f MB/s (cpu)  peak RSS %.1f MB\n", f, $2, $3, $1/$2/1e6, $1/$3/1e6, $4/1024}' f="$2"
	tally_mbs=$(echo "$bytes $secs" | awk '{print $1/$2/1e6}')
}

# Python: json.load of the same file.
run_python() {
	python3 - "$1" "$2" <<'EOF'
import json, os, sys, time
path, label = sys.argv[1], sys.argv[2]
t = time.perf_counter()
with open(path, "rb") as f:
    d = json.load(f)
el = time.perf_counter() - t
n = os.path.getsize(path)
print("python %-10s %7.2f s wall                  %7.1f MB/s (%d events)" % (label, el, n / el / 1e6, len(d["traceEvents"])))
EOF
}

for f in "$mtia:mtia" "$big:generated"; do
	file=${f%%:*}
	label=${f##*:}
	run_tally "$file" "$label"
	t=$tally_mbs
	[ -n "${SKIP_PYTHON:-}" ] && continue
	p=$(run_python "$file" "$label")
	echo "$p"
	echo "$p" | awk -v t="$t" '{for(i=1;i<=NF;i++) if($i=="MB/s") m=$(i-1); printf "ratio  %-10s tally/python = %.1fx\n", $2, t/m}'
done

# gzip: the generated trace compressed at level 6, tally against zcat.
gz=$work/big.json.gz
[ -f "$gz" ] || gzip -6 -c "$big" >"$gz"
rounds=${ROUNDS:-5}
: >"$work/zcat.t"
: >"$work/tallygz.t"
wall() { /usr/bin/time -f %e -o "$work/one.t" "$@"; cat "$work/one.t"; }
i=0
while [ $i -lt "$rounds" ]; do
	wall sh -c "zcat '$gz' >/dev/null" >>"$work/zcat.t"
	wall sh -c "'$work/tally' report '$gz' >/dev/null" >>"$work/tallygz.t"
	i=$((i + 1))
done
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.2f %.2f", a[1], a[int((NR+1)/2)]}'; }
z=$(stats "$work/zcat.t")
t=$(stats "$work/tallygz.t")
echo
echo "gzip ($(wc -c <"$gz") bytes, level 6, $rounds rounds alternating):"
echo "$z" | awk '{printf "zcat   best %.2f s  median %.2f s\n", $1, $2}'
echo "$t" | awk '{printf "tally  best %.2f s  median %.2f s\n", $1, $2}'
echo "$z $t" | awk '{printf "ratio  tally/zcat best %.2fx  median %.2fx\n", $3/$1, $4/$2}'

echo
echo "go benchmark (reader only, from disk, one core):"
TALLY_KINETO_BIG=$big go test -run '^$' -bench 'ReadBig|ReadMTIA' -benchtime 2x -benchmem -cpu 1 ./format/kineto/ | grep Benchmark
