#!/bin/sh
# End-to-end speed and memory of `tally report` on a generated hrx kept trace,
# timed in the same run as `grep -c 'hrx debug serial'` on the same file.
#
#   scripts/bench-hrx.sh [SIZE]      SIZE as hrxgen takes it, default 1GB
#
# Both tools read the file from the page cache (it is read once before timing).
set -eu
size=${1:-1GB}
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/tally" ./cmd/tally
go build -o "$dir/hrxgen" ./cmd/hrxgen
"$dir/hrxgen" -o "$dir/trace.kept" -size "$size" -prefill 2
cat "$dir/trace.kept" > /dev/null

best() { # best of three wall-clock seconds of "$@"
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" > "$dir/out"
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
g=$(best grep -c 'hrx debug serial' "$dir/trace.kept")
t=$(best "$dir/tally" report --manifests examples/kernels "$dir/trace.kept")
bytes=$(stat -c %s "$dir/trace.kept")
echo "file: $bytes bytes"
echo "grep -c:      ${g}s"
echo "tally report: ${t}s ($(echo "$bytes / $t / 1000000" | bc) MB/s)"
echo "ratio tally/grep: $(echo "scale=2; $t / $g" | bc)"
/usr/bin/time -f "tally report peak RSS: %M KiB" "$dir/tally" report "$dir/trace.kept" > /dev/null
