package runtime

import (
	"context"
	"strings"
	"testing"
)

// A nil *Session has no graph to mark (spec 5.7): MarkIncomplete says so,
// as Record does, instead of returning nil to a host that lost history and
// believes that later provenance reads now fail. The next evaluation with
// the nil session and no inputs reads an empty scope, as if the action
// depended on nothing.
func TestNilSessionMarkIncomplete(t *testing.T) {
	var s *Session
	if err := s.MarkIncomplete(context.Background()); err == nil {
		t.Error("MarkIncomplete of a nil session: no error")
	}
	if err := s.Record(context.Background(), Node{ID: "a", Kind: Message}); err == nil {
		t.Error("Record of a nil session: no error")
	}
}

// A node's arguments are kept as typed JSON and read back by
// provenance_nodes (spec 5.11) "as the host recorded them", which cel-go
// reads from the host's values: JSON has no unsigned integers, so a uint
// came back an int (a double past 2^63-1), and n.args.n + 1u, true in
// cel-go over the recorded value, was an error (and n.args.n + 1 the
// other way round). A node with a uint argument is refused, as one whose
// arguments JCS cannot serialise is, and the host is told why.
func TestNodeArgsUintRefused(t *testing.T) {
	for name, args := range map[string]map[string]any{
		"uint64":     {"n": uint64(7)},
		"max uint64": {"n": uint64(1<<64 - 1)},
		"uint8":      {"n": uint8(7)},
		"list":       {"l": []uint64{1}},
		"nested":     {"m": map[string]any{"l": []any{"x", uint(3)}}},
	} {
		s := NewSession("s")
		err := s.Record(context.Background(), Node{ID: "r", Kind: ToolResult, Tool: "t", Args: args})
		if err == nil || !strings.Contains(err.Error(), "uint") {
			t.Errorf("%s: %v, want a refusal naming the uint", name, err)
		}
	}
	s := NewSession("s")
	if err := s.Record(context.Background(), Node{ID: "r", Kind: ToolResult, Tool: "t", Args: map[string]any{"n": int64(7), "f": 1.0, "i": int8(-1)}}); err != nil {
		t.Errorf("ints and doubles: %v", err)
	}
	// A message keeps no arguments: whatever they hold, it is recorded.
	if err := s.Record(context.Background(), Node{ID: "m", Kind: Message, Args: map[string]any{"n": uint64(7)}}); err != nil {
		t.Errorf("a message's arguments: %v", err)
	}
}
