package mcpguard_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkE2ERoundTrip is one tools/call of server-filesystem's
// read_text_file on a 1 KB file, over stdio, from the Go SDK's client:
// straight to the server (direct), and through the proxy (guarded: the
// allowlist at tool.pre_invoke, tool.post_invoke, oarc.secrets over the
// result at content.tool_result, provenance recorded). Run it with
// -benchtime 1000x: besides ns/op it reports the median and the 99th
// percentile of the calls' latencies (p50-µs, p99-µs). BENCHMARKS.md has
// the interleaved runs.
func BenchmarkE2ERoundTrip(b *testing.B) {
	e := need(b)
	dir := b.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	// Two files read in turn: the same call four times in a row is what
	// the example's loop breaker blocks.
	var files [2]string
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("notes%d.txt", i))
		if err := os.WriteFile(files[i], []byte(strings.Repeat("0123456789abcdef config line\n", 1024/29+1)[:1024]), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"direct", e.filesystem(dir)},
		{"guarded", e.guarded([]string{"-server-id", "fs"}, e.filesystem(dir))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := mcp.NewClient(&mcp.Implementation{Name: "oarc-bench", Version: "1"}, nil)
			cmd := exec.Command(tc.argv[0], tc.argv[1:]...)
			ctx := context.Background()
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			var ps [2]*mcp.CallToolParams
			for i, f := range files {
				ps[i] = &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": f}}
			}
			// Warm up both processes before timing.
			for i := range 20 {
				if _, err := cs.CallTool(ctx, ps[i%2]); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime(cmd.Process.Pid)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, ps[i%2])
				lat = append(lat, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			b.StopTimer()
			// The CPU time of the process the client talks to (the
			// proxy, or the server itself), per call: what the guard
			// costs apart from the scheduling of one more process.
			if cpu0 >= 0 {
				b.ReportMetric(float64((cpuTime(cmd.Process.Pid)-cpu0).Microseconds())/float64(len(lat)), "cpu-µs/call")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

// cpuTime is the user and system CPU time of process pid so far, from
// /proc (clock ticks of 10 ms), or -1 where there is none.
func cpuTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command name (which may hold spaces): utime
	// and stime are the 12th and 13th.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
