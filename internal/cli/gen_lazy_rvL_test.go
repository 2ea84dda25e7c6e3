package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGenLazyRefusesEngineReadFacts: -lazy tool and -lazy tool_args are
// refused. The engine reads them at every call, whatever the rules read
// (the session's record of spec 5.10: tool_args_fingerprint,
// lycaon.repeat_count, the calls' tools; batch_tools; the decision
// record's tool), from the occurrence's Facts; and tool_arg_string,
// _int and _bool read Facts.ToolArgs. With the arguments given only
// through Env.Lazy, a rule reading tool_args.x saw them and one calling
// tool_arg_string("x") read "" (a block rule that never fired), and a
// rule of the rule store, reading tool_args through the getter, fired
// where its compiled form did not.
func TestGenLazyRefusesEngineReadFacts(t *testing.T) {
	pack := filepath.Join("..", "..", "examples", "acme", "rules")
	for _, f := range []string{"tool", "tool_args", "content_sources,tool_args"} {
		out := filepath.Join(t.TempDir(), "rules")
		code, _, errs := run("gen", "-pack", pack, "-out", out, "-catalog-pkg", "example.com/acme", "-catalog-out", filepath.Join(t.TempDir(), "acme"), "-lazy", f)
		name := f[strings.LastIndex(f, ",")+1:]
		if code != 2 || !strings.Contains(errs, "-lazy "+name+": the engine reads it at every call") {
			t.Errorf("-lazy %s: exit %d, %q", f, code, errs)
		}
	}
}
