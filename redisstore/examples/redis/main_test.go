package main

import (
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore/redistest"
)

// The demo against the test server: the escalation across the replicas,
// the repeats counted by the session's record whichever replica saw the
// calls before.
func TestDemo(t *testing.T) {
	addr := redistest.Addr(t)
	var out strings.Builder
	cfg := config{addr: addr, ttl: time.Minute, prefix: redistest.Prefix(t, redistest.Client(t, addr)), session: "demo", timeout: time.Second}
	if err := run(&out, cfg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"replica-b write /etc/hosts                   -> block (ETC_WRITE_FORBIDDEN)",
		"replica-a grep TODO (repeat 2)               -> allow",
		"replica-b grep TODO (repeat 3)               -> nudge (REPEATED_CALL_NUDGE)",
		"replica-a grep TODO (repeat 4)               -> nudge (REPEATED_CALL_NUDGE)",
		"replica-b grep TODO (repeat 5)               -> block (REPEATED_CALL_ESCALATE)",
		"replica-a grep TODO (repeat 6)               -> nudge (REPEATED_CALL_NUDGE)",
		"REPEATED_CALL_NUDGE.fire = 2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "error") {
		t.Errorf("errors:\n%s", out.String())
	}
}
