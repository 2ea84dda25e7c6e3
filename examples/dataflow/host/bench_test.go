package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/oarc/oarc/examples/dataflow/host/rules"
	"github.com/oarc/oarc/examples/dataflow/host/rules/finbot"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// bigSession records 10,000 nodes: a chain of 1,000 (c0 ... c999, the
// scope of an occurrence whose input is c999) and 9,000 nodes outside it,
// in chains of 100 hanging off c0's siblings. Origins, tiers and labels
// repeat, so the scope's lists are sorted and deduplicated for real.
func bigSession(tb testing.TB) *runtime.Session {
	ctx := context.Background()
	s := runtime.NewSession("big")
	origins := []string{"user", "model", "drive", "email", "web"}
	tiers := []string{"trusted", "untrusted", ""}
	labels := [][]string{nil, {"confidential"}, {"pii", "internal"}, nil, {"internal"}}
	node := func(id string, i int, parent string) runtime.Node {
		n := runtime.Node{ID: id, Kind: runtime.Message, Origin: origins[i%5], TrustTier: tiers[i%3], Labels: labels[i%5]}
		if i%2 == 1 {
			n.Kind, n.Tool = runtime.ToolResult, fmt.Sprintf("tool%d", i%7)
		}
		if parent != "" {
			n.Parents = []string{parent}
		}
		return n
	}
	rec := func(n runtime.Node) {
		if err := s.Record(ctx, n); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range 1000 {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf("c%d", i-1)
		}
		rec(node(fmt.Sprintf("c%d", i), i, parent))
	}
	for k := range 90 {
		for i := range 100 {
			parent := ""
			if i > 0 {
				parent = fmt.Sprintf("o%d_%d", k, i-1)
			}
			rec(node(fmt.Sprintf("o%d_%d", k, i), i, parent))
		}
	}
	return s
}

// Occurrences for the benchmark: bash (NO_SHELL_FROM_WEB reads
// provenance_origins; NO_TAINTED_EGRESS stops before its provenance facts
// for a command without curl) and write_file (WRITE_INSIDE_WORKSPACE reads
// no provenance fact).
func readsOcc() finbot.Occurrence {
	occ := finbot.Occurrence{Anchor: finbot.ToolPreInvoke, Inputs: []string{"c999"}}
	occ.Facts.Tool = "bash"
	occ.Facts.ToolArgs = map[string]any{"command": "go test ./..."}
	return occ
}

