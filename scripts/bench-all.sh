#!/bin/sh
# Every speed case of issue 24 in one run, each beside its baseline on the
# same file and machine, printed as the README's speed table: case, tally,
# baseline, ratio. It generates its inputs (cmd/nsysgen, cmd/hrxgen,
# cmd/kinetogen) and needs /usr/bin/time; sqlite3, python3 and taskset are
# used where present (a row without its baseline says why). Not for CI: the
# default inputs take about 2.5 GB of disk and several minutes.
#
#   scripts/bench-all.sh                 # the issue's sizes
#   BENCH_QUICK=1 scripts/bench-all.sh   # small inputs, a quick check
#
# Sizes and rounds (defaults; BENCH_QUICK=1 shrinks them):
#   BENCH_NSYS_KERNELS=10000000   kernel rows of the nsys export (+ as many launches, NVTX ranges)
#   BENCH_HRX_SIZE=300MB          hrx kept trace (hrxgen -size)
#   BENCH_KINETO_SIZE=200MiB      Kineto JSON (kinetogen -size; 200MiB is 209 MB)
#   BENCH_RANKS=64                Kineto rank traces in one directory,
#   BENCH_RANK_SIZE=1MiB          each this size
#   BENCH_STARTUP_RUNS=100        runs of `tally version` timed as one loop
#   BENCH_ROUNDS=3                runs of every other command; the best wall time is shown
#   BENCH_PAIRS=9                 rounds of the paired rows (hrx against grep; the Kineto file
#                                 and the directory on one core against all, with the
#                                 directory's ceiling): the commands
#                                 run in turn, and a ratio is the median of the rounds' ratios
#   BENCH_DIR=DIR                 keep the generated inputs in DIR (reused when present)
#
# Times are wall seconds of the best round, with that round's CPU seconds
# (user + system) and peak RSS. "one core" runs under taskset -c 0 with
# GOMAXPROCS=1; other runs use every core. Ratio is tally's wall time over
# the baseline's (below 1: tally is faster), or, for the core rows, the
# speed-up of every core over one. The paired rows (hrx against grep, the
# Kineto file and the directory on one core against all, and the
# two-process ceiling beside the directory)
# run their commands in turn and give the median of the rounds' ratios
# first: on a machine whose load moves, two best-of-N times taken minutes
# apart can differ by a third.
set -eu

if [ -n "${BENCH_QUICK:-}" ]; then
	: "${BENCH_NSYS_KERNELS:=200000}" "${BENCH_HRX_SIZE:=20MB}" "${BENCH_KINETO_SIZE:=20MiB}"
	: "${BENCH_RANKS:=16}" "${BENCH_RANK_SIZE:=256KiB}" "${BENCH_STARTUP_RUNS:=20}" "${BENCH_ROUNDS:=1}" "${BENCH_PAIRS:=3}"
fi
nsys_kernels=${BENCH_NSYS_KERNELS:-10000000}
hrx_size=${BENCH_HRX_SIZE:-300MB}
kineto_size=${BENCH_KINETO_SIZE:-200MiB}
ranks=${BENCH_RANKS:-64}
rank_size=${BENCH_RANK_SIZE:-1MiB}
startup_runs=${BENCH_STARTUP_RUNS:-100}
rounds=${BENCH_ROUNDS:-3}
pairs=${BENCH_PAIRS:-9}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=${BENCH_DIR:-}
cleanup=
if [ -z "$work" ]; then
	work=$(mktemp -d)
	cleanup=$work
fi
mkdir -p "$work"
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
[ -x /usr/bin/time ] || { echo "bench-all: needs /usr/bin/time (GNU time)" >&2; exit 1; }
note() { echo "bench-all: $*" >&2; }

pin=
command -v taskset >/dev/null && pin="taskset -c 0"
[ -n "$pin" ] || note "no taskset: the one-core rows run with GOMAXPROCS=1 only"

# Tools.
bin=$work/bin
mkdir -p "$bin"
go build -o "$bin/tally" ./cmd/tally
go build -o "$bin/tally-full" ./cmd/tally-full # tally hands the nsys row to it
go build -o "$bin/nsysgen" ./cmd/nsysgen
go build -o "$bin/hrxgen" ./cmd/hrxgen
go build -o "$bin/kinetogen" ./cmd/kinetogen
# The floor of any Go program's start on this machine, for the start-up rows.
mkdir -p "$work/hello"
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >"$work/hello/main.go"
printf 'module hello\n\ngo 1.21\n' >"$work/hello/go.mod"
(cd "$work/hello" && GOFLAGS= go build -o "$bin/hello" .)

