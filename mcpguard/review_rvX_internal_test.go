package mcpguard

import (
	"encoding/json"
	"strings"
	"testing"
)

// The questions sent back in results and not answered yet are bounded: a
// client that never retries its calls (within Config.AskTimeout, five
// minutes by default) cannot grow the middleware without bound, in their
// number or in the arguments of the calls they are about. The newest
// question still counts.
func TestReviewRvXAskedBounded(t *testing.T) {
	m := &middleware{asked: map[string]askedCall{}}
	args, _ := json.Marshal(map[string]string{"path": strings.Repeat("x", 64<<10)})
	call := callKey("deploy", args)
	var last string
	for range 2000 {
		res, err := m.inputRequired(nil, call, "q", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		var r struct {
			RequestState string `json:"requestState"`
		}
		json.Unmarshal(raw, &r)
		last = r.RequestState
	}
	held := 0
	for _, a := range m.asked {
		held += len(a.call) + len(a.question)
	}
	if len(m.asked) > 1024 || held > 1<<20 {
		t.Errorf("%d questions waiting, holding %d KiB", len(m.asked), held>>10)
	}
	if q, ok := m.take(last, nil, callKey("deploy", args)); !ok || q.question != "q" {
		t.Errorf("the newest question: %q %v", q.question, ok)
	}
}
