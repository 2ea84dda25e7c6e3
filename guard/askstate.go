package guard

// This file owns what the MCP guard's two forms (the proxy and the SDK
// middleware) share when they ask a person (spec 5.12): the question's
// schema, its key among a result's inputRequests, and the requestStates
// of questions sent back to a client of MCP 2026-07-28 or later.

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// AskInputID is the key of the guard's question among a result's
// inputRequests, and of its answer among the retried call's
// inputResponses (multi round-trip requests).
const AskInputID = "oarc/approve"

// ApproveSchema is the requested schema of the guard's elicitations: one
// boolean, approve. Each call returns a map of its own.
func ApproveSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "Let this action go ahead."},
		},
		"required": []string{"approve"},
	}
}

// askStateKey authenticates the requestStates of NewAskState, so that the
// guard knows its own after it forgot them.
var askStateKey = func() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}()

// NewAskState is a fresh requestState: 128 random bits and their tag
// under a key of the process (128 bits), in hex.
func NewAskState() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:16]); err != nil {
		return "", err
	}
	copy(b[16:], askStateTag(b[:16]))
	return hex.EncodeToString(b[:]), nil
}

func askStateTag(nonce []byte) []byte {
	m := hmac.New(sha256.New, askStateKey)
	m.Write(nonce)
	return m.Sum(nil)[:16]
}

// IsAskState says whether s is a requestState of NewAskState's in this
// process, in any case of its hex digits: one the guard sent, whether it
// still waits for the answer or not.
func IsAskState(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && hmac.Equal(b[16:], askStateTag(b[:16]))
}

// CallDigest identifies a call by its tool name and its arguments as
// given (callers pass them canonical, CanonicalArgs), for the answer to a
// question about it: 32 bytes held for a call of any size.
func CallDigest(name string, args []byte) string {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(args)
	return string(h.Sum(nil))
}

// ErrNeedInput is what AskRound.Ask returns for the first round of a
// call whose question goes back to the client in the result: the call
// is blocked for now, and the client retries it with the answer.
var ErrNeedInput = errors.New("the question goes back to the client in the result")

// AskRound is one round of a tools/call of a client of MCP 2026-07-28 or
// later, which accepts no request of the server while it waits for a
// result (multi round-trip requests): either the retry of a call the
// guard asked about, with the answer, or a round whose question, if its
// rules ask one, goes back in the result.
type AskRound struct {
	// Answered says that the call is the retry of one the guard asked
	// about, with a requestState the guard still waited for; Approved that
	// its answer was an explicit yes, and Asked the question it answers.
	// The answer approves that question once, never another ask of the
	// retried call (a rule after the call) that no person was shown.
	Answered bool
	Approved bool
	Asked    string
	used     bool
	// Question is the question of the round's ask decision, to send back
	// when the round is not answered.
	Question string
}

// Ask is a ConnOptions.Ask for the round: the answer the retry brought,
// for the question it answers, once; else the question is kept in
// Question and the answer is ErrNeedInput.
func (r *AskRound) Ask(question string) (bool, error) {
	if r.Answered {
		if r.used || question != r.Asked {
			return false, errors.New("the answer the call came back with is to another question")
		}
		r.used = true
		return r.Approved, nil
	}
	r.Question = question
	return false, ErrNeedInput
}
