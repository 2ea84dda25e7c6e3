package guard_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// A transform rule that fires only because its validator failed (spec
// 5.1: fail_closed fires with its own effect) has no spans to redact:
// the host's secret_matches is empty when no detector ran. The guard
// forwarded the result unredacted while the decision said transform; the
// rule now redacts the whole content (docs/choices-runtime.md), so every
// text unit reaches the client replaced and the secret nowhere.
func TestFailedValidatorRedactsWholeResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"failed", errors.New("scanner down")},
		{"timeout", context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := lycaon.Env{Validators: map[string]lycaon.Validator{
				"oarc.secrets": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
					return runtime.Detection{}, tc.err
				},
			}}
			set, err := testset.Guard(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := guard.New(set)
			if err != nil {
				t.Fatal(err)
			}
			c := proxyConn(g, fs)
			ctx := context.Background()
			k := c.Begin(ctx, nil, "read_text_file", args(t, map[string]string{"path": "/env"}))
			out := k.Finish(ctx, textResult("key="+awsKey, "token "+ghToken+" end"), 0, guard.FinishOptions{})
			if strings.Contains(string(out), awsKey) || strings.Contains(string(out), ghToken) {
				t.Fatalf("a secret went through a guard that failed closed: %s", out)
			}
			d := decode(t, out)
			if len(d.Content) < 2 || d.Content[0].Text != "[REDACTED]" || d.Content[1].Text != "[REDACTED]" {
				t.Errorf("units not redacted whole: %s", out)
			}
		})
	}
}
