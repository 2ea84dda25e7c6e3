package rulestore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/rulestore/internal/storediff/full"
	"github.com/oarc/oarc/runtime"
)

// TestNewhostStoreOfAnotherSetSaysWhatToDo: a host that opens its store
// with the set of other packs than its go:generate line compiles (one pack
// of two, or a path that did not load from the process's working
// directory) is refused by New, and the error tells it what to load. Before, it said only that the sets differed, by digest.
func TestNewhostStoreOfAnotherSetSaysWhatToDo(t *testing.T) {
	other, ds := compiler.Load([]string{"testdata/packs/base", "testdata/packs/stock"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, other, rulestore.Options{})
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if ev != nil || !errors.Is(err, runtime.ErrRuleStoreSet) {
		t.Fatalf("a store of another set: %v %v", ev, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "compiler.Load") {
		t.Errorf("the error does not say what to load: %s", msg)
	}
}

// TestNewhostReadsTime: Reads says when an anchor's rules read the
// occurrence's time and the session's record of calls' times (spec 5.13).
// Before, a set whose only rule was `calls_within(60) > 5` had Reads
// empty at tool.pre_invoke: a host that filled Occurrence.Time, or kept a
// Session, only for what Reads lists never had the rate limit fire.
func TestNewhostReadsTime(t *testing.T) {
	if r := full.Reads(lycaon.ToolPreInvoke); !r.Time || !r.CallTimes {
		t.Errorf("tool.pre_invoke (calls_within, tool_calls_within, local_hour): %+v", r)
	}
	if r := full.Reads(lycaon.ContentInput); !r.Time || r.CallTimes {
		t.Errorf("content.input (local_hour, local_weekday): %+v", r)
	}
	if r := base.Reads(lycaon.ToolPreInvoke); r.Time || r.CallTimes {
		t.Errorf("base at tool.pre_invoke (no time function): %+v", r)
	}
}
