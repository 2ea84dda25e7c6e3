package impl

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

// These tests check that Exec.top and Exec.moves, kept by done as the
// firings come, decide exactly what a re-reading of the firings decides
// (the loops Finish, updates and appendUpdates had before): the effect,
// the code, the rule, the counter updates and the record of the call,
// alone, in a check, with a rule store's rules, after panics, with deny by
// default, and when the store fails.

// r4Store records every Update applied to it, and fails with err.
type r4Store struct {
	runtime.MemStore
	got []runtime.Update
	err error
}

func (s *r4Store) Apply(_ context.Context, _ string, u *runtime.Update) error {
	s.got = append(s.got, runtime.Update{
		Counters: append([]runtime.CounterUpdate(nil), u.Counters...),
		Calls:    append([]runtime.Call(nil), u.Calls...),
	})
	return s.err
}

// r4Want is what the firings decide, read again from the Exec as the
// loops before top and moves read them.
type r4Want struct {
	eff     runtime.Effect
	code    string
	rule    *runtime.Rule
	ups     []runtime.CounterUpdate
	updates bool // something to apply (a counter moves, a call, a store)
}

func r4Recompute(x *Exec) r4Want {
	var w r4Want
	for i := 0; i < x.nfired; i++ {
		if e := x.Rules[x.firing(i)].Effect; e > w.eff {
			w.eff = e
		}
	}
	ls := x.live
	if ls != nil {
		for _, i := range ls.fired {
			if e := ls.list[i].Effect; e > w.eff {
				w.eff = e
			}
		}
	}
	if x.deny != nil {
		w.eff, w.code, w.rule = runtime.Block, x.deny.ID, x.deny
	} else {
		for i := 0; i < x.nfired; i++ {
			if r := &x.Rules[x.firing(i)]; r.Effect == w.eff {
				w.code, w.rule = r.ID, &r.Rule
				break
			}
		}
		if w.rule == nil && ls != nil {
			for _, i := range ls.fired {
				if r := &ls.list[i]; r.Effect == w.eff {
					w.code, w.rule = r.ID, &r.Rule
					break
				}
			}
		}
	}
	w.updates = ls != nil || x.record && x.atCall
	for i := 0; i < x.nfired; i++ {
		r := &x.Rules[x.firing(i)]
		if r.Fire != nil || len(r.Increment)+len(r.Reset) > 0 {
			w.updates = true
		}
		if ls != nil {
			w.ups = appendAllUpdates(w.ups, r)
			continue
		}
		if r.Fire != nil {
			w.ups = append(w.ups, runtime.CounterUpdate{Key: *r.Fire})
		}
		for _, k := range r.Increment {
			w.ups = append(w.ups, runtime.CounterUpdate{Key: k})
		}
		for _, k := range r.Reset {
			w.ups = append(w.ups, runtime.CounterUpdate{Key: k, Reset: true})
		}
	}
	if ls != nil {
		for _, i := range ls.fired {
			r := &ls.list[i]
			w.ups = append(w.ups, runtime.CounterUpdate{Key: r.Fire})
			for _, k := range r.Increment {
				w.ups = append(w.ups, runtime.CounterUpdate{Key: k})
			}
			for _, k := range r.Reset {
				w.ups = append(w.ups, runtime.CounterUpdate{Key: k, Reset: true})
			}
		}
	}
	return w
}

func r4Keys(r *rand.Rand, id string) []runtime.CounterKey {
	var ks []runtime.CounterKey
	for j := range r.IntN(3) {
		ks = append(ks, runtime.CounterKey{Rule: fmt.Sprintf("%s.%d", id, j), Counter: runtime.Fire})
	}
	return ks
}

// r4Rules are n rules of random effects, enforcement, on_error and
// counters (each kind of counter alone, so that a move through any one
// of them is seen).
func r4Rules(r *rand.Rand, n int) []Rule {
	rs := make([]Rule, n)
	for i := range rs {
		id := fmt.Sprintf("R%d", i)
		rs[i] = Rule{Rule: runtime.Rule{ID: id, Effect: runtime.Effect(r.IntN(6)), Monitor: r.IntN(5) == 0, FailOpen: r.IntN(4) == 0},
			Slot: int32(i), DetectorSlot: -1}
		switch r.IntN(6) {
		case 0:
			rs[i].Fire = &runtime.CounterKey{Slot: int32(i), Rule: id, Counter: runtime.Fire}
		case 1:
			rs[i].Increment = r4Keys(r, id+"i")
		case 2:
			rs[i].Reset = r4Keys(r, id+"r")
		case 3:
			rs[i].AllIncrement = append(r4Keys(r, id+"ai"), runtime.CounterKey{Rule: id + "unread"})
		}
	}
	return rs
}

