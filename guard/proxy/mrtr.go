package proxy

// This file asks a client of MCP 2026-07-28 or later for a person's
// approval (spec 5.12). Such a client sends no initialize and accepts no
// request of the server while it waits for a result (multi round-trip
// requests, SEP-2322): the question goes back as the call's result
// (resultType input_required, one elicitation/create among its
// inputRequests, and a requestState), and the client retries the call
// with the answer in inputResponses and the requestState. The middleware
// of package mcpguard does the same (docs/mcp.md).

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/jsonscan"
)

// maxAsked bounds the questions sent back and not answered yet: a client
// that never retries its calls cannot grow the proxy without bound. The
// oldest question beyond it is forgotten (its retry is no answer, and
// blocks).
const maxAsked = 1024

// maxAskedBytes bounds the bytes the questions waiting for their answer
// hold of the upstream's rounds they interrupted (a requestState and
// inputResponses each, up to -max-message): the oldest questions beyond
// it are forgotten, as beyond maxAsked. The call a question is about is
// held as a digest.
const maxAskedBytes = 32 << 20

type roundKey struct{}

// round is one round of a tools/call of a client of modernVersion or
// later.
type round struct {
	guard.AskRound
	// elicit says that the request declared the elicitation capability
	// (params._meta's io.modelcontextprotocol/clientCapabilities).
	elicit bool
}

// ask is proxy.ask for a round.
func (r *round) ask(question string) (bool, error) {
	if !r.elicit {
		return false, guard.ErrCannotAsk
	}
	return r.Ask(question)
}

// askedCall is a question sent back in a result, by its requestState: the
// call it is about (its tool and arguments as the proxy forwards them),
// until when an answer counts, and the upstream's own round of the call
// (its requestState and the client's inputResponses to it) that the
// question interrupted, to forward with the approved retry.
type askedCall struct {
	call      string
	question  string
	expires   time.Time
	seq       int64
	upState   json.RawMessage
	upAnswers json.RawMessage
}

// size is what a question waiting holds of the upstream's round.
func (a *askedCall) size() int { return len(a.upState) + len(a.upAnswers) }

// modernElicit says whether a request of modernVersion or later declares
// the elicitation capability in its _meta.
func modernElicit(params map[string]json.RawMessage) bool {
	// Names spelt exactly, as the SDKs read them (encoding/json would
	// read "ELICITATION" too).
	meta, _ := jsonscan.Members(params["_meta"])
	caps, _ := jsonscan.Members(meta["io.modelcontextprotocol/clientCapabilities"])
	return formElicitation(caps["elicitation"])
}

// callKey identifies a call by its tool and its arguments as the proxy
// forwards them, for the answer to a question about it: a SHA-256 digest,
// so that a question waiting holds 32 bytes of a call of any size.
func callKey(name string, args json.RawMessage) (string, error) {
	canon := []byte("{}")
	if len(args) > 0 && !isNull(args) {
		var err error
		if canon, err = guard.CanonicalArgs(args); err != nil {
			return "", err
		}
	}
	return guard.CallDigest(name, canon), nil
}

