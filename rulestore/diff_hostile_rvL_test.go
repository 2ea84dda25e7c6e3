package rulestore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/rulestore/internal/storediff/baselazy"
	"github.com/oarc/oarc/rulestore/internal/storediff/full"
	"github.com/oarc/oarc/rulestore/internal/storediff/hostile"
	"github.com/oarc/oarc/rulestore/internal/storediff/hostilelazy"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/celdiff"
)

// hostileNamed are host types outside the usual dyn representation.
type (
	hostileInt    int
	hostileString string
	hostileStruct struct{ X int }
)

// hostileValues are the values a host may put in tool_args that a rule
// author never thought of: nulls, numbers at and past the ends of int64
// and uint64, NaN and infinities, json.Number spellings, odd unicode and
// bytes that are not UTF-8, Go kinds outside the dyn representation
// (named types, structs, pointers, bytes, times), lists and maps.
func hostileValues() []any {
	seven := 7
	return []any{
		nil, true, false,
		int64(math.MaxInt64), int64(math.MinInt64), int64(4), int64(-1), int64(0),
		uint64(math.MaxUint64), uint64(5), uint(3), uint8(200),
		int(9), int32(-7), int8(4), hostileInt(5),
		math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 3.0, 3.5, 1e300, float32(4),
		json.Number("9223372036854775808"), json.Number("4"), json.Number("1e400"), json.Number("-0"), json.Number("abc"), json.Number(""), json.Number("4.0"),
		"", "4", "git push --force", "git push \u202e--force", "git push --f\u200borce", "git\x00push --force", "\xff\xfe", "sudo ls", "ｓｕｄｏ ls",
		"http://a.example", "HTTP://A.EXAMPLE:80/", "http://[::1]:80/", "http://a.example:99999999999999999999/", "http://\u0430.example",
		"Europe/Paris", "UTC", "Mars/Olympus", "../../etc/passwd", "Europe/Paris\x00", "local", "Local",
		hostileString("Europe/Paris"), hostileString("sudo ls"),
		[]any{int64(1), nil}, []string{"a"}, []any{}, map[string]any{"count": int64(9)}, map[string]string{"a": "b"}, map[string]any{},
		map[int]string{1: "a"}, []byte("sudo"), time.Unix(0, 0), time.Second, hostileStruct{1}, &seven, (*int)(nil), json.RawMessage(`"sudo x"`),
	}
}

