package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oarc/oarc/examples/host/approvals"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// person is someone at a terminal who answers questions (spec 5.12): the
// lines they type, read as they come, so that a question can time out.
type person struct {
	lines chan string // closed when the input ends
}

// newPerson reads the answers typed on in, one per line, until it ends.
// The reader stays blocked on in when the demo ends; a host that asks for
// longer than its process lives would read once and close in instead.
func newPerson(in io.Reader) *person {
	p := &person{lines: make(chan string)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	return p
}

// ask puts question to the person on w and waits at most timeout for a
// line: only an explicit yes ("y" or "yes", in any case) approves; a no,
// anything else, the end of the input and a timeout do not.
func (p *person) ask(w io.Writer, question string, timeout time.Duration) (approved bool, why string) {
	fmt.Fprintf(w, "    [question for a person]\n      %s\n    Approve? [y/N] ", strings.ReplaceAll(question, "\n", "\n      "))
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			fmt.Fprintln(w)
			return false, "no answer"
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, "approved"
		}
		return false, "not approved"
	case <-t.C:
		fmt.Fprintln(w)
		return false, "no answer in " + timeout.String()
	}
}

// approvalCalls are the demo's calls of the approvals pack: a deploy,
// which a person must approve, and a test run, which needs no one.
func approvalCalls() []call {
	bash := func(cmd string) call {
		c := call{what: "bash: " + cmd, occ: lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}}
		c.occ.Facts.Tool = "bash"
		c.occ.Facts.ToolArgs = map[string]any{"command": cmd}
		return c
	}
	return []call{bash("make test"), bash("make deploy")}
}

// runApprovals evaluates the approvals pack's calls. An ask decision is put
// to the person (nil: there is no way to ask, as when the demo's input is
// not a terminal): the call goes ahead only on an explicit yes, anything
// else blocks it with the rule's rejection (spec 5.12).
func runApprovals(w io.Writer, p *person, timeout time.Duration) {
	fmt.Fprintln(w, "\nCalls a person may have to approve (the approvals pack):")
	ev, err := approvals.New(lycaon.Env{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	session := runtime.NewSession("approvals")
	var d runtime.Decision
	for _, c := range approvalCalls() {
		ev.Evaluate(context.Background(), &c.occ, session, &d)
		fmt.Fprintf(w, "%-44s -> %s\n", c.what, d.Effect)
		if d.Effect != runtime.Ask {
			continue
		}
		if p == nil {
			fmt.Fprintln(w, "    no way to ask a person: blocked")
			show(w, "rejection", d.Unasked())
			continue
		}
		ok, why := p.ask(w, d.Question(), timeout)
		if ok {
			fmt.Fprintf(w, "    %s: the call goes ahead\n", why)
			continue
		}
		fmt.Fprintf(w, "    %s: blocked\n", why)
		show(w, "rejection", d.Rejection())
	}
}
