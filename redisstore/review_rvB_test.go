package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
)

// TestLossRollbackToEarlierReset: a session begun by a reset is reset
// again (a host that resets every session it starts, and resets one it
// found lost), and the server then goes back to the first reset's
// generation (a failover to a replica that had not received the second
// reset, a restart from an older file; here the keys are restored as they
// were). A replica that saw the second generation's mutations must fail
// closed, as it does when the server goes back within one generation or to
// one not begun by a reset: before, a generation begun by a reset was
// taken for a reset newer than what the replica remembered, and the
// session silently went back to the first generation's counters. A reset
// made after the replica's last call is still accepted.
func TestLossRollbackToEarlierReset(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	h := prefix + "{rb}"
	key := runtime.CounterKey{Rule: "R", Counter: runtime.Fire}
	incr := func(n int) {
		t.Helper()
		for range n {
			if err := s.Apply(ctx, "rb", &runtime.Update{Counters: []runtime.CounterUpdate{{Key: key}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func() (int64, error) {
		sn := runtime.Snapshot{Keys: []runtime.CounterKey{key}, Counters: make([]int64, 1)}
		err := s.Read(ctx, "rb", &sn)
		return sn.Counters[0], err
	}
	if err := s.ResetSession(ctx, "rb"); err != nil {
		t.Fatal(err)
	}
	incr(1)
	// The first reset's generation, as the server held it.
	var dumps [2]string
	for i, k := range []string{h, h + ":m"} {
		d, err := c.Dump(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		dumps[i] = d
	}
	time.Sleep(1100 * time.Millisecond) // the second reset a second and more later
	if err := s.ResetSession(ctx, "rb"); err != nil {
		t.Fatal(err)
	}
	incr(3)
	if n, err := read(); n != 3 || err != nil {
		t.Fatalf("before the rollback: %d %v", n, err)
	}
	for i, k := range []string{h, h + ":m"} {
		if err := c.RestoreReplace(ctx, k, time.Hour, dumps[i]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	n, err := read()
	if !errors.Is(err, redisstore.ErrSessionLost) {
		t.Fatalf("after the server went back to the first reset's generation: counter %d, %v; want ErrSessionLost", n, err)
	}
	// Reset, another reset from a replica that remembers nothing, and a
	// call: accepted, counters from zero.
	if err := s.ResetSession(ctx, "rb"); err != nil {
		t.Fatal(err)
	}
	incr(2)
	other, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.ResetSession(ctx, "rb"); err != nil {
		t.Fatal(err)
	}
	if n, err := read(); n != 0 || err != nil {
		t.Fatalf("after a reset by another replica: %d %v; want 0 without an error", n, err)
	}
}