func r4Err(r *rand.Rand) Err {
	if r.IntN(4) == 0 {
		return Err{Kind: runtime.ErrStore, S: "x"}
	}
	return Err{}
}

// r4Run evaluates random rules into x as generated code does: in slot
// order, some not firing, some failing, some panicking (the anchor then
// resumes after them, Panicked calling done), until an enforced block;
// then, sometimes, deny by default and a rule store's rules.
func r4Run(r *rand.Rand, x *Exec) {
	stopped := false
	for again := true; again && !stopped; {
		again = false
		for slot := int32(0); slot < int32(len(x.Rules)); slot++ {
			if !x.Enter(slot) {
				continue
			}
			if r.IntN(8) == 0 {
				// The rule panics: recovered at the anchor.
				again = x.Panicked()
				stopped = !again
				break
			}
			if x.Done(slot, r.IntN(2) == 0, r4Err(r)) {
				stopped = true
				break
			}
		}
	}
	if r.IntN(4) == 0 {
		x.DenyByDefault(&runtime.Rule{ID: "DENY", Effect: runtime.Block, DenyByDefault: true, Monitor: r.IntN(4) == 0})
	}
	if ls := x.live; ls != nil {
		if _, blocked := x.AllowedBy(); !blocked {
			for i := range ls.list {
				if x.doneLive(i, r.IntN(2) == 0, r4Err(r)) {
					break
				}
			}
		}
	}
}

// r4Live sets up a rule store's rules for x, as Live does (the session
// then keeps the record and every counter).
func r4Live(r *rand.Rand, x *Exec) {
	ls := &liveState{}
	ls.env.x = x
	for i := range r.IntN(4) {
		id := fmt.Sprintf("L%d", i)
		ls.list = append(ls.list, runtime.LiveRule{
			Rule:      runtime.Rule{ID: id, Effect: runtime.Effect(r.IntN(6)), Monitor: r.IntN(5) == 0, FailOpen: r.IntN(4) == 0},
			Fire:      runtime.CounterKey{Rule: id, Counter: runtime.Fire},
			Increment: r4Keys(r, id+"i"),
			Reset:     r4Keys(r, id+"r"),
		})
	}
	x.live = ls
	x.record = true
}