// TestDifferentialHostileArgs runs sessions whose tool arguments are the
// hostile values through the extra rules compiled and through the same
// rules in a store (as TestDifferentialCompiled): a store rule must
// decide as the compiled one, errors included, whatever the host's
// values.
func TestDifferentialHostileArgs(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	ids, docs := extraRules(t)
	for _, id := range append([]string{"Z_REPEAT"}, ids...) {
		if st, err := s.Status(id); err == nil && st.Record.Status.Live() {
			continue
		}
		if _, err := s.Add(rulestore.Draft{Rule: docs[id]}); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if id == "Z_WATCH" {
			continue
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	env := diffEnv()
	compiled, err := full.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := base.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	vals := hostileValues()
	keys := []string{"count", "command", "url", "zone"}
	tools := []string{"bash", "git", "http_fetch", "http_post", "edit", "", "b\u0430sh", "\xff"}
	rng := rand.New(rand.NewPCG(7, 11))
	mismatches, occurrences := 0, 0
	for sess := range 150 {
		id := fmt.Sprintf("h%d", sess)
		sa, sb := runtime.NewSession(id), runtime.NewSession(id)
		at := time.Date(2026, 3, 7, 21, 30, 0, 0, time.UTC)
		for step := range 10 {
			at = at.Add(time.Duration(rng.IntN(600)) * time.Second)
			occ := &lycaon.Occurrence{Time: at}
			if rng.IntN(4) == 0 {
				occ.Anchor = lycaon.ToolPostInvoke
			} else {
				occ.Anchor = lycaon.ToolPreInvoke
			}
			occ.Facts.Tool = tools[rng.IntN(len(tools))]
			switch rng.IntN(6) {
			case 0: // no arguments
			case 1:
				occ.Facts.ToolArgs = map[string]any{}
			default:
				args := map[string]any{}
				for _, k := range keys {
					if rng.IntN(3) > 0 {
						args[k] = vals[rng.IntN(len(vals))]
					}
				}
				occ.Facts.ToolArgs = args
			}
			var da, db runtime.Decision
			errA := compiled.Evaluate(context.Background(), occ, sa, &da)
			errB := stored.Evaluate(context.Background(), occ, sb, &db)
			occurrences++
			if (errA == nil) != (errB == nil) {
				t.Fatalf("session %s step %d: errors %v / %v", id, step, errA, errB)
			}
			if diff := cmp.Diff(outcomeOf(&da), outcomeOf(&db)); diff != "" {
				mismatches++
				if mismatches <= 8 {
					t.Errorf("session %s step %d (%s %q %#v): compiled vs store (-compiled +store):\n%s", id, step, occ.Anchor, occ.Facts.Tool, occ.Facts.ToolArgs, diff)
				}
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d occurrences differ", mismatches, occurrences)
	}
}

// hostileKnown are the rules of the hostile pack whose "no such
// overload" says another detail in the two engines (docs/store.md): the
// store's cel-go names size and matches where the compiled rule does
// not, and does not name startsWith and contains where it does. Their
// decisions and error kinds agree all the same.
var hostileKnown = map[string]bool{"H_6": true, "H_7": true, "H_8": true, "H_9": true, "H_30": true}

// TestDifferentialHostileValues evaluates every rule of the hostile pack
// (a CEL operation, a conversion, a comparison at the ends of int64 and
// uint64, a tool_arg_* function... over tool_args.a; macros over the
// spans of pii_entities, their members that value) compiled and as
// active store rules, with tool_args.a each of the hostile values: the
// same decision, the same errors (kind and message), the same texts.
func TestDifferentialHostileValues(t *testing.T) {
	fired, rules := diffHostileValues(t, append(hostileValues(), "absent"))
	if !fired["H_209"] {
		t.Error("H_209 (a selector on an int fact) never fired")
	}
	if len(fired) < 55 {
		t.Errorf("only %d of the %d rules fired (with a value or an error)", len(fired), rules)
	}
}

// diffHostileValues runs every rule of the hostile pack compiled and in a
// store on tool_args.a (and the spans' members) set to each of vals (the
// string "absent": none), and wants the same decisions. It returns the
// rules that fired and how many there are.
func diffHostileValues(t *testing.T, vals []any) (fired map[string]bool, rules int) {
	t.Helper()
	set, ds := compiler.Load([]string{"testdata/packs/base"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{Cap: 100})
	files, _ := filepath.Glob("testdata/packs/hostile/policy/*.yaml")
	if len(files) < 60 {
		t.Fatalf("%d hostile rules", len(files))
	}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if _, err := s.Add(rulestore.Draft{Rule: ruleJSON(t, f)}); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	env := diffEnv()
	compiled, err := hostile.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := base.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	// known leaves only the kind of a known deviation's error, and only
	// the class of a host value that cannot be read: a walk over a map
	// holding several (a cycle under one key, a channel under another)
	// meets first the one Go's map order puts first, in either engine
	// (testkit/celdiff's sameClass).
	known := func(d *runtime.Decision) outcome {
		o := outcomeOf(d)
		for i, e := range d.Errors {
			msg := e.Err.Error()
			switch {
			case hostileKnown[e.Rule] && e.Err.Kind == runtime.ErrNoSuchOverload:
				o.Errors[i] = e.Rule + "/" + e.Err.Kind.String()
				for _, p := range []*string{&o.Rejection, &o.Banner, &o.Notes} {
					*p = strings.ReplaceAll(*p, "("+msg+")", "(no such overload)")
				}
			case strings.HasPrefix(msg, "unsupported value of Go type ") || strings.HasPrefix(msg, "value too deeply nested or cyclic"):
				o.Errors[i] = e.Rule + "/" + e.Err.Kind.String() + ": unreadable host value"
				for _, p := range []*string{&o.Rejection, &o.Banner, &o.Notes} {
					*p = strings.ReplaceAll(*p, "("+msg+")", "(unreadable host value)")
				}
			}
		}
		return o
	}
	fired = map[string]bool{}
	for i, v := range vals {
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
		occ.Facts.Tool = "t"
		occ.Facts.ContentLength = []int64{5, math.MinInt64, 0, math.MaxInt64}[i%4]
		occ.Facts.ToolArgs = map[string]any{"a": v}
		// The spans of a detector's fact, as the host fills them.
		occ.Facts.PiiEntities = []map[string]any{{"score": v, "type": v, "start": v, "end": v}, {"type": "email", "start": int64(1), "end": v}}
		if v == "absent" {
			occ.Facts.ToolArgs = map[string]any{}
			occ.Facts.PiiEntities = []map[string]any{{}, nil}
		}
		var da, db runtime.Decision
		sa, sb := runtime.NewSession("h"), runtime.NewSession("h")
		errA := compiled.Evaluate(context.Background(), occ, sa, &da)
		errB := stored.Evaluate(context.Background(), occ, sb, &db)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("value %d %s: errors %v / %v", i, celdiff.Show(v), errA, errB)
		}
		for _, c := range db.Codes {
			fired[c] = true
		}
		if diff := cmp.Diff(known(&da), known(&db)); diff != "" {
			t.Errorf("value %d %s: compiled vs store (-compiled +store):\n%s", i, celdiff.Show(v), diff)
		}
	}
	return fired, len(files)
}

// TestDifferentialHostileLazy is TestDifferentialHostileValues with
// pii_entities read lazily (oarc gen -lazy, docs/hosts.md): a store rule
// reads it through the generated getter, as a compiled rule does,
// including a getter that fails (the rule's error, kind provider) or
// panics (it fails closed), and from Facts where the host set no getter.
func TestDifferentialHostileLazy(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/base"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{Cap: 100})
	files, _ := filepath.Glob("testdata/packs/hostile/policy/*.yaml")
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if _, err := s.Add(rulestore.Draft{Rule: ruleJSON(t, f)}); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	known := func(d *runtime.Decision) outcome {
		o := outcomeOf(d)
		for i, e := range d.Errors {
			if hostileKnown[e.Rule] && e.Err.Kind == runtime.ErrNoSuchOverload {
				msg := e.Err.Error()
				o.Errors[i] = e.Rule + "/" + e.Err.Kind.String()
				for _, p := range []*string{&o.Rejection, &o.Banner, &o.Notes} {
					*p = strings.ReplaceAll(*p, "("+msg+")", "(no such overload)")
				}
			}
		}
		return o
	}
	vals := append(hostileValues(), "fail", "slow", "panic")
	for _, lazy := range []bool{true, false} {
		var cur any
		env := diffEnv()
		if lazy {
			env.Lazy.PiiEntities = func(context.Context, *lycaon.Occurrence) ([]map[string]any, error) {
				switch cur {
				case "fail":
					return nil, errors.New("the detector is gone")
				case "slow":
					return nil, context.DeadlineExceeded
				case "panic":
					panic("lazy pii_entities")
				}
				return []map[string]any{{"score": cur, "type": cur, "start": cur, "end": cur}, nil}, nil
			}
		}
		// A provider that fails or panics too: a panic fails its rule
		// closed whatever its on_error (spec 6).
		env.Providers.PathOutsideScope = func(_ context.Context, _ *lycaon.Occurrence, a string) (bool, error) {
			switch a {
			case "fail":
				return false, errors.New("no scope")
			case "panic":
				panic("path_outside_scope")
			}
			return a == "", nil
		}
		compiled, err := hostilelazy.New(env)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := baselazy.New(env, runtime.WithRuleStore(s))
		if err != nil {
			t.Fatal(err)
		}
		fired := map[string]bool{}
		for i, v := range vals {
			cur = v
			occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
			occ.Facts.Tool = "t"
			occ.Facts.ToolArgs = map[string]any{"a": v}
			occ.Facts.PiiEntities = []map[string]any{{"score": 0.9, "type": v, "start": int64(0), "end": v}}
			var da, db runtime.Decision
			errA := compiled.Evaluate(context.Background(), occ, runtime.NewSession("h"), &da)
			errB := stored.Evaluate(context.Background(), occ, runtime.NewSession("h"), &db)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("value %d %s: errors %v / %v", i, celdiff.Show(v), errA, errB)
			}
			for _, e := range db.Errors {
				fired[e.Rule+"/"+e.Err.Kind.String()] = true
			}
			if diff := cmp.Diff(known(&da), known(&db)); diff != "" {
				t.Errorf("lazy %v, value %d %s: compiled vs store (-compiled +store):\n%s", lazy, i, celdiff.Show(v), diff)
			}
		}
		if lazy && (!fired["H_201/provider"] || !fired["H_201/timeout"] || !fired["H_206/panic"]) || !fired["H_207/panic"] || !fired["H_207/provider"] {
			t.Errorf("the getter's errors were not reached: %v", fired)
		}
	}
}
