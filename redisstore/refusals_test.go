package redisstore_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
)

// TestServerRefusals: what the server refuses, and what it forgot. After
// SCRIPT FLUSH (a restart, a failover to a server that never ran them)
// the scripts are sent again, and each update applies once. A server out
// of memory (noeviction) refuses every update before it runs: each is
// reported not applied and leaves the session as it was, reads still
// answer, and updates apply again once memory is freed. A read-only
// replica refuses every call, reads too (they refresh the expiry): an
// error, never a session read as new.
func TestServerRefusals(t *testing.T) {
	srv := redistest.StartServer(t, false, "--maxmemory-policy", "noeviction")
	c := redistest.Client(t, srv.Addr)
	s, err := redisstore.New(c, redisstore.Options{Prefix: "r:"})
	if err != nil {
		t.Fatal(err)
	}
	up := []runtime.CounterUpdate{{Key: fire("R")}}
	fireR := func() int64 { return read(t, s, "s", fire("R"))[0] }
	if err := runtime.ApplyCounters(ctx, s, "s", up); err != nil {
		t.Fatal(err)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := runtime.ApplyCounters(ctx, s, "s", up); err != nil {
		t.Fatalf("after SCRIPT FLUSH: %v", err)
	}
	if n := fireR(); n != 2 {
		t.Fatalf("after SCRIPT FLUSH: %d, want 2", n)
	}

	// Out of memory: the limit just above what the server uses, then
	// filled.
	info, _ := c.Info(ctx, "memory").Result()
	var mem int64
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			mem, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(mem+2<<20, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	for i := 0; ; i++ {
		if err := c.Set(ctx, "fill:"+strconv.Itoa(i), big, 0).Err(); err != nil {
			if !strings.Contains(err.Error(), "OOM") {
				t.Fatal(err)
			}
			break
		}
		if i > 1000 {
			t.Fatal("the server never refused a write")
		}
	}
	// The server stays out of memory: the limit goes down to what it used
	// before the fill, 2 MiB below what it uses now. At the limit the
	// fill reached, its usage went back under it now and then (a
	// client's query buffer of 64 KiB freed by its cron meanwhile) and an
	// update ran (under load, 17 runs in ~300; none with this).
	if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(mem, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	before, _ := c.HGetAll(ctx, "r:{s}").Result()
	for name, call := range map[string]func() error{
		"apply":  func() error { return runtime.ApplyCounters(ctx, s, "s", up) },
		"record": func() error { return s.RecordNode(ctx, "s", runtime.Node{ID: "n", Kind: runtime.Message}) },
		"mark":   func() error { return s.MarkIncomplete(ctx, "s") },
		"reset":  func() error { return s.ResetSession(ctx, "s") },
	} {
		if err := call(); err == nil || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("out of memory, %s: %v; want not applied", name, err)
		}
	}
	if after, _ := c.HGetAll(ctx, "r:{s}").Result(); len(after) != len(before) || after["c:R.fire"] != "2" {
		t.Errorf("out of memory, the session became %v (was %v)", after, before)
	}
	if n := fireR(); n != 2 {
		t.Errorf("out of memory, a read: %d, want 2", n)
	}
	c.ConfigSet(ctx, "maxmemory", "0")
	if err := runtime.ApplyCounters(ctx, s, "s", up); err != nil {
		t.Fatalf("memory freed: %v", err)
	}
	if n := fireR(); n != 3 {
		t.Fatalf("memory freed: %d, want 3", n)
	}

	// A read-only replica.
	rep := redistest.StartServer(t, false)
	cr := redistest.Client(t, rep.Addr)
	host, port, _ := strings.Cut(srv.Addr, ":")
	if err := cr.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v, _ := cr.HGet(ctx, "r:{s}", "c:R.fire").Result(); v == "3" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica does not follow")
		}
		time.Sleep(50 * time.Millisecond)
	}
	sr, err := redisstore.New(cr, redisstore.Options{Prefix: "r:"})
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"s", "new"} {
		if err := runtime.ApplyCounters(ctx, sr, session, up); err == nil || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("a read-only replica, an update of %s: %v; want not applied", session, err)
		}
		if err := runtime.ReadCounters(ctx, sr, session, []runtime.CounterKey{fire("R")}, make([]int64, 1)); err == nil {
			t.Errorf("a read-only replica, a read of %s: no error", session)
		}
	}
	if n := fireR(); n != 3 {
		t.Fatalf("after the replica's refusals: %d, want 3", n)
	}
}