// Over random rules and evaluations, Finish decides what the firings
// decide, and applies (or, in a check, hands to the check) exactly the
// updates and the record of the call that the firings make, in one
// Store.Apply, only when there is something to apply; a store's failure
// is an error of no rule in the decision.
func TestReview4TopMovesLikeFirings(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	ctx := context.Background()
	seen := map[string]int{}
	for round := range 20000 {
		rs := r4Rules(r, 1+r.IntN(10))
		st := &r4Store{}
		if r.IntN(5) == 0 {
			st.err = runtime.NotApplied(errors.New("down"))
		}
		var s *runtime.Session
		if r.IntN(8) != 0 {
			s = runtime.NewStoreSession(st, "s")
		}
		// The fired buffer lies in the same variable as the Exec, as in
		// the generated code's state (Buffers keeps offsets from x; the
		// race detector's checkptr rejects offsets to another variable). A
		// small buffer: firings spill into firedX.
		var state struct {
			x     Exec
			fired [3]int32
		}
		x := &state.x
		var d runtime.Decision
		Begin(x, ctx, rs, s, &d, "tool.pre_invoke", 0, "some content", nil)
		x.Buffers(nil, nil, state.fired[:r.IntN(4)])
		var c *Check
		if r.IntN(4) == 0 {
			c = new(Check)
			c.Tool("bash")
			x.InCheck(c)
		}
		args := map[string]any{"command": "ls", "n": int64(round % 3)}
		if r.IntN(6) == 0 {
			args["bad"] = "\xff" // no fingerprint
		}
		x.Call("bash", args, r.IntN(3) != 0, r.IntN(2) == 0, nil)
		keepTimes := r.IntN(3) == 0
		x.When(time.Unix(1700000000, int64(round)), keepTimes)
		if r.IntN(4) == 0 {
			r4Live(r, x)
		}
		r4Run(r, x)
		w := r4Recompute(x)
		x.Finish()
		what := fmt.Sprintf("round %d (%d firings, live %v, check %v, deny %v)", round, x.nfired, x.live != nil, c != nil, x.deny != nil)
		if d.Effect != w.eff || d.Code != w.code || d.Rule != w.rule {
			t.Fatalf("%s: decision %v %q %p, firings decide %v %q %p", what, d.Effect, d.Code, d.Rule, w.eff, w.code, w.rule)
		}
		if x.updates() != w.updates {
			t.Fatalf("%s: updates() %v, firings say %v", what, x.updates(), w.updates)
		}
		if got := x.appendUpdates(nil); !reflect.DeepEqual(got, w.ups) {
			t.Fatalf("%s: appendUpdates %v, firings make %v", what, got, w.ups)
		}
		var wantCalls []runtime.Call
		if x.record && x.atCall {
			fp, _, err := runtime.ArgsFingerprint(nil, args)
			call := runtime.Call{Tool: "bash", Fingerprint: fp, HasFingerprint: err == nil}
			if keepTimes {
				call.Time = time.Unix(1700000000, int64(round)).UnixNano()
			}
			if d.Effect == runtime.Block {
				call.Code = d.Code
			}
			wantCalls = append(wantCalls, call)
		}
		var gotUps []runtime.CounterUpdate
		var gotCalls []runtime.Call
		applied := false
		if c != nil {
			c.Add(x)
			if len(st.got) != 0 {
				t.Fatalf("%s: an action of a check applied %v before the check's end", what, st.got)
			}
			gotUps, gotCalls = held(c.ups[:], c.upsX, c.nups), held(c.calls[:], c.callsX, c.ncalls)
			applied = s != nil && (len(gotUps) > 0 || len(gotCalls) > 0)
			ds := make([]runtime.Decision, 1)
			EndCheck(c, ctx, ds)
			if applied && (len(st.got) != 1 || !r4Same(st.got[0].Counters, gotUps) || !r4Same(st.got[0].Calls, gotCalls)) {
				t.Fatalf("%s: the check applied %v, want one Update of %v %v", what, st.got, gotUps, gotCalls)
			}
			if !applied && len(st.got) != 0 {
				t.Fatalf("%s: the check applied %v with nothing to apply", what, st.got)
			}
			checkErrs := 0
			for _, e := range ds[0].Errors {
				if e.Rule == "" && e.Err.Kind == runtime.ErrStore && strings.HasPrefix(e.Err.S, "the check's ") {
					checkErrs++
				}
			}
			if want := applied && st.err != nil; checkErrs != len(ds[0].Errors) || (checkErrs == 1) != want {
				t.Fatalf("%s: the check's decision errors %v, store failed %v, applied %v", what, ds[0].Errors, st.err != nil, applied)
			}
		} else if len(st.got) > 0 {
			if len(st.got) != 1 {
				t.Fatalf("%s: %d Store.Apply, want at most one", what, len(st.got))
			}
			gotUps, gotCalls, applied = st.got[0].Counters, st.got[0].Calls, true
		}
		if s == nil {
			w.ups, wantCalls = nil, nil
		}
		if len(gotUps)+len(w.ups) > 0 && !reflect.DeepEqual(gotUps, w.ups) {
			t.Fatalf("%s: applied counters %v, firings make %v", what, gotUps, w.ups)
		}
		if len(gotCalls)+len(wantCalls) > 0 && !reflect.DeepEqual(gotCalls, wantCalls) {
			t.Fatalf("%s: recorded %v, want %v", what, gotCalls, wantCalls)
		}
		if wantApplied := len(w.ups) > 0 || len(wantCalls) > 0; applied != wantApplied {
			t.Fatalf("%s: Store.Apply called %v, want %v", what, applied, wantApplied)
		}
		storeErrs := 0
		for _, e := range d.Errors {
			if e.Rule == "" {
				storeErrs++
				if e.Err.Kind != runtime.ErrStore || !strings.Contains(e.Err.S, "not applied") {
					t.Fatalf("%s: store error %v", what, e.Err)
				}
			}
		}
		if want := applied && st.err != nil && c == nil; (storeErrs == 1) != want || storeErrs > 1 {
			t.Fatalf("%s: %d store errors in the decision, store failed %v, applied %v", what, storeErrs, st.err != nil, applied)
		}
		seen[fmt.Sprintf("eff=%v live=%v deny=%v check=%v moved=%v", d.Effect, x.live != nil, x.deny != nil, c != nil, len(w.ups) > 0)]++
	}
	// The random cases reach every effect, with and without a store's
	// rules, deny by default, a check, and counters that move.
	for _, want := range []string{"eff=allow live=false deny=false check=false moved=false", "eff=block live=true deny=false check=false moved=true",
		"eff=block live=false deny=true check=false moved=true", "eff=transform live=false deny=false check=true moved=true",
		"eff=nudge live=true deny=false check=true moved=true", "eff=ask live=false deny=false check=false moved=false", "eff=warn live=false deny=false check=false moved=true"} {
		if seen[want] == 0 {
			t.Errorf("no random case %s: %v", want, seen)
		}
	}
}

// r4Same is reflect.DeepEqual that takes nil and empty slices as equal.
func r4Same[T any](a, b []T) bool { return len(a)+len(b) == 0 || reflect.DeepEqual(a, b) }
