package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/internal/stats"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// TestOutput runs the demo and compares it with testdata/output.txt.
func TestOutput(t *testing.T) {
	var b bytes.Buffer
	run(&b, config{hint: defaultHint, session: "demo"})
	want, err := os.ReadFile(filepath.Join("testdata", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("output changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestGeneratedIsFresh fails when rules/ is not what oarc generates from
// the starter pack now (run go generate ./examples/host).
func TestGeneratedIsFresh(t *testing.T) {
	p, diags := compiler.LoadPack(filepath.Join("..", "starter"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	want, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "rules", Version: cli.Version})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("rules", "rules_oarc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("examples/host/rules is stale: run go generate ./examples/host")
	}
}

// TestZeroAllocs evaluates the demo's calls (providers and validators
// included) and wants no allocation once the decision has grown.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewSession("t")
	var d runtime.Decision
	for _, c := range calls() {
		if c.what == "http_post with an access key" {
			continue // the toy validator itself allocates its answer
		}
		occ := c.occ
		ev.Evaluate(context.Background(), &occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { ev.Evaluate(context.Background(), &occ, s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation", c.what, n)
		}
	}
	// An anchor without rules and an unknown anchor, which also record
	// when there is a recorder.
	for _, a := range []lycaon.Anchor{lycaon.PhaseEntered, lycaon.Anchor(60000)} {
		occ := lycaon.Occurrence{Anchor: a}
		ev.Evaluate(context.Background(), &occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { ev.Evaluate(context.Background(), &occ, s, &d) }); n != 0 {
			t.Errorf("anchor %d: %v allocations per evaluation", a, n)
		}
	}
}

// TestOutputWithRecorder: recording changes nothing the host prints.
func TestOutputWithRecorder(t *testing.T) {
	var plain, recorded, log bytes.Buffer
	run(&plain, config{hint: defaultHint, session: "demo"})
	run(&recorded, config{hint: defaultHint, session: "demo", recorder: runtime.NewJSONLRecorder(&log)})
	if plain.String() != recorded.String() {
		t.Errorf("the output changed with a recorder:\n%s", cmp.Diff(plain.String(), recorded.String()))
	}
	if n := strings.Count(log.String(), "\n"); n != len(calls()) {
		t.Errorf("%d records for %d calls", n, len(calls()))
	}
}

// TestRecords binds the evaluator with a JSONLRecorder writing to a buffer
// and wants one record per occurrence, each what the decision says:
// the demo's calls, an occurrence at an anchor without rules and one at an
// anchor the catalog does not have.
func TestRecords(t *testing.T) {
	var log bytes.Buffer
	ev, err := rules.New(demoEnv(), runtime.WithRecorder(runtime.NewJSONLRecorder(&log)))
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewSession("rec")
	occs := calls()
	occs = append(occs,
		call{what: "an anchor without rules", occ: lycaon.Occurrence{Anchor: lycaon.PhaseEntered}},
		call{what: "an unknown anchor", occ: lycaon.Occurrence{Anchor: lycaon.Anchor(60000)}})
	var want []runtime.Record
	start := time.Now().UTC()
	for _, c := range occs {
		var d runtime.Decision
		ev.Evaluate(context.Background(), &c.occ, s, &d)
		r := runtime.Record{Pack: rules.Name, Digest: rules.Digest, Session: "rec", Anchor: c.occ.Anchor.String(), Tool: c.occ.Facts.Tool,
			Decision: d.Effect.String(), Code: d.Code, Codes: d.Codes, Monitored: d.Monitored, FailedClosed: d.FailedClosed}
		for _, e := range d.Errors {
			r.Errors = append(r.Errors, runtime.RecordError{Rule: e.Rule, Kind: e.Err.Kind.String(), Message: e.Err.Error()})
		}
		want = append(want, r)
	}
	end := time.Now().UTC()
	rd := stats.NewReader(&log)
	var got []runtime.Record
	for {
		var r runtime.Record
		err := rd.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Time.Before(start.Truncate(time.Second)) || r.Time.After(end) {
			t.Errorf("record time %v not in [%v, %v]", r.Time, start, end)
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(want, got, cmpIgnoreTime, cmpEmpty); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	// The ones the test is about.
	last := got[len(got)-2:]
	if last[0].Anchor != "phase.entered" || last[0].Decision != "allow" || len(last[0].Errors) != 0 {
		t.Errorf("anchor without rules: %+v", last[0])
	}
	if last[1].Anchor != "" || last[1].Decision != "block" || len(last[1].Errors) != 1 || last[1].Errors[0].Kind != "anchor" || last[1].Errors[0].Message != "unknown anchor 60000" {
		t.Errorf("unknown anchor: %+v", last[1])
	}
	if !strings.HasPrefix(rules.Digest, "sha256:") || len(rules.Digest) != len("sha256:")+64 {
		t.Errorf("digest %q", rules.Digest)
	}
	// The same digest as the compiler computes for the starter pack.
	p, diags := compiler.LoadPack(filepath.Join("..", "starter"), compiler.Options{})
	if diags.HasErrors() || p.Digest != rules.Digest {
		t.Errorf("compiled digest %s, generated %s", p.Digest, rules.Digest)
	}
}

// TestStatsOfRecords runs oarc stats on records the host wrote in six
// sessions: FORCE_PUSH, monitored, fired in each, and is ready to enforce.
func TestStatsOfRecords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "decisions.jsonl")
	var log bytes.Buffer
	rec := runtime.NewJSONLRecorder(&log)
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5", "s6"} {
		run(io.Discard, config{hint: defaultHint, session: id, recorder: rec})
	}
	if err := os.WriteFile(file, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"stats", "-json", file}, nil, &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("oarc stats: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum struct {
		Records int
		Ready   []struct{ Digest, Rule string } `json:"ready_to_enforce"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Records != 6*len(calls()) || len(sum.Ready) != 1 || sum.Ready[0].Rule != "FORCE_PUSH" || sum.Ready[0].Digest != rules.Digest {
		t.Errorf("summary %+v", sum)
	}
}

// BenchmarkRecorder is the cost of decision records: the demo's calls
// without a recorder and with a JSONLRecorder writing to io.Discard.
func BenchmarkRecorder(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []runtime.Option
	}{
		{"none", nil},
		{"jsonl", []runtime.Option{runtime.WithRecorder(runtime.NewJSONLRecorder(io.Discard))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ev, err := rules.New(demoEnv(), bc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			s := runtime.NewSession("bench")
			var d runtime.Decision
			cs := calls()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c := &cs[i%len(cs)]
				ev.Evaluate(context.Background(), &c.occ, s, &d)
			}
		})
	}
}

var (
	cmpIgnoreTime = cmpopts.IgnoreFields(runtime.Record{}, "Time")
	cmpEmpty      = cmpopts.EquateEmpty()
)

// TestUnknownAnchor: an anchor value the catalog does not have (the zero
// Anchor, or one no constant has) is a block with an error of kind anchor,
// and Evaluate returns runtime.ErrUnknownAnchor: a host's mistake never
// disables the rules. A misspelt anchor id does not parse.
func TestUnknownAnchor(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []lycaon.Anchor{0, lycaon.Anchor(60000)} {
		occ := lycaon.Occurrence{Anchor: a}
		occ.Facts.Tool = "bash"
		var d runtime.Decision
		err := ev.Evaluate(context.Background(), &occ, runtime.NewSession("s"), &d)
		if !errors.Is(err, runtime.ErrUnknownAnchor) {
			t.Errorf("anchor %d: Evaluate returned %v, want ErrUnknownAnchor", a, err)
		}
		if d.Effect != runtime.Block || len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrAnchor {
			t.Errorf("anchor %d: %v %+v, want a block with one anchor error", a, d.Effect, d.Errors)
		}
		if r := d.Rejection(); !strings.Contains(r, "could not evaluate") {
			t.Errorf("anchor %d: rejection %q", a, r)
		}
	}
	for _, id := range []string{"tool.pre_invok", "", "TOOL.PRE_INVOKE", "tool.pre_invoke "} {
		if a, ok := lycaon.ParseAnchor(id); ok || a.Valid() {
			t.Errorf("ParseAnchor(%q) = %v, %v", id, a, ok)
		}
	}
	if a, ok := lycaon.ParseAnchor("tool.pre_invoke"); !ok || a != lycaon.ToolPreInvoke {
		t.Errorf("ParseAnchor(tool.pre_invoke) = %v, %v", a, ok)
	}
}

// TestBadCall: Evaluate on a nil evaluator, or with a nil occurrence or
// decision, returns runtime.ErrBadCall and never panics; a decision it can
// write blocks.
func TestBadCall(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	var nilEv *rules.Evaluator
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "bash"
	for name, call := range map[string]func(*runtime.Decision) error{
		"nil evaluator":  func(d *runtime.Decision) error { return nilEv.Evaluate(context.Background(), &occ, nil, d) },
		"nil occurrence": func(d *runtime.Decision) error { return ev.Evaluate(context.Background(), nil, nil, d) },
	} {
		var d runtime.Decision
		if err := call(&d); !errors.Is(err, runtime.ErrBadCall) {
			t.Errorf("%s: %v, want ErrBadCall", name, err)
		}
		if d.Effect != runtime.Block || len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrInvalidArgument {
			t.Errorf("%s: %v %+v, want a block with one invalid_argument error", name, d.Effect, d.Errors)
		}
	}
	if err := ev.Evaluate(context.Background(), &occ, nil, nil); !errors.Is(err, runtime.ErrBadCall) {
		t.Errorf("nil decision: %v, want ErrBadCall", err)
	}
}
