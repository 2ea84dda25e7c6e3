package runtime

// This file owns decision records (spec 10): the Record type, the call id
// a host attaches to an occurrence's context (spec 11), the JSON Lines
// encoding, and the synchronous JSONLRecorder. The asynchronous recorder
// is in recorder_async.go.

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// Record is the decision record of one occurrence (spec 10, "Decision
// records"): one JSON object per line of a decision log, with the fields in
// this order. time is RFC 3339 in UTC (with the fraction of a second
// Go's time.RFC3339Nano gives); session is left out when the occurrence has
// none, and so is call; the four lists are never null ([] when empty).
type Record struct {
	Time   time.Time `json:"time"`
	Pack   string    `json:"pack"`
	Digest string    `json:"digest"`
	// Tenant is the session's tenant (spec 5.11), empty by default: a
	// session is its (tenant, session) pair.
	Tenant  string `json:"tenant,omitempty"`
	Session string `json:"session,omitempty"`
	// Call is the id of the call the occurrence belongs to, as the host
	// gave it with [WithCallID]: for MCP, the JSON-RPC request id, a JSON
	// number or string written as given (spec 11). A value that is not
	// JSON (or not UTF-8) is written as a JSON string of its text.
	Call         json.RawMessage `json:"call,omitempty"`
	Anchor       string          `json:"anchor"`
	Tool         string          `json:"tool"`
	Decision     string          `json:"decision"`
	Code         string          `json:"code"`
	Codes        []string        `json:"codes"`
	Monitored    []string        `json:"monitored"`
	FailedClosed []string        `json:"failed_closed"`
	Errors       []RecordError   `json:"errors"`
}

// RecordError is one evaluation error of a record.
type RecordError struct {
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Recorder receives a record per occurrence from an evaluator bound with
// [WithRecorder]. Record is called synchronously at the end of each
// evaluation, from the evaluating goroutine; the record and its slices are
// valid only during the call (a recorder that keeps them copies them; Go
// strings are immutable and may be kept). Recorders must be safe for
// concurrent use.
type Recorder interface {
	Record(r *Record)
}

// WithRecorder makes an evaluator hand a decision record of every
// occurrence to r. Without it, evaluation builds no record at all.
func WithRecorder(r Recorder) Option {
	return func(c *Config) { c.Recorder = r }
}

type callIDKey struct{}

// WithCallID returns a context that carries the id of the call an
// occurrence belongs to, for its decision record's call field: a host
// evaluating an MCP tools/call passes the JSON-RPC request id as it came
// (a number or a string, spec 11). id is copied.
func WithCallID(ctx context.Context, id json.RawMessage) context.Context {
	return context.WithValue(ctx, callIDKey{}, json.RawMessage(append([]byte(nil), id...)))
}

type previewKey struct{}

// WithPreview marks the evaluations under ctx as previews: the host
// evaluates the same action again before it runs, and only that
// evaluation counts. A preview's decision is not recorded (the
// [Recorder] of [WithRecorder] is not called) and a rule store's trials
// do not observe it. The MCP guard previews a call of a client that
// gets the question of an ask decision back in the call's result (MCP's
// multi round-trip requests), against a view of the session that
// applies nothing, so that the one action is counted once.
func WithPreview(ctx context.Context) context.Context {
	return context.WithValue(ctx, previewKey{}, true)
}

// IsPreview says whether ctx is of a preview ([WithPreview]); false for
// a nil ctx.
func IsPreview(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	p, _ := ctx.Value(previewKey{}).(bool)
	return p
}

// CallID returns the call id that [WithCallID] put into ctx, nil when there
// is none (or ctx is nil). It does not allocate.
func CallID(ctx context.Context) json.RawMessage {
	if ctx == nil {
		return nil
	}
	id, _ := ctx.Value(callIDKey{}).(json.RawMessage)
	return id
}

// JSONLRecorder writes records as JSON Lines, one Write per record, on the
// evaluating goroutine: a decision log that `oarc stats` reads. Each
// evaluation waits for its write (and for other goroutines' writes), so a
// host that records in production uses [NewAsyncRecorder]; this one suits
// tests and tools. After a write error it writes nothing more, and counts
// every record it did not write (Dropped); Err returns the error.
type JSONLRecorder struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	err     error
	dropped uint64
}

// NewJSONLRecorder returns a recorder writing to w.
func NewJSONLRecorder(w io.Writer) *JSONLRecorder {
	return &JSONLRecorder{w: w}
}

// Record writes one line. A time not in UTC is written in UTC, and nil
// lists as [].
func (j *JSONLRecorder) Record(r *Record) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		j.dropped++
		return
	}
	j.buf = appendRecord(j.buf[:0], r)
	if _, err := j.w.Write(j.buf); err != nil {
		// A line written in part is not a record either: oarc stats
		// reports it and reads on.
		j.err = err
		j.dropped++
	}
}

// Err returns the first write error, if any.
func (j *JSONLRecorder) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Dropped returns how many records were not written: the one whose write
// failed and every one after it.
func (j *JSONLRecorder) Dropped() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.dropped
}

// appendRecord appends r as one line of JSON and its newline: the bytes
// encoding/json writes for a Record (HTML characters not escaped), without
// reflection or allocation. It differs from encoding/json where that
// fails: a time outside years 0 to 9999 is written as Go formats it, and a
// call that is not JSON as a string.
func appendRecord(b []byte, r *Record) []byte {
	b = append(b, `{"time":"`...)
	b = r.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","pack":`...)
	b = appendString(b, r.Pack)
	b = append(b, `,"digest":`...)
	b = appendString(b, r.Digest)
	if r.Session != "" {
		b = append(b, `,"session":`...)
		b = appendString(b, r.Session)
	}
	if len(r.Call) > 0 {
		b = append(b, `,"call":`...)
		b = appendRaw(b, r.Call)
	}
	b = append(b, `,"anchor":`...)
	b = appendString(b, r.Anchor)
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	b = append(b, `,"decision":`...)
	b = appendString(b, r.Decision)
	b = append(b, `,"code":`...)
	b = appendString(b, r.Code)
	b = append(b, `,"codes":`...)
	b = appendStrings(b, r.Codes)
	b = append(b, `,"monitored":`...)
	b = appendStrings(b, r.Monitored)
	b = append(b, `,"failed_closed":`...)
	b = appendStrings(b, r.FailedClosed)
	b = append(b, `,"errors":[`...)
	for i := range r.Errors {
		if i > 0 {
			b = append(b, ',')
		}
		e := &r.Errors[i]
		b = append(b, `{"rule":`...)
		b = appendString(b, e.Rule)
		b = append(b, `,"kind":`...)
		b = appendString(b, e.Kind)
		b = append(b, `,"message":`...)
		b = appendString(b, e.Message)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

func appendStrings(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it
// without HTML escaping: \" \\ \b \f \n \r \t, other control characters as
// \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped (they end
// lines in JavaScript).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendRaw appends a call id: valid JSON in UTF-8 compacted (as
// encoding/json writes a json.RawMessage), anything else as a JSON string
// of its text, so that every line stays one JSON object in UTF-8.
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return appendString(b, string(raw))
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				b = append(b, c)
				i++
				c = raw[i]
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b = append(b, c)
	}
	return b
}