# Inputs (kept in BENCH_DIR between runs).
nsys=$work/nsys-$nsys_kernels.sqlite
[ -f "$nsys" ] || { note "generating $nsys"; "$bin/nsysgen" -kernels "$nsys_kernels" -o "$nsys"; }
hrx=$work/hrx-$hrx_size.kept
[ -f "$hrx" ] || { note "generating $hrx"; "$bin/hrxgen" -o "$hrx" -size "$hrx_size" -prefill 2 2>/dev/null; }
kineto=$work/kineto-$kineto_size.json
[ -f "$kineto" ] || { note "generating $kineto"; "$bin/kinetogen" -size "$kineto_size" -o "$kineto" >/dev/null; }
rankdir=$work/ranks-$ranks-$rank_size
if [ ! -d "$rankdir" ]; then
	note "generating $ranks rank traces in $rankdir"
	mkdir -p "$rankdir.tmp"
	i=0
	while [ $i -lt "$ranks" ]; do
		"$bin/kinetogen" -size "$rank_size" -seed $((i + 1)) -o "$rankdir.tmp/rank$i.json" >/dev/null
		i=$((i + 1))
	done
	mv "$rankdir.tmp" "$rankdir"
fi
tiny=$work/tiny-decode1.kept
[ -f "$tiny" ] || "$bin/hrxgen" -o "$tiny" -decode 1 -prefill 0 2>/dev/null
for f in "$nsys" "$hrx" "$kineto" "$rankdir"/*; do cat "$f" >/dev/null; done # into the page cache

# timed NAME CMD...: one run of CMD (stdout to a file); appends its wall
# seconds, user and system CPU seconds and peak RSS to $work/NAME.runs.
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || {
		note "failed: $*"
		cat "$work/err.txt" >&2
		exit 1
	}
	tail -n 1 "$work/time.txt" >>"$work/$name.runs"
}
# best NAME: the run of NAME with the least wall time, in $NAME_{wall,cpu,rss}.
best() {
	line=$(sort -n "$work/$1.runs" | head -n 1)
	eval "${1}_wall=$(echo "$line" | awk '{print $1}')"
	eval "${1}_cpu=$(echo "$line" | awk '{printf "%.2f", $2 + $3}')"
	eval "${1}_rss=$(echo "$line" | awk '{printf "%.0f", $4 / 1024}')"
}
# measure NAME CMD...: runs CMD $rounds times and keeps the best.
measure() {
	name=$1
	shift
	: >"$work/$name.runs"
	r=0
	while [ $r -lt "$rounds" ]; do
		timed "$name" "$@"
		r=$((r + 1))
	done
	best "$name"
}
# paired A B: runs the shell functions run_A and run_B in turn, $pairs
# times, so that both see the same moments of a noisy machine; keeps each
# one's best, and in $A_per_B the median of the rounds' A/B wall-time
# ratios and in $A_per_B_cpu that of their CPU-time ratios.
paired() {
	: >"$work/$1.runs"
	: >"$work/$2.runs"
	r=0
	while [ $r -lt "$pairs" ]; do
		"run_$1"
		"run_$2"
		r=$((r + 1))
	done
	best "$1"
	best "$2"
	eval "${1}_per_${2}=$(paste -d' ' "$work/$1.runs" "$work/$2.runs" | awk '{ if ($5 > 0) printf "%.4f\n", $1 / $5 }' | median)"
	eval "${1}_per_${2}_cpu=$(paste -d' ' "$work/$1.runs" "$work/$2.runs" | awk '{ if ($6 + $7 > 0) printf "%.4f\n", ($2 + $3) / ($6 + $7) }' | median)"
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fmt_ratio() { awk -v r="$1" 'BEGIN { printf "%.2f×", r }'; }
val() { eval "echo \${$1}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }'; }
mb() { awk -v n="$(wc -c <"$1")" 'BEGIN { printf "%.0f MB", n / 1e6 }'; }
rows=$work/rows.md
: >"$rows"
row() { echo "| $1 | $2 | $3 | $4 |" >>"$rows"; }
t() { echo "$(val "$1_wall") s, $(val "$1_cpu") CPU-s, $(val "$1_rss") MiB"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)

# nsys: tally against sqlite3 on the same export.
note "nsys"
measure nsys "$bin/tally" report "$nsys"
if command -v sqlite3 >/dev/null; then
	measure sqlsum sqlite3 "$nsys" 'SELECT sum("end" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL'
	measure sqljoin sqlite3 "$nsys" 'SELECT s.value, sum(k."end" - k.start), count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value'
	row "nsys SQLite, $nsys_kernels kernels (+ as many launches, NVTX ranges), $(mb "$nsys")" "\`tally report\` $(t nsys)" "\`sqlite3\` grouped join on StringIds $(t sqljoin)" "$(ratio "$nsys_wall" "$sqljoin_wall")"
	row "nsys, the same file" "" "\`sqlite3 'select sum(end-start)'\` $(t sqlsum)" "$(ratio "$nsys_wall" "$sqlsum_wall")"
else
	row "nsys SQLite, $nsys_kernels kernels, $(mb "$nsys")" "\`tally report\` $(t nsys)" "no sqlite3 on this machine" "–"
fi

# hrx: tally against grep -c.
note "hrx"
run_hrx() { timed hrx "$bin/tally" report --manifests examples/kernels "$hrx"; }
run_grep() { timed grep grep -c 'hrx debug serial' "$hrx"; }
paired hrx grep
row "hrx kept trace, $(mb "$hrx")" "\`tally report\` $(t hrx)" "\`grep -c 'hrx debug serial'\` $(t grep)" "$(fmt_ratio "$hrx_per_grep") (median of $pairs paired rounds; best against best $(ratio "$hrx_wall" "$grep_wall"))"

# Kineto on one core, against Python's json.load, and on every core
# against one (paired: the split read's speed-up is a wall-time ratio).
note "kineto"
run_kin1() { timed kin1 env GOMAXPROCS=1 $pin "$bin/tally" report "$kineto"; }
run_kin2() { timed kin2 "$bin/tally" report "$kineto"; }
paired kin1 kin2
kbytes=$(wc -c <"$kineto")
per_cpu=$(awk -v n="$kbytes" -v c="$kin1_cpu" 'BEGIN { printf "%.0f", n / c / 1e6 }')
if command -v python3 >/dev/null; then
	measure py python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$kineto"
	row "Kineto JSON, $(mb "$kineto"), one core" "\`tally report\` $(t kin1): $per_cpu MB per CPU-second" "Python \`json.load\` $(t py)" "$(ratio "$kin1_wall" "$py_wall")"
else
	row "Kineto JSON, $(mb "$kineto"), one core" "\`tally report\` $(t kin1): $per_cpu MB per CPU-second" "no python3 on this machine" "–"
fi
# The dispatch log's spill to TMPDIR on this file (73 bytes a record).
"$bin/tally" report --json "$kineto" >"$work/kineto.json"
spilled=$(awk '/"device records spilled to a temporary file"/ {getline; gsub(/[^0-9]/, ""); print; exit}' "$work/kineto.json")
spilled=${spilled:-0}
row "Kineto dispatch log spilled to TMPDIR, the same file" "$spilled records, $(awk -v n="$spilled" 'BEGIN { printf "%.1f MB", n * 73 / 1e6 }') (73 B each past the log's 8 MiB; \`--spill-limit\` bounds it)" "–" "–"
# One plain Kineto file: every core against one (its events parsed in
# chunks on every core, format/kineto/split.go).
row "the same Kineto file, $(nproc 2>/dev/null || echo all) cores against one" "$(t kin2)" "one core: $(t kin1)" "$(fmt_ratio "$kin1_per_kin2") faster (median of $pairs paired rounds; best against best $(ratio "$kin1_wall" "$kin2_wall")), $(fmt_ratio "$(awk -v r="$kin1_per_kin2_cpu" 'BEGIN { print (r > 0 ? 1 / r : 0) }')") the CPU-s"

# A directory of ranks: every core against one, and the directory against
# one tally per file.
note "ranks"
run_dir1() { timed dir1 env GOMAXPROCS=1 $pin "$bin/tally" report "$rankdir"; }
run_dir2() { timed dir2 "$bin/tally" report "$rankdir"; }
# What the machine gives this work at best: half the ranks each in two
# separate one-core processes, which share nothing, run one after the other
# on one core and then both at once. Their speed-up is the ceiling for the
# directory's (a VM whose second core is shared with its neighbours gives
# less than 2×); taken in the same rounds as the directory's.
halves=$work/ranks-$ranks-$rank_size.halves
if [ ! -d "$halves" ]; then
	mkdir -p "$halves.tmp/a" "$halves.tmp/b"
	i=0
	for f in "$rankdir"/*; do
		if [ $((i % 2)) -eq 0 ]; then ln -s "$f" "$halves.tmp/a/"; else ln -s "$f" "$halves.tmp/b/"; fi
		i=$((i + 1))
	done
	mv "$halves.tmp" "$halves"
fi
run_half1() { timed half1 env GOMAXPROCS=1 $pin sh -c '"$0" report "$1/a" >/dev/null && "$0" report "$1/b" >/dev/null' "$bin/tally" "$halves"; }
run_half2() { timed half2 env GOMAXPROCS=1 sh -c '"$0" report "$1/a" >/dev/null & a=$!; "$0" report "$1/b" >/dev/null; b=$?; wait $a && [ $b -eq 0 ]' "$bin/tally" "$halves"; }
for n in dir1 dir2 half1 half2; do : >"$work/$n.runs"; done
r=0
while [ $r -lt "$pairs" ]; do
	run_dir1
	run_dir2
	run_half1
	run_half2
	r=$((r + 1))
done
for n in dir1 dir2 half1 half2; do best $n; done
per_round() { paste -d' ' "$work/$1.runs" "$work/$2.runs" | awk '{ if ($5 > 0) printf "%.4f\n", $1 / $5 }'; }
dir1_per_dir2=$(per_round dir1 dir2 | median)
dir1_per_dir2_cpu=$(paste -d' ' "$work/dir1.runs" "$work/dir2.runs" | awk '{ if ($6 + $7 > 0) printf "%.4f\n", ($2 + $3) / ($6 + $7) }' | median)
half1_per_half2=$(per_round half1 half2 | median)
share=$(paste -d' ' "$work/dir1.runs" "$work/dir2.runs" "$work/half1.runs" "$work/half2.runs" | awk '{ if ($5 > 0 && $13 > 0 && $9 > 0) printf "%.4f\n", ($1 / $5) / ($9 / $13) }' | median)
# Beside the speed-up, what reading in parallel costs: the CPU-s of every
# core over one core's (1.00×: nothing). On a loaded machine, where wall
# times say little, the speed-up is at most cores / that ratio.
row "$ranks Kineto ranks of $rank_size, one directory, $(nproc 2>/dev/null || echo all) cores against one" "$(t dir2)" "one core: $(t dir1)" "$(fmt_ratio "$dir1_per_dir2") faster (median of $pairs paired rounds; best against best $(ratio "$dir1_wall" "$dir2_wall")), $(fmt_ratio "$(awk -v r="$dir1_per_dir2_cpu" 'BEGIN { print (r > 0 ? 1 / r : 0) }')") the CPU-s"
row "the same ranks, half in each of two one-core processes: both at once against one after the other" "$(t half2)" "one after the other: $(t half1)" "$(fmt_ratio "$half1_per_half2") faster, the ceiling for the row above, which reaches $(awk -v r="$share" 'BEGIN { printf "%.0f%%", r * 100 }') of it (medians of the same rounds)"
measure loop sh -c 'for f in "$1"/*; do "$2" report "$f" >/dev/null || exit 1; done' sh "$rankdir" "$bin/tally"
row "the same $ranks ranks, one \`tally report\` per file" "$(t loop)" "the directory at once: $(t dir2)" "$(ratio "$loop_wall" "$dir2_wall")"

# Start-up: per run, from a loop of $startup_runs, against a Go program
# that only prints.
note "start-up"
per_run() { # NAME CMD...: wall and CPU ms per run of a loop
	name=$1
	shift
	measure "$name" sh -c 'i=0; while [ $i -lt "$0" ]; do "$@" >/dev/null || exit 1; i=$((i + 1)); done' "$startup_runs" "$@"
	eval "${name}_wall=$(awk -v w="$(val "${name}_wall")" -v n="$startup_runs" 'BEGIN { printf "%.1f", w * 1000 / n }')"
	eval "${name}_cpu=$(awk -v c="$(val "${name}_cpu")" -v n="$startup_runs" 'BEGIN { printf "%.1f", c * 1000 / n }')"
}
ms() { echo "$(val "$1_wall") ms, $(val "$1_cpu") CPU-ms"; }
per_run ver "$bin/tally" version
per_run rep "$bin/tally" report "$tiny"
per_run hello "$bin/hello"
row "start-up: \`tally version\`, per run of $startup_runs" "$(ms ver)" "a Go program that only prints: $(ms hello)" "$(ratio "$ver_cpu" "$hello_cpu") (CPU)"
row "\`tally report\` of a $(wc -c <"$tiny")-byte hrx trace, per run" "$(ms rep)" "the same Go program" "$(ratio "$rep_cpu" "$hello_cpu") (CPU)"
# For scale: a Go program of tally's kind and size that only prints its
# version, the Go toolchain's own linker.
golink=$(go env GOTOOLDIR)/link
if [ -x "$golink" ]; then
	per_run golink "$golink" -V
	row "start-up for scale: tally ($(mb "$bin/tally")) against Go's own linker, \`link -V\` ($(mb "$golink"))" "\`tally version\` $(ms ver)" "\`link -V\`: $(ms golink)" "$(ratio "$ver_cpu" "$golink_cpu") (CPU)"
fi

load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || uname -m)
echo "Machine: $(nproc 2>/dev/null || echo '?') CPUs ($cpu), $(uname -sr); load average $load_before before, $load_after after; best of $rounds rounds, paired rows $pairs rounds; $(go version | cut -d' ' -f3)."
echo
echo "| case | tally | baseline | ratio |"
echo "|---|---|---|---|"
cat "$rows"
