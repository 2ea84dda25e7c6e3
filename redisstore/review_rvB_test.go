package redisstore_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
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

// TestResetsConcurrentNotLost: resets by one replica while two replicas
// (four goroutines each) apply updates and read: a reset made after a
// replica's last answer is a newer one, never taken for the server going
// back (TestLossRollbackToEarlierReset), whatever order the answers reach
// each replica's memory in.
func TestResetsConcurrentNotLost(t *testing.T) {
	_, c, prefix := newStoreAt(t, redisstore.Options{})
	var stores [2]*redisstore.Store
	for i := range stores {
		st, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = st
	}
	key := runtime.CounterKey{Rule: "R", Counter: runtime.Fire}
	stop := time.Now().Add(2 * time.Second)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := stores[g%2]
			for time.Now().Before(stop) {
				var err error
				if g == 0 {
					err = st.ResetSession(ctx, "cr")
					time.Sleep(3 * time.Millisecond)
				} else if g%3 == 0 {
					sn := runtime.Snapshot{Keys: []runtime.CounterKey{key}, Counters: make([]int64, 1)}
					err = st.Read(ctx, "cr", &sn)
				} else {
					err = st.Apply(ctx, "cr", &runtime.Update{Counters: []runtime.CounterUpdate{{Key: key}}})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// fakeServer answers every script with answer (RESP, as sent) and every
// other command with an error: a server that speaks the protocol but whose
// scripts answer what the store's do not. It returns its address.
func fakeServer(t *testing.T, answer string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || !strings.HasPrefix(line, "*") {
						return
					}
					n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
					var cmd []string
					for range n {
						h, err := r.ReadString('\n')
						if err != nil {
							return
						}
						l, _ := strconv.Atoi(strings.TrimSpace(h[1:]))
						b := make([]byte, l+2)
						if _, err := io.ReadFull(r, b); err != nil {
							return
						}
						cmd = append(cmd, string(b[:l]))
					}
					out := "-ERR unknown command\r\n"
					if len(cmd) > 0 && (strings.EqualFold(cmd[0], "evalsha") || strings.EqualFold(cmd[0], "eval")) {
						out = answer
					}
					if _, err := c.Write([]byte(out)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestUnexpectedAnswerNotConfirmed: an update, a recording or a mark
// whose script answered something the store's scripts do not (a server
// speaking the protocol whose scripts behave otherwise, a proxy that
// alters answers) may have been applied: the store does not know that the
// script refused, so the error is not confirmed, never "not applied"
// (runtime.ErrNotApplied is for what the store knows was not written).
// Before, every answer the store could not read made a mutation's error
// not applied. A session the script says is lost or corrupt is refused
// (not applied), and a read fails either way.
func TestUnexpectedAnswerNotConfirmed(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		applied      bool // the store knows nothing was applied
	}{
		{"ok without the header", "*1\r\n+ok\r\n", false},
		{"ok with a deadline that is not a number", "*5\r\n+ok\r\n$0\r\n\r\n$1\r\n1\r\n$1\r\nx\r\n$1\r\n1\r\n", false},
		{"an unknown status", "*2\r\n+applied\r\n$0\r\n\r\n", false},
		{"corrupt", "*3\r\n+corrupt\r\n$0\r\n\r\n$4\r\nwhat\r\n", true},
		{"lost", "*3\r\n+lost\r\n$0\r\n\r\n$3\r\nwhy\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := redisstore.New(redis.NewClient(redisstore.ClientOptions(fakeServer(t, tc.answer))), redisstore.Options{Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			errs := map[string]error{
				"apply":  st.Apply(ctx, "u", &runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire("R")}}}),
				"record": st.RecordNode(ctx, "u", runtime.Node{ID: "a", Kind: runtime.Message}),
				"mark":   st.MarkIncomplete(ctx, "u"),
			}
			for what, err := range errs {
				if err == nil || errors.Is(err, runtime.ErrNotApplied) != tc.applied {
					t.Errorf("%s: %v (not applied: %v), want an error, not applied %v", what, err, errors.Is(err, runtime.ErrNotApplied), tc.applied)
				}
			}
			sn := runtime.Snapshot{Keys: []runtime.CounterKey{fire("R")}, Counters: make([]int64, 1)}
			if err := st.Read(ctx, "u", &sn); err == nil {
				t.Errorf("read: no error")
			}
		})
	}
}

// TestResetMarkerEvicted: a session reset by one replica and written
// since, whose marker alone is then evicted (the server's policy evicts
// keys with an expiry), is alive: nothing of it is lost. A replica that
// remembers the generation before the reset must take it as the reset
// generation it is, as it does while the marker is there; before, the
// hash alone did not say that a reset began it, the replica took it for a
// generation that replaced its own before the expiry, and marked the
// healthy session lost for every replica.
func TestResetMarkerEvicted(t *testing.T) {
	a, c, prefix := newStoreAt(t, redisstore.Options{})
	b, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	key := fire("R")
	up := &runtime.Update{Counters: []runtime.CounterUpdate{{Key: key}}}
	if err := a.Apply(ctx, "ev", up); err != nil {
		t.Fatal(err)
	}
	if err := b.ResetSession(ctx, "ev"); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(ctx, "ev", up); err != nil {
		t.Fatal(err)
	}
	c.Del(ctx, prefix+"{ev}:m")
	for i, st := range []*redisstore.Store{a, b, a} {
		sn := runtime.Snapshot{Keys: []runtime.CounterKey{key}, Counters: make([]int64, 1)}
		if err := st.Read(ctx, "ev", &sn); err != nil || sn.Counters[0] != 1 {
			t.Fatalf("read %d after the marker was evicted: %d %v; want 1 without an error", i, sn.Counters[0], err)
		}
	}
}

// TestScopeAnswerOfAnotherShape: a scope whose lists are not lists of
// strings (a server or proxy whose scripts answer otherwise) is an error,
// never a scope without the values it could not read: before, a list of
// another type read as empty and a value that is not a string was left
// out, so a label the rule looks for could go missing without an error.
func TestScopeAnswerOfAnotherShape(t *testing.T) {
	head := "+ok\r\n$0\r\n\r\n$0\r\n\r\n$1\r\n0\r\n:0\r\n$5\r\nscope\r\n*1\r\n$4\r\nread\r\n*0\r\n*0\r\n"
	for _, tc := range []struct{ name, labels string }{
		{"labels an integer", ":1\r\n"},
		{"a label an integer", "*2\r\n$1\r\nl\r\n:7\r\n"},
		{"a label a list", "*2\r\n*1\r\n$6\r\nsecret\r\n$1\r\nl\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := redisstore.New(redis.NewClient(redisstore.ClientOptions(fakeServer(t, "*10\r\n"+head+tc.labels))), redisstore.Options{Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			var sc runtime.Scope
			if err := st.Scope(ctx, "u", []string{"a"}, &sc); err == nil {
				t.Fatalf("no error: tools %q, labels %q", sc.Tools, sc.Labels)
			}
		})
	}
	// The same answer with a list of strings is read.
	st, err := redisstore.New(redis.NewClient(redisstore.ClientOptions(fakeServer(t, "*10\r\n"+head+"*1\r\n$1\r\nl\r\n"))), redisstore.Options{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	var sc runtime.Scope
	if err := st.Scope(ctx, "u", []string{"a"}, &sc); err != nil || len(sc.Labels) != 1 || sc.Labels[0] != "l" || len(sc.Tools) != 1 {
		t.Fatalf("%v %+v", err, sc)
	}
}
