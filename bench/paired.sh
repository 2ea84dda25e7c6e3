#!/bin/sh
# bench/paired.sh [ROUNDS]: the generated code against the hand-written
# evaluator (and, on the standard pack, cel-go) on the standard packs, as
# ratios measured in pairs. Each round runs, for each pack and input, one
# process pinned to one CPU (taskset) that runs the engines back to back;
# rounds alternate between CPUs 0 and 1. The ratios generated/hand and
# celgo/generated of each round are taken, and the median and range of
# those ratios printed, with the medians of cpu-ns/op.
#
# Why pairs: on this project's VMs a process lands on a CPU that runs at
# one of two speeds (about 300 or 450 ns for the same benchmark and binary,
# whichever engine), and the state changes from minute to minute, so that
# medians of separate runs move by 10-30% between two sets of rounds. Two
# engines measured within one process, a second apart, share the state;
# their ratio moves by a few per cent. Needs taskset (util-linux) and two
# CPUs. Default 16 rounds (about two minutes).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go test -c -o "$tmp/standard.test" ./bench/standardpack
go test -c -o "$tmp/facts.test" ./bench/standardpackfacts
i=0
while [ "$i" -lt "$rounds" ]; do
	cpu=$((i % 2))
	for in in allow warn block-late; do
		(cd bench/standardpack && taskset -c "$cpu" "$tmp/standard.test" -test.run '^$' \
			-test.bench "^BenchmarkStandard/(generated|celgo|hand)/$in\$" -test.benchtime 100ms) | grep '^Benchmark' >>"$tmp/out.txt"
		(cd bench/standardpackfacts && taskset -c "$cpu" "$tmp/facts.test" -test.run '^$' \
			-test.bench "^BenchmarkFacts/(generated|hand)/$in\$" -test.benchtime 100ms) | grep '^Benchmark' >>"$tmp/out.txt"
	done
	i=$((i + 1))
done
# Per pack and input, the generated engine's line comes first (then, in
# the standard pack, cel-go's), then the hand-written one's.
printf '%-28s %9s %9s %9s %9s %14s %9s %14s\n' pack/input generated hand celgo gen/hand range celgo/gen range
awk '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function stats(name, key, m,    i, a, lo, hi) {
	lo = 1e9; hi = 0
	for (i = 1; i <= m; i++) { a[i] = val[name, key, i]; if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
	return sprintf("%.2f %.2f..%.2f", median(a, m), lo, hi)
}
{
	split($1, p, "/"); key = p[1] "/" p[3]; sub(/-[0-9]+$/, "", key); eng = p[2]
	for (f = 2; f <= NF; f++) if ($f == "cpu-ns/op") v = $(f-1)
	if (eng == "generated") { n[key]++; g = v; val["gen", key, n[key]] = v; keys[key] = 1; next }
	if (eng == "celgo") { val["celgo", key, n[key]] = v; val["celgo/gen", key, n[key]] = v / g; cel[key] = 1; next }
	val["hand", key, n[key]] = v; val["gen/hand", key, n[key]] = g / v
}
END {
	for (k in keys) {
		m = n[k]
		split(stats("gen", k, m), G, " "); split(stats("hand", k, m), H, " "); split(stats("gen/hand", k, m), R, " ")
		c = "-"; cr = "-"; crr = "-"
		if (k in cel) { split(stats("celgo", k, m), C, " "); split(stats("celgo/gen", k, m), CR, " "); c = sprintf("%.1f", C[1]); cr = sprintf("%.1f", CR[1]); crr = CR[2] }
		printf "%-28s %9.1f %9.1f %9s %9s %14s %9s %14s\n", k, G[1], H[1], c, R[1], R[2], cr, crr
	}
}' "$tmp/out.txt" | sort
