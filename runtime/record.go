package runtime

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Record is the decision record of one occurrence (spec 10, "Decision
// records"): one JSON object per line of a decision log, with the fields in
// this order. time is RFC 3339 in UTC (with the fraction of a second
// Go's time.RFC3339Nano gives); session is left out when the occurrence has
// none; the four lists are never null ([] when empty).
type Record struct {
	Time         time.Time     `json:"time"`
	Pack         string        `json:"pack"`
	Digest       string        `json:"digest"`
	Session      string        `json:"session,omitempty"`
	Anchor       string        `json:"anchor"`
	Tool         string        `json:"tool"`
	Decision     string        `json:"decision"`
	Code         string        `json:"code"`
	Codes        []string      `json:"codes"`
	Monitored    []string      `json:"monitored"`
	FailedClosed []string      `json:"failed_closed"`
	Errors       []RecordError `json:"errors"`
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
// valid only during the call. Recorders must be safe for concurrent use.
type Recorder interface {
	Record(r *Record)
}

// WithRecorder makes an evaluator hand a decision record of every
// occurrence to r. Without it, evaluation builds no record at all.
func WithRecorder(r Recorder) Option {
	return func(c *Config) { c.Recorder = r }
}

// JSONLRecorder writes records as JSON Lines: a decision log that `oarc
// stats` reads.
type JSONLRecorder struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

// NewJSONLRecorder returns a recorder writing to w.
func NewJSONLRecorder(w io.Writer) *JSONLRecorder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONLRecorder{enc: enc}
}

// Record writes one line. A time not in UTC is written in UTC, and nil
// lists as [].
func (j *JSONLRecorder) Record(r *Record) {
	if r.Time.Location() != time.UTC || r.Codes == nil || r.Monitored == nil || r.FailedClosed == nil || r.Errors == nil {
		c := *r
		c.Time = c.Time.UTC()
		c.Codes, c.Monitored, c.FailedClosed = nonNilStrings(c.Codes), nonNilStrings(c.Monitored), nonNilStrings(c.FailedClosed)
		if c.Errors == nil {
			c.Errors = []RecordError{}
		}
		r = &c
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = j.enc.Encode(r)
	}
}

func nonNilStrings(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// Err returns the first write error, if any.
func (j *JSONLRecorder) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
