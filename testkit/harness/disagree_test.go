package harness

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/wire"
)

// answer is a decision with every field of the wire set, so that a
// change to any of them can be seen.
func answer() wire.Response {
	return wire.Response{
		Effect: "block", Code: "B", Codes: []string{"A", "B"}, Monitored: []string{"M"},
		FailedClosed: []string{"B"}, Content: "text",
		Rejection: "This rule could not be evaluated (no such key: k); it applies because it fails closed.\nRule B\nCode: B",
		Banner:    "Warned\nCode: W\n\nThis rule could not be evaluated (no such key: k); it applies because it fails closed.\nOther\nCode: V",
		Notes:     "Nudged\nCode: N",
		Question:  "This action needs a person's approval before it runs.\nThis rule could not be evaluated (no such key: k); it applies because it fails closed.\nRule B\nCode: B",
		Errors:    []wire.Error{{Rule: "B", Kind: "no_such_key", Message: "no such key: k"}, {Rule: "", Kind: "store", Message: "store down"}},
		Check: []wire.Response{
			{Effect: "allow", Codes: []string{}, Errors: []wire.Error{{Rule: "A", Kind: "no_such_key"}}},
			{Effect: "warn", Code: "W", Codes: []string{"W"}},
		},
	}
}

// TestDisagreeEveryField (issue 18, item 19): the agreement check of the
// two engines, which most of the corpus relies on (its expectations name
// a few fields), sees a difference in every field of the decision. The
// fields are enumerated by reflection, so that a field added to
// wire.Response fails here until Disagree compares it.
func TestDisagreeEveryField(t *testing.T) {
	a := answer()
	if d := Disagree(a, answer()); d != "" {
		t.Fatalf("equal answers disagree on %s", d)
	}
	// Mutations by JSON name; each must be reported under that name.
	mutations := map[string][]func(r *wire.Response){
		"decision":      {func(r *wire.Response) { r.Effect = "warn" }},
		"code":          {func(r *wire.Response) { r.Code = "A" }, func(r *wire.Response) { r.Code = "" }},
		"codes":         {func(r *wire.Response) { r.Codes = []string{"B", "A"} }, func(r *wire.Response) { r.Codes = r.Codes[:1] }, func(r *wire.Response) { r.Codes = nil }},
		"monitored":     {func(r *wire.Response) { r.Monitored = nil }, func(r *wire.Response) { r.Monitored = append(r.Monitored, "N") }},
		"failed_closed": {func(r *wire.Response) { r.FailedClosed = nil }, func(r *wire.Response) { r.FailedClosed = []string{"A"} }},
		"content":       {func(r *wire.Response) { r.Content = "" }, func(r *wire.Response) { r.Content = "texT" }},
		"banner": {
			func(r *wire.Response) { r.Banner = "" },
			func(r *wire.Response) { r.Banner = strings.Replace(r.Banner, "Code: V", "Code: W", 1) },
			func(r *wire.Response) { r.Banner = strings.Replace(r.Banner, "\n\n", "\n", 1) }, // one part, not two
		},
		"notes": {
			func(r *wire.Response) { r.Notes = "" },
			func(r *wire.Response) { r.Notes = "Nudged\nCode: M" },
		},
		"rejection": {
			func(r *wire.Response) { r.Rejection = "" },
			func(r *wire.Response) { r.Rejection = strings.Replace(r.Rejection, "Code: B", "Code: A", 1) },
			func(r *wire.Response) { r.Rejection = r.Rejection[strings.Index(r.Rejection, "\n")+1:] }, // not failed closed
		},
		"question": {
			func(r *wire.Response) { r.Question = "" },
			func(r *wire.Response) { r.Question = strings.Replace(r.Question, "Code: B", "Code: A", 1) },
			func(r *wire.Response) { r.Question = strings.Replace(r.Question, "before it runs", "first", 1) },
			func(r *wire.Response) { // not failed closed
				head, tail, _ := strings.Cut(r.Question, "\n")
				r.Question = head + "\n" + tail[strings.Index(tail, "\n")+1:]
			},
		},
		"check": {
			func(r *wire.Response) { r.Check = r.Check[:1] },               // one decision fewer
			func(r *wire.Response) { r.Check[1].Effect = "block" },         // one action's decision differs
			func(r *wire.Response) { r.Check[0].Errors[0].Kind = "store" }, // deep inside an action
		},
		"errors": {
			func(r *wire.Response) { r.Errors = r.Errors[:1] },                                       // one fewer
			func(r *wire.Response) { r.Errors[0].Kind = "no_such_overload" },                         // another kind
			func(r *wire.Response) { r.Errors[0].Rule = "A" },                                        // another rule
			func(r *wire.Response) { r.Errors[1].Kind = "" },                                         // no kind
			func(r *wire.Response) { r.Errors[0], r.Errors[1] = r.Errors[1], r.Errors[0] },           // another order
			func(r *wire.Response) { r.Errors = append(r.Errors, wire.Error{Rule: "B", Kind: "x"}) }, // one more
		},
	}
	rt := reflect.TypeOf(wire.Response{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "fatal" {
			// A runner that failed is an error of Runner.Do: no answer
			// to compare.
			continue
		}
		ms := mutations[name]
		if len(ms) == 0 {
			t.Errorf("wire.Response.%s (%q): no mutation in this test, so nothing says Disagree compares it", f.Name, name)
			continue
		}
		for k, m := range ms {
			b := answer()
			m(&b)
			for _, pair := range [][2]wire.Response{{a, b}, {b, a}} {
				d := Disagree(pair[0], pair[1])
				if !contains(strings.Split(d, ", "), name) {
					t.Errorf("%s, mutation %d: Disagree says %q", name, k, d)
				}
			}
		}
	}
	// What is not a difference: the messages of errors (cel-go's texts
	// and the runtime's need not match, their kinds must), and an empty
	// list against a missing one.
	b := answer()
	b.Errors[0].Message = "another text"
	b.Rejection = strings.Replace(b.Rejection, "(no such key: k)", "(another text)", 1)
	b.Banner = strings.Replace(b.Banner, "(no such key: k)", "(another text)", 1)
	b.Question = strings.Replace(b.Question, "(no such key: k)", "(another text)", 1)
	if d := Disagree(a, b); d != "" {
		t.Errorf("answers that differ only in an error message disagree on %s", d)
	}
	// A deny-by-default rejection names each allow rule that could not be
	// evaluated with its error's message (a panic's: the provider in the
	// oracle, the rule in the generated code).
	deny := func(msg string) wire.Response {
		return wire.Response{Effect: "block", Code: "DENY", Codes: []string{"DENY"},
			Errors:    []wire.Error{{Rule: "A", Kind: "panic", Message: msg}},
			Rejection: "The allow rule A could not be evaluated (" + msg + "), so it did not allow this action.\nDenied\nCode: DENY"}
	}
	if d := Disagree(deny("panic: provider f"), deny("panic: A")); d != "" {
		t.Errorf("deny-by-default answers that differ only in an allow rule's error message disagree on %s", d)
	}
	other := deny("panic: A")
	other.Rejection = strings.Replace(other.Rejection, "rule A", "rule B", 1)
	if d := Disagree(deny("panic: A"), other); d != "rejection" {
		t.Errorf("deny-by-default rejections naming different allow rules disagree on %q, want rejection", d)
	}
	e1 := wire.Response{Effect: "allow", Codes: []string{}, Monitored: nil, FailedClosed: []string{}, Errors: nil}
	e2 := wire.Response{Effect: "allow", Codes: nil, Monitored: []string{}, FailedClosed: nil, Errors: []wire.Error{}}
	if d := Disagree(e1, e2); d != "" {
		t.Errorf("empty and missing lists disagree on %s", d)
	}
}

// TestRunsCompareEveryField (issue 18, item 19): a fixture that names only
// the decision still fails when the generated code differs from the
// reference in any other field: runs with both engines compare them all.
// The generated code is broken on purpose, one field per fixture (chosen
// by the fact tool), by a wrapper around its Evaluate.
func TestRunsCompareEveryField(t *testing.T) {
	mutations := map[string]string{
		"none":          "",
		"message":       `d.Errors[0].Err.S = "other"`,
		"decision":      `d.Effect = runtime.Warn`,
		"code":          `d.Code = "X"`,
		"codes":         `d.Codes = append(d.Codes, "X")`,
		"monitored":     `d.Monitored = append(d.Monitored, "X")`,
		"failed_closed": `d.FailedClosed = append(d.FailedClosed, "R")`,
		"errors":        `d.Errors = d.Errors[:0]`,
		"error kind":    `d.Errors[0].Err.Kind = runtime.ErrNoSuchOverload`,
		"error rule":    `d.Errors[0].Rule = "Y"`,
		"content":       `d.Content += "x"`,
		"rejection":     `d.Rule = &runtime.Rule{ID: "Z"}`,
		"banner":        `d.Firings = append(d.Firings, runtime.Firing{Rule: &runtime.Rule{ID: "Z", Effect: runtime.Warn}})`,
		"notes":         `d.Firings = append(d.Firings, runtime.Firing{Rule: &runtime.Rule{ID: "Z", Effect: runtime.Nudge}})`,
	}
	// The field Disagree names for each mutation; "" must pass.
	want := map[string]string{"none": "", "message": "", "decision": "decision", "code": "code", "codes": "codes",
		"monitored": "monitored", "failed_closed": "failed_closed", "errors": "errors", "error kind": "errors",
		"error rule": "errors", "content": "content", "rejection": "rejection",
		"banner": "banner", "notes": "notes"}
	const orig = "func (ev *Evaluator) Evaluate("
	breakGenerate(t, func(_ *ir.Set, _ codegen.Options, src []byte) ([]byte, error) {
		if !bytes.Contains(src, []byte(orig)) {
			t.Fatalf("no %q in the generated code", orig)
		}
		src = bytes.Replace(src, []byte(orig), []byte("func (ev *Evaluator) evaluateUnbroken("), 1)
		var w strings.Builder
		w.WriteString("\nfunc (ev *Evaluator) Evaluate(ctx context.Context, occ *lycaon.Occurrence, s *runtime.Session, d *runtime.Decision) error {\n")
		w.WriteString("\terr := ev.evaluateUnbroken(ctx, occ, s, d)\n\tswitch occ.Facts.Tool {\n")
		for tool, code := range mutations {
			fmt.Fprintf(&w, "\tcase %q:\n\t\t%s\n", tool, code)
		}
		w.WriteString("\t}\n\treturn err\n}\n")
		return append(src, w.String()...), nil
	})
	// One rule: at content.output, an error (a missing key) that fails
	// open, so the answer is allow with one error and the content as
	// given.
	rule := `{"oar": "1.0", "id": "R", "kind": "policy", "anchor": "content.output", "effect": "transform",
  "requires": {"profiles": ["tool", "content-safety"]}, "when": "tool_args.k == 1", "on_error": "fail_open",
  "transform": {"redact": ["secret_matches"]}}`
	var b strings.Builder
	b.WriteString("[\n")
	i := 0
	for tool := range mutations {
		if i > 0 {
			b.WriteString(",\n")
		}
		i++
		fmt.Fprintf(&b, `{"name": %q, "rule": %s, "input": {"anchor": "content.output", "content": "abc",
  "facts": {"tool": %q, "tool_args": {}}}, "expected": {"decision": "allow"}}`, tool, rule, tool)
	}
	b.WriteString("\n]\n")
	res := byName(t, Run([]string{writeFile(t, "fields.json", b.String())}, Options{Engines: Both}))
	for tool, field := range want {
		r := res[tool]
		msg := strings.Join(r.Messages, "\n")
		if field == "" {
			if r.Status != Pass {
				t.Errorf("%s: %s, want a pass: %s", tool, r.Status, msg)
			}
			continue
		}
		if r.Status != Fail || !strings.Contains(msg, "engines disagree: "+field) {
			t.Errorf("%s: %s, want a failure saying the engines disagree on %s: %s", tool, r.Status, field, msg)
		}
	}
}
