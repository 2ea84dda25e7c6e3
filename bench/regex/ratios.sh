#!/bin/sh
# bench/regex/ratios.sh FILE: the speed-up of the generated matchers over
# regexp, from rounds of `-test.bench 'Match|Adversarial'` appended to
# FILE. In each round the two engines ran back to back in one process, so
# that their ratio shares the CPU's state (see bench/paired.sh); per
# pattern, size and input it prints the medians of cpu-ns/op and the
# median and range of the rounds' ratios regexp / oarc.
set -eu
awk '
/^Benchmark(Match|Adversarial)\// {
	name = $1
	sub(/-[0-9]+$/, "", name)
	v = ""
	for (i = 2; i <= NF; i++) if ($i == "cpu-ns/op") v = $(i - 1)
	if (v == "") next
	eng = name; sub(/.*\//, "", eng)
	base = name; sub(/\/[^\/]*$/, "", base)
	if (!(base in seen)) { seen[base] = 1; order[++nb] = base }
	val[base, eng, ++n[base, eng]] = v
}
function median(a, k,    i, j, t) {
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	printf "%-44s %12s %10s %9s %14s\n", "benchmark", "regexp", "oarc", "speed-up", "range"
	for (b = 1; b <= nb; b++) {
		base = order[b]
		k = n[base, "oarc"]
		if (k == 0 || k != n[base, "regexp"]) continue
		for (i = 1; i <= k; i++) {
			r[i] = val[base, "regexp", i] / val[base, "oarc", i]
			x[i] = val[base, "regexp", i]; y[i] = val[base, "oarc", i]
		}
		m = median(r, k)
		printf "%-44s %12.1f %10.1f %8.1fx %6.1f-%-6.1f\n", base, median(x, k), median(y, k), m, r[1], r[k]
	}
}' "$1"
