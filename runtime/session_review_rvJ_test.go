package runtime

import (
	"context"
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