// retried reads the round of a call that may be the retry of one the
// proxy asked about: a requestState of the proxy's own (taken: it counts
// once) makes the round answered, with the client's answer to guard.AskInputID,
// for that call only and in time; the state and the answer are then taken
// out of params, and the upstream's own round that the question
// interrupted, if any, is put back when the retry is that call. A state
// the proxy sent and no longer waits for is taken out with the answers
// too (guard.IsAskState); a requestState the proxy did not send is the
// upstream's, and passes with the inputResponses.
func (p *proxy) retried(r *round, name string, params map[string]json.RawMessage) error {
	raw, ok := params["requestState"]
	if !ok {
		return nil
	}
	var state string
	if json.Unmarshal(raw, &state) != nil {
		return nil // not one of the proxy's: the upstream reads it
	}
	p.mu.Lock()
	a := p.asked[state]
	delete(p.asked, state)
	p.mu.Unlock()
	if a == nil {
		if guard.IsAskState(state) {
			// The proxy's, used, expired or forgotten (or spelt in
			// another case): no answer, and neither it nor the answer to
			// the proxy's question goes to the upstream as its own.
			delete(params, "requestState")
			delete(params, "inputResponses")
		}
		return nil
	}
	delete(params, "requestState")
	answers := params["inputResponses"]
	delete(params, "inputResponses")
	r.Answered = true
	call, err := callKey(name, params["arguments"])
	if err != nil {
		return errors.New("arguments: " + err.Error())
	}
	if call != a.call {
		// Answered, but not this call: no answer, and the upstream's
		// round of the call asked about stays with that call (another
		// call would carry its state and answers to the upstream).
		return nil
	}
	if a.upState != nil {
		params["requestState"] = a.upState
	}
	if a.upAnswers != nil {
		params["inputResponses"] = a.upAnswers
	}
	if !time.Now().Before(a.expires) {
		return nil // too late: no answer
	}
	if m, dups, err := jsonscan.MembersDup(answers); err == nil && len(dups) == 0 && oneMeaning(m[guard.AskInputID]) {
		r.Approved = approvedAnswer(m[guard.AskInputID])
	}
	r.Asked = a.question
	return nil
}

// oneMeaning says whether an answer (an ElicitResult) gives no name twice,
// in it or in its content: one that does says both things, whichever a
// parser keeps, and is no explicit yes.
func oneMeaning(answer json.RawMessage) bool {
	top, dups, err := jsonscan.MembersDup(answer)
	if err != nil || len(dups) > 0 {
		return false
	}
	content, ok := top["content"]
	if !ok {
		return true
	}
	_, dups, err = jsonscan.MembersDup(content)
	return err != nil || len(dups) == 0 // not an object: approvedAnswer reads no yes
}

// inputRequired is the result that sends the question of round r's ask
// decision back to the client, with a fresh requestState that the
// retried call must carry; the call k is not forwarded. A question that
// cannot be sent blocks with k's rejection.
func (p *proxy) inputRequired(r *round, k *guard.Call, name string, params map[string]json.RawMessage) json.RawMessage {
	call, err := callKey(name, params["arguments"])
	if err != nil {
		return guard.Refused(errors.New("the arguments cannot be read: " + err.Error()))
	}
	state, err := guard.NewAskState()
	if err != nil {
		return k.Blocked()
	}
	now := time.Now()
	a := &askedCall{call: call, question: r.Question, expires: now.Add(p.o.askTimeout)}
	if !r.Answered {
		// The upstream's own round of the call, if it is one: forwarded
		// again with the approved retry.
		a.upState = bytes.Clone(params["requestState"])
		a.upAnswers = bytes.Clone(params["inputResponses"])
	}
	p.mu.Lock()
	p.askSeq++
	a.seq = p.askSeq
	type waiting struct {
		state string
		seq   int64
		size  int
	}
	live := make([]waiting, 0, len(p.asked))
	held := a.size()
	for s, o := range p.asked {
		if !now.Before(o.expires) {
			delete(p.asked, s) // never answered
			continue
		}
		live = append(live, waiting{s, o.seq, o.size()})
		held += o.size()
	}
	// The oldest are forgotten first, until the new question fits.
	slices.SortFunc(live, func(x, y waiting) int { return cmp.Compare(x.seq, y.seq) })
	for i := 0; i < len(live) && (len(p.asked) >= maxAsked || held > maxAskedBytes); i++ {
		delete(p.asked, live[i].state)
		held -= live[i].size
	}
	p.asked[state] = a
	p.mu.Unlock()
	out, err := json.Marshal(map[string]any{
		"content":      []any{},
		"resultType":   "input_required",
		"requestState": state,
		"inputRequests": map[string]any{guard.AskInputID: map[string]any{
			"method": "elicitation/create",
			"params": map[string]any{"mode": "form", "message": r.Question, "requestedSchema": guard.ApproveSchema()},
		}},
	})
	if err != nil {
		return k.Blocked()
	}
	return out
}
