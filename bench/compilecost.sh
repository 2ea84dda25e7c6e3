#!/bin/sh
# bench/compilecost.sh [N...]: the cost of compiling synthetic packs of N
# rules (default 1000 10000): `oarc gen` wall time and peak memory, the
# size of the generated file, and the `go build` time of the generated
# package (its dependencies built beforehand, so only the package counts).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/tmpmod.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/oarc" ./cmd/oarc
go build -o "$tmp/gensynth" ./bench/synth/internal/gensynth
tmpmod "$tmp"
(cd "$tmp" && go build github.com/oarc/oarc/runtime github.com/oarc/oarc/runtime/impl github.com/oarc/oarc/lycaon)
now() { date +%s.%N; }
printf '%-7s %12s %12s %14s %14s\n' rules gen_s gen_maxrss_MB gen_file_bytes go_build_s
for n in ${*:-1000 10000}; do
	"$tmp/gensynth" -n "$n" -pack "$tmp/pack$n"
	t0=$(now)
	/usr/bin/time -f '%M' -o "$tmp/rss" "$tmp/oarc" gen -pack "$tmp/pack$n" -out "$tmp/n$n" -pkg "n$n"
	t1=$(now)
	size=$(wc -c <"$tmp/n$n/rules_oarc.go")
	t2=$(now)
	(cd "$tmp" && go build "./n$n")
	t3=$(now)
	printf '%-7s %12.2f %12d %14d %14.2f\n' "$n" "$(echo "$t1 - $t0" | bc)" "$(($(cat "$tmp/rss") / 1024))" "$size" "$(echo "$t3 - $t2" | bc)"
done