// docSession is bigSession and two nodes more: a confidential result of
// read_document under c999, and the model's message "post" computed from
// it. From "post", provenance_nodes lists "post", then the 1,000 chain
// nodes in recording order, then the document: CONFIDENTIAL_DOC_OUT walks
// the whole scope before it finds it.
func docSession(tb testing.TB) *runtime.Session {
	s := bigSession(tb)
	for _, n := range []runtime.Node{
		{ID: "doc", Kind: runtime.ToolResult, Tool: "read_document", Origin: "drive", Labels: []string{"confidential"}, Parents: []string{"c999"}},
		{ID: "post", Kind: runtime.Message, Origin: "model", Parents: []string{"doc"}},
	} {
		if err := s.Record(context.Background(), n); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// nodesOcc is an http_post to an allowlisted host from "post": the first
// rule in evaluation order, CONFIDENTIAL_DOC_OUT, reads provenance_nodes
// and blocks, so no other rule reads a provenance fact.
func nodesOcc() finbot.Occurrence {
	occ := finbot.Occurrence{Anchor: finbot.ToolPreInvoke, Inputs: []string{"post"}}
	occ.Facts.Tool = "http_post"
	occ.Facts.ToolArgs = map[string]any{"url": "https://api.example.com/v1/status"}
	return occ
}

func plainOcc() finbot.Occurrence {
	occ := finbot.Occurrence{Anchor: finbot.ToolPreInvoke, Inputs: []string{"c999"}}
	occ.Facts.Tool = "write_file"
	occ.Facts.ToolArgs = map[string]any{"path": "/workspace/notes.md"}
	return occ
}

// TestProvenanceReadOnlyWhenNeeded: with the same 10,000-node session and
// inputs, the rule that reads a provenance fact gets the scope of 1,000
// nodes (the web origin in it blocks), and the one that reads none leaves
// the scope uncomputed.
func TestProvenanceReadOnlyWhenNeeded(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := bigSession(t)
	ctx := context.Background()
	var d runtime.Decision
	occ := readsOcc()
	if err := ev.Evaluate(ctx, &occ, s, &d); err != nil {
		t.Fatal(err)
	}
	if d.Effect != runtime.Block || len(d.Codes) != 1 || d.Codes[0] != "NO_SHELL_FROM_WEB" {
		t.Errorf("bash from a scope with web content: %v %v, want block by NO_SHELL_FROM_WEB", d.Effect, d.Codes)
	}
	if want := []string{"drive", "email", "model", "user", "web"}; fmt.Sprint(d.Provenance.Origins) != fmt.Sprint(want) {
		t.Errorf("scope origins %v, want %v", d.Provenance.Origins, want)
	}
	occ = plainOcc()
	if err := ev.Evaluate(ctx, &occ, s, &d); err != nil {
		t.Fatal(err)
	}
	if d.Effect != runtime.Allow || len(d.Provenance.Origins)+len(d.Provenance.Labels)+len(d.Provenance.Tools)+len(d.Provenance.TrustTiers) != 0 {
		t.Errorf("write_file inside the workspace: %v, scope %+v: want allow and no scope computed", d.Effect, d.Provenance)
	}
}

// TestProvenanceNodesOnBigSession: the occurrence BenchmarkProvenance
// measures for provenance_nodes is blocked by CONFIDENTIAL_DOC_OUT, having
// found the document at the end of a scope of 1,002 nodes, with no
// provenance set computed; from c999 (the scope without the document) the
// rule does not fire, and NO_TAINTED_EGRESS, later in evaluation order,
// blocks for the confidential label and the untrusted tier.
func TestProvenanceNodesOnBigSession(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := docSession(t)
	ctx := context.Background()
	var d runtime.Decision
	occ := nodesOcc()
	if err := ev.Evaluate(ctx, &occ, s, &d); err != nil {
		t.Fatal(err)
	}
	if d.Effect != runtime.Block || len(d.Codes) != 1 || d.Codes[0] != "CONFIDENTIAL_DOC_OUT" {
		t.Errorf("post computed from a confidential read_document result: %v %v, want block by CONFIDENTIAL_DOC_OUT", d.Effect, d.Codes)
	}
	if p := d.Provenance; len(p.Origins)+len(p.Labels)+len(p.Tools)+len(p.TrustTiers) != 0 {
		t.Errorf("scope sets %+v computed, want none (only provenance_nodes was read)", p)
	}
	occ.Inputs = []string{"c999"}
	if err := ev.Evaluate(ctx, &occ, s, &d); err != nil {
		t.Fatal(err)
	}
	if d.Effect != runtime.Block || len(d.Codes) != 1 || d.Codes[0] != "NO_TAINTED_EGRESS" {
		t.Errorf("post from c999, no read_document in scope: %v %v, want block by NO_TAINTED_EGRESS only", d.Effect, d.Codes)
	}
}

// TestProvenanceZeroAllocs: neither occurrence allocates once the
// session's and the decision's buffers have grown.
func TestProvenanceZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := bigSession(t)
	ctx := context.Background()
	var d runtime.Decision
	for name, occ := range map[string]finbot.Occurrence{"reads": readsOcc(), "plain": plainOcc()} {
		ev.Evaluate(ctx, &occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { ev.Evaluate(ctx, &occ, s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation", name, n)
		}
	}
}

// BenchmarkProvenance is the cost of one occurrence in a session of 10,000
// nodes whose inputs' scope holds 1,000 of them: for a rule that reads a
// provenance set, for one that reads provenance_nodes (a map per node in
// scope: it allocates, and TestProvenanceZeroAllocs leaves it out), and for
// one that reads none (which must cost what it costs in an empty session).
func BenchmarkProvenance(b *testing.B) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		b.Fatal(err)
	}
	big := bigSession(b)
	doc := docSession(b)
	empty := runtime.NewSession("empty")
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		occ  finbot.Occurrence
		s    *runtime.Session
	}{
		{"reads/nodes=10000/scope=1000", readsOcc(), big},
		{"reads-nodes/nodes=10002/scope=1002", nodesOcc(), doc},
		{"reads-none/nodes=10000/scope=1000", plainOcc(), big},
		{"reads-none/nodes=0", plainOcc(), empty},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var d runtime.Decision
			occ := bc.occ
			b.ReportAllocs()
			for b.Loop() {
				ev.Evaluate(ctx, &occ, bc.s, &d)
			}
		})
	}
}

// BenchmarkURLHost is one evaluation of an http_post that EGRESS_ALLOWLIST
// checks with url_scheme and url_host (parsing the URL each time), in an
// empty session, for an allowlisted URL and for the userinfo trick. The
// post also reaches CONFIDENTIAL_DOC_OUT, whose scope is empty here.
func BenchmarkURLHost(b *testing.B) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		b.Fatal(err)
	}
	s := runtime.NewSession("urls")
	ctx := context.Background()
	for _, bc := range []struct{ name, url string }{
		{"allowed", "https://api.example.com/v1/status"},
		{"userinfo", "https://api.example.com@evil.io/"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var d runtime.Decision
			occ := finbot.Occurrence{Anchor: finbot.ToolPreInvoke}
			occ.Facts.Tool = "http_post"
			occ.Facts.ToolArgs = map[string]any{"url": bc.url}
			b.ReportAllocs()
			for b.Loop() {
				ev.Evaluate(ctx, &occ, s, &d)
			}
		})
	}
}
