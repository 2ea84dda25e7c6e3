// Package rulestore is the store of the rules an agent writes for itself
// at run time (spec 12, after seed 001): learned from its failures, in
// force at once as candidates (monitored), proven on trial, then promoted
// (enforced, and later compiled: `oarc promote`) or retired.
//
// The store is an append-only JSON Lines file (or any reader and writer a
// host gives): the last record of an id wins, so a status change, or a
// step of a trial, appends a record and history is never rewritten. A
// rule is added only once it checks exactly as `oarc check` would check it
// in the compilation set the host runs (its catalog, its rule ids, the
// references to its rules), with a project pack's effect limits.
//
// A *Store is a [runtime.RuleStore]: give it to the generated evaluator
// with runtime.WithRuleStore, and its rules run, through the interpreter
// of package interp, after the compiled rules of their anchor and in the
// same decision. A host links this package only when it wants a store: it
// brings the compiler and cel-go with it. docs/store.md describes it.
package rulestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime/impl"
)

// Status is a rule's place in its lifecycle.
type Status string

// The statuses.
const (
	// Candidate rules are in force in monitor: they never block, warn or
	// nudge, and are on trial.
	Candidate Status = "candidate"
	// Active rules are enforced, whatever their document's enforcement.
	Active Status = "active"
	// Retired rules are not in force; their ids stay taken.
	Retired Status = "retired"
)

// Live reports whether the status is in force (candidate or active).
func (s Status) Live() bool { return s == Candidate || s == Active }

// Record is one line of the store: a rule's state at the time it was
// written. The last record of an id is the rule's state.
type Record struct {
	ID string `json:"id"`
	// CreatedAt is when this record was written (RFC 3339, UTC): the
	// first record of an id is the rule's creation, a later one a change.
	CreatedAt time.Time `json:"created_at"`
	Status    Status    `json:"status"`
	// Rule is the OAR rule document as a JSON object, as a fixture's
	// `rule` (its copy sanitised).
	Rule json.RawMessage `json:"rule"`
	// Rationale says why the rule exists; Source what motivated it (a
	// notice id, a failing call); Tags are extra retrieval tokens.
	Rationale string   `json:"rationale,omitempty"`
	Source    string   `json:"source,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	// Reason says why the rule was retired.
	Reason string `json:"reason,omitempty"`
	// Trial is a candidate's trial so far.
	Trial *Trial `json:"trial,omitempty"`
}

// DefaultCap is the default number of live rules (candidates and active)
// a store holds.
const DefaultCap = 50

// DefaultSessions is the default number of distinct sessions a candidate
// must fire in to be ready (the rule of oarc stats, spec 10).
const DefaultSessions = 5

// MaxSessions is the largest trial threshold: a trial keeps the sessions
// a candidate fired in, up to this many.
const MaxSessions = 64

// Options configure a store.
type Options struct {
	// Cap is the most live rules the store holds (0: DefaultCap).
	Cap int
	// Sessions is the trial's threshold (0: DefaultSessions; at most
	// MaxSessions).
	Sessions int
	// Check are the options rules are checked with (MaxCost, Portable);
	// the catalog is always the compilation set's. MaxCost 0: the
	// lowest limit of the set's packs (a pack without max_cost has
	// compiler.DefaultMaxCost).
	Check compiler.Options
	// Warn receives the store's problems as they are found, one line each
	// ("FILE:LINE: error: ..." for a line that is not a record): os.Stderr
	// for a command. nil: they are only kept (Problems).
	Warn io.Writer
	// Now stamps records (nil: time.Now).
	Now func() time.Time
}

// Problem is something the store skipped: a line that is not a record
// (Line > 0), or a rule that is not in force because it no longer checks
// against the compilation set.
type Problem struct {
	File string
	Line int    // 0: not a line's problem
	ID   string // the rule, when known
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: error: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: error: %s", p.File, p.Msg)
}

// Store is a rule store. It is safe for concurrent use.
type Store struct {
	set      *compiler.Set
	env      *interp.Env
	opts     Options
	name     string // the file's name in messages
	compiled map[string]bool
	slots    map[string]int32

	mu       sync.Mutex
	closed   bool   // Close was called: nothing is read or written
	closedAt bool   // a trial step after Close was reported
	stepErr  string // the last trial step's error reported (stepProblem)
	w        io.Writer
	f        *os.File // the file, for a store opened by path
	path     string   // its path
	tail     []byte   // the last bytes read (up to tailLen), see checkFile
	needNL   bool     // the file does not end with a line break
	read     int64    // bytes of whole lines read (Reload reads on from there)
	tornAt   int64    // offset of the torn last line reported (-1: none)
	lines    int      // lines read
	entries  map[string]*entry
	order    []string // ids in order of first record
	problems []Problem
	live     atomic.Pointer[liveSet]
	context  []impl.ContextRule // the compiled set's rendered context
}

// entry is an id's state: its latest record and, when live and checked,
// its rule ready to evaluate.
type entry struct {
	rec  Record
	line int // the line of the latest record (0: written by this process)
	// rule and prog are the checked rule and its program; nil when the
	// rule is retired, compiled, or no longer checks (problem).
	rule *compiler.Rule
	prog *interp.Rule
	key  string // its meaning, for dedup
	// reads is what the rule reads of an occurrence (Store.Reads);
	// counters and codeRejectTotal what it reads of the session's
	// counters and code_reject_total (ir.SessionReads).
	reads           ir.Reads
	counters        []counterRef
	codeRejectTotal bool
	problem         string
	// activeAt is when it first became active (zero: never).
	activeAt time.Time
	// trial state: the sessions evaluated and fired in (by hash).
	seen, fired map[string]bool
	// pending is the steps of its trial not written yet (nil: none).
	pending *pendingTrial
}

// Open opens (or creates) the store file at path for the compilation set
// the host runs, and loads it. Lines that are not records, and rules that
// no longer check, are reported (Options.Warn, Problems) and skipped: the
// store opens all the same.
func Open(path string, set *compiler.Set, opts Options) (*Store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rulestore: %v", err)
	}
	s, err := newStore(path, set, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f, s.w, s.path = f, f, path
	if abs, err := filepath.Abs(path); err == nil {
		s.path = abs // the same file after a chdir of the host
	}
	s.mu.Lock()
	err = s.readFrom(f)
	s.mu.Unlock()
	if err != nil {
		f.Close()
		return nil, err
	}
	s.rebuild()
	return s, nil
}

// New makes a store that loads the records of r (nil: none) and appends
// to w (each record is one Write call of one line), for hosts that keep
// the store elsewhere than in a file. w is taken to continue r: when r
// ends without a line break, the first record starts with one. name
// names it in messages.
func New(name string, r io.Reader, w io.Writer, set *compiler.Set, opts Options) (*Store, error) {
	s, err := newStore(name, set, opts)
	if err != nil {
		return nil, err
	}
	s.w = w
	if r != nil {
		s.mu.Lock()
		err = s.readLines(r)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	s.rebuild()
	return s, nil
}

func newStore(name string, set *compiler.Set, opts Options) (*Store, error) {
	if set == nil || set.Env == nil {
		return nil, errors.New("rulestore: no compilation set")
	}
	if opts.Cap <= 0 {
		opts.Cap = DefaultCap
	}
	if opts.Sessions <= 0 {
		opts.Sessions = DefaultSessions
	}
	if opts.Sessions > MaxSessions {
		return nil, fmt.Errorf("rulestore: a trial threshold of %d sessions is above the limit of %d", opts.Sessions, MaxSessions)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Check.MaxCost == 0 {
		// The store's rules are no costlier than the set's own may be
		// (spec 4, max_cost): the lowest limit of its packs, a pack
		// without max_cost having the default one, so that a promoted
		// rule compiles into any of them. Without a max_cost in any
		// pack, the default applies as to a pack's rule.
		var lowest uint64
		for _, p := range set.Packs {
			if p.MaxCost != 0 && (lowest == 0 || p.MaxCost < lowest) {
				lowest = p.MaxCost
			}
		}
		for _, p := range set.Packs {
			if p.MaxCost == 0 && lowest > compiler.DefaultMaxCost {
				lowest = compiler.DefaultMaxCost
			}
		}
		opts.Check.MaxCost = lowest
	}
	env, err := interp.NewEnv(set)
	if err != nil {
		return nil, err
	}
	s := &Store{set: set, env: env, opts: opts, name: name, compiled: map[string]bool{}, slots: map[string]int32{}, entries: map[string]*entry{}, tornAt: -1}
	for i, r := range set.Rules {
		s.compiled[r.ID] = true
		s.slots[r.ID] = int32(i)
	}
	s.context = compiledContext(set)
	return s, nil
}

// ErrClosed is the error of every operation on a closed store that
// would read or write its file.
var ErrClosed = errors.New("rulestore: the store is closed")

// Close closes the store: the file of a store opened with Open (the
// writer given to New is the host's: it is left open), and the store.
// From then on every operation that reads or writes the file (Add,
// Promote, Retire, Reload, the agent's rule_add and rule_retire) fails
// with ErrClosed and writes nothing; a decision that would step a trial
// writes nothing either (reported once, Options.Warn and Problems). What
// the store holds in memory goes on: its rules stay in force in the
// evaluator it was given to, and Context, Search, Status, All and the
// reading tools answer from the records read before Close. Trial steps
// kept in memory while another writer held the file's lock are first
// written, if the lock is free within the wait of a decision; else Close
// reports them (Problems) and returns an error that names their rules:
// they are lost (Status still counts them). Closing a closed store does
// nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	// The trial steps kept in memory (the file was locked by another
	// writer) are written if the lock comes within the bound of a
	// decision; else they are lost, and said so.
	var kept error
	if len(s.keptTrials()) > 0 {
		ids, err := s.writeKept()
		if s.closed {
			// Closed while it waited (it waits without s.mu): by
			// another Close, which said what it could not save.
			return nil
		}
		if len(ids) > 0 {
			kept = fmt.Errorf("rulestore: the trial steps of %s kept in memory are not saved: %v", strings.Join(ids, ", "), err)
			s.problem(Problem{File: s.name, Msg: kept.Error()})
		}
	}
	s.closed, s.w = true, nil
	if s.f == nil {
		return kept
	}
	err := s.f.Close()
	s.f = nil
	return errors.Join(kept, err)
}

// Reload reads the records other processes appended to the file since
// it was last read (a store opened with Open; others: nothing to do).
func (s *Store) Reload() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.f == nil {
		s.mu.Unlock()
		return nil
	}
	if _, err := s.f.Seek(s.read, io.SeekStart); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("rulestore: %v", err)
	}
	err := s.readFrom(s.f)
	s.mu.Unlock()
	s.rebuild()
	return err
}

// readFrom reads the file from s.read to its end. Only whole lines are
// consumed: a last line without its line break is torn (a crash, or a
// writer still writing): it is reported once and read again, whole, when
// its line break comes (a record then, if the writer was only slow), and
// the next append starts a line of its own.
func (s *Store) readFrom(f *os.File) error {
	if err := s.checkFile(f); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("rulestore: %v", err)
	}
	start := 0
	for {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break
		}
		off := s.read + int64(start)
		s.lines++
		s.applyLine(bytes.TrimSuffix(data[start:start+i], []byte("\r")), off == s.tornAt)
		start += i + 1
	}
	s.read += int64(start)
	s.tail = append(s.tail, data[:start]...)
	s.tail = s.tail[len(s.tail)-min(len(s.tail), tailLen):]
	rest := data[start:]
	s.needNL = len(rest) > 0
	if len(rest) > 0 && s.tornAt != s.read {
		s.tornAt = s.read
		s.problem(Problem{File: s.name, Line: s.lines + 1, Msg: "a torn last line (no line break at its end): skipped"})
	}
	return nil
}

// tailLen is how many of the last bytes read checkFile compares.
const tailLen = 64

// checkFile fails when the file is no longer the one the store read up
// to s.read: another file is at its path (an editor's save, a rename; the
// store's appends would go to a file no one reads), or it was cut
// shorter or rewritten (the bytes read last no longer stand before
// s.read: reading on from there would start in the middle of another
// writer's line). The records written since could not be read, and a
// store that went on would evaluate without them as if they had never
// been written (a promotion by a person left in monitor): an error, and
// the store must be opened again.
func (s *Store) checkFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("rulestore: %v", err)
	}
	// Whether the store read anything yet or not: a store opened on a new,
	// empty file would otherwise read the file no one writes for ever.
	if pi, err := os.Stat(s.path); err != nil || !os.SameFile(fi, pi) {
		return fmt.Errorf("rulestore: %s is no longer the file the store opened (replaced, moved or removed): open the store again", s.name)
	}
	if s.read == 0 {
		return nil
	}
	b := make([]byte, len(s.tail))
	if n, _ := f.ReadAt(b, s.read-int64(len(b))); n != len(b) || !bytes.Equal(b, s.tail) {
		return fmt.Errorf("rulestore: %s changed before the %d bytes the store read (truncated or rewritten; the store only appends): records may not be read, open the store again", s.name, s.read)
	}
	return nil
}

// readLines applies the records of r (a store made with New), its last
// line with or without its line break.
func (s *Store) readLines(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("rulestore: %s: %v", s.name, err)
	}
	// Records that end without a line break (a record appended by hand):
	// the first record appended starts a line of its own, as on a file,
	// where it would otherwise end the last line and make it no record.
	s.needNL = len(data) > 0 && data[len(data)-1] != '\n'
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		s.lines++
		s.applyLine(bytes.TrimSuffix(line, []byte("\r")), false)
	}
	return nil
}

// maxLine is the longest line read, in bytes (a record with its rule).
const maxLine = 1 << 20

var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

// recordFields are the members of a record, as spelt in the file.
var recordFields = map[string]bool{"id": true, "created_at": true, "status": true, "rule": true,
	"rationale": true, "source": true, "tags": true, "reason": true, "trial": true}

// trialFields are the members of a record's trial, as spelt in the file.
var trialFields = map[string]bool{"sessions": true, "fired_sessions": true, "monitored": true, "errors": true,
	"threshold": true, "verdict": true, "fired_in": true}

// caseFields are the objects of a record whose members are read by name
// (encoding/json matches a name in any case), by path.
var caseFields = map[string]map[string]bool{"": recordFields, "trial.": trialFields}

// maxLineDepth bounds the nesting of a line: a record, its rule, and the
// rule's own depth (maxDocDepth).
const maxLineDepth = maxDocDepth + 2

// ambiguous fails for a line (JSON already) that readers may read in
// two ways, so that the record would not mean what its writer meant to
// every reader: bytes that are not UTF-8 (encoding/json reads U+FFFD for
// them), a member name given twice in one object (RFC 8259 leaves which
// one a reader takes open: encoding/json the last, others the first),
// and a member of the record or of its trial whose name is a field's in
// another case ("Status", "ſtatus"): encoding/json reads it as the
// field, a reader that matches names exactly ignores it. A member the
// format does not have at all is left alone: a newer writer's field.
func ambiguous(line []byte) error {
	if !utf8.Valid(line) {
		return errors.New("not UTF-8 (JSON text is UTF-8; a reader would read U+FFFD for the bytes that are not)")
	}
	if err := loneSurrogate(line); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	return ambiguousValue(dec, "", 0)
}

// loneSurrogate fails for a \uXXXX escape of half a UTF-16 surrogate
// pair without its other half: encoding/json reads U+FFFD for it, where
// another reader keeps the code unit or fails. line is JSON, so that a
// backslash is always inside a string and starts an escape.
func loneSurrogate(line []byte) error {
	hex := func(i int) (rune, bool) {
		if i+6 > len(line) || line[i] != '\\' || line[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(line[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		r, ok := hex(i)
		if !ok {
			i++ // \\, \" and the others: the escaped byte is no escape
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			if low, ok := hex(i + 6); ok && utf16.DecodeRune(r, low) != unicode.ReplacementChar {
				i += 11
				continue
			}
			fallthrough
		case utf16.IsSurrogate(r):
			return fmt.Errorf("the escape %s is half of a surrogate pair (a reader would read U+FFFD for it)", line[i:i+6])
		}
		i += 5
	}
	return nil
}

func ambiguousValue(dec *json.Decoder, path string, depth int) error {
	if depth > maxLineDepth {
		return errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		fields := caseFields[path]
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return fmt.Errorf("not a JSON object: %v", err)
			}
			name, _ := k.(string)
			if seen[name] {
				return fmt.Errorf("member %q is given twice", path+name)
			}
			seen[name] = true
			if fields != nil && !fields[name] {
				for f := range fields {
					if strings.EqualFold(name, f) {
						return fmt.Errorf("member %q is %q in another case", path+name, f)
					}
				}
			}
			if err := ambiguousValue(dec, path+name+".", depth+1); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := ambiguousValue(dec, fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i), depth+1); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	return nil
}

// trimBOM drops a UTF-8 byte order mark from the start of a file's first
// line: an editor may write one (RFC 8259 lets a parser ignore it), and
// rule and fixture files may start with one too.
func trimBOM(line []byte) []byte { return bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) }

// parseRecord reads one line as a record: a JSON object with id,
// created_at, status and rule of their types; unknown members are
// ignored, so that a newer writer's fields do not break an older reader.
func parseRecord(line []byte) (Record, error) {
	var rec Record
	if len(line) > maxLine {
		return rec, fmt.Errorf("line longer than %d bytes", maxLine)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return rec, fmt.Errorf("not a JSON object: %v", err)
	}
	if raw == nil {
		return rec, errors.New("not a JSON object")
	}
	if err := ambiguous(line); err != nil {
		return rec, err
	}
	for _, k := range []string{"id", "created_at", "status", "rule"} {
		v, ok := raw[k]
		if !ok {
			return rec, fmt.Errorf("field %q is missing", k)
		}
		if string(bytes.TrimSpace(v)) == "null" {
			// encoding/json leaves a field as it was for null: a null
			// created_at would load as the zero time.
			return rec, fmt.Errorf("field %q is null", k)
		}
	}
	// Only the members spelt as the record's fields are read:
	// encoding/json would also read "Status" or "ID" into them (the last
	// of the spellings winning), which is a member the format does not
	// have, and so ignored, to any other reader.
	known := make(map[string]json.RawMessage, len(recordFields))
	for k, v := range raw {
		if recordFields[k] && k != "created_at" {
			known[k] = v
		}
	}
	var at string
	if err := json.Unmarshal(raw["created_at"], &at); err != nil {
		return rec, errors.New("field \"created_at\": not a string")
	}
	created, err := parseCreatedAt(at)
	if err != nil {
		return rec, fmt.Errorf("field \"created_at\": %v", err)
	}
	exact, err := json.Marshal(known)
	rec.CreatedAt = created
	if err == nil {
		err = json.Unmarshal(exact, &rec)
	}
	if err != nil {
		return rec, fmt.Errorf("not a record: %v", err)
	}
	switch {
	case !idPattern.MatchString(rec.ID):
		return rec, fmt.Errorf("field \"id\": %q is not a rule id (SCREAMING_SNAKE)", rec.ID)
	case rec.Status != Candidate && rec.Status != Active && rec.Status != Retired:
		return rec, fmt.Errorf("field \"status\": %q is not candidate, active or retired", rec.Status)
	}
	if t := rec.Trial; t != nil {
		switch {
		case t.Sessions < 0 || t.FiredSessions < 0 || t.Monitored < 0 || t.Errors < 0:
			return rec, errors.New("field \"trial\": a count is negative")
		case t.Threshold < 1 || t.Threshold > MaxSessions:
			// A threshold of 0 would make any rule ready.
			return rec, fmt.Errorf("field \"trial\": threshold %d is not between 1 and %d", t.Threshold, MaxSessions)
		}
		// The verdict follows from the counts (spec 10, 12): the one
		// written is the writer's, and may say ready with errors.
		t.Verdict = t.verdict()
	}
	doc, err := decodeDoc(rec.Rule)
	if err != nil {
		return rec, fmt.Errorf("field \"rule\": %v", err)
	}
	if id := member(doc, "id"); id == nil || id.Value != rec.ID {
		return rec, fmt.Errorf("field \"rule\": its id is not the record's id %s", rec.ID)
	}
	return rec, nil
}

// createdAtPattern is RFC 3339's date-time (section 5.6), its T and Z in
// either case, with the offset captured.
var createdAtPattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// parseCreatedAt reads a record's created_at: RFC 3339, UTC (spec 12).
// UTC is a zero offset, Z (or z, as RFC 3339 allows) or +00:00; -00:00
// says that the local offset is unknown (RFC 3339 4.3), and any other
// offset is a local time: not UTC. time.Parse alone would take both, a
// lowercase z not, and a comma before the fraction.
func parseCreatedAt(s string) (time.Time, error) {
	m := createdAtPattern.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date and time", s)
	}
	if off := m[2]; off != "Z" && off != "z" && off != "+00:00" {
		return time.Time{}, fmt.Errorf("%q is not in UTC (offset %s; write Z)", s, off)
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date and time: %v", s, plainTimeError(err))
	}
	return t.UTC(), nil
}

// plainTimeError is what time.Parse says is out of range, without the
// layout it quotes.
func plainTimeError(err error) string {
	var pe *time.ParseError
	if errors.As(err, &pe) && pe.Message != "" {
		return strings.TrimPrefix(pe.Message, ": ")
	}
	return err.Error()
}

// applyLine applies one line read from the store; a line that is not a
// record is reported, unless it was reported torn already.
func (s *Store) applyLine(line []byte, reported bool) {
	if s.lines == 1 {
		line = trimBOM(line)
	}
	rec, err := parseRecord(line)
	if err != nil {
		if !reported {
			s.problem(Problem{File: s.name, Line: s.lines, Msg: err.Error()})
		}
		return
	}
	s.apply(rec, s.lines)
}

// problem records and reports a problem.
func (s *Store) problem(p Problem) {
	s.problems = append(s.problems, p)
	if s.opts.Warn != nil {
		fmt.Fprintln(s.opts.Warn, p.String())
	}
}

// apply makes rec the latest record of its id (line: where it was read,
// 0 for a record this process wrote).
func (s *Store) apply(rec Record, line int) {
	e := s.entries[rec.ID]
	if e == nil {
		e = &entry{}
		s.entries[rec.ID] = e
		s.order = append(s.order, rec.ID)
	}
	if !bytes.Equal(e.rec.Rule, rec.Rule) {
		// Another document for the id (a file edited by hand): it is
		// checked again, whether the one before loaded or not.
		e.rule, e.prog, e.key, e.problem = nil, nil, "", ""
	}
	e.rec, e.line = rec, line
	if rec.Status == Active && e.activeAt.IsZero() {
		e.activeAt = rec.CreatedAt
	}
	// The trial's sessions fired in come back with the record.
	if rec.Trial != nil {
		// Its verdict is under the store's threshold, which may not be
		// the writer's.
		t := *rec.Trial
		t.Threshold = s.opts.Sessions
		t.Verdict = t.verdict()
		e.rec.Trial = &t
		if e.fired == nil {
			e.fired = map[string]bool{}
		}
		for _, h := range rec.Trial.FiredIn {
			e.fired[h] = true
		}
	}
}

// writeLock makes s the only writer of its file until unlock is called,
// and first reads what other writers (other stores on the file, in this
// process or another) appended since s last read it: the record s then
// appends follows from every record before it (a trial step counted on
// the whole trial, a status another writer changed, the ids and the cap
// of Add), so that no writer's record undoes another's. A store made
// with New has no file: nothing to do. Before it returns, the trial
// steps kept in memory (writePending) are written: whatever the caller
// then decides follows from them too. The caller holds s.mu; while the
// lock is held by another writer, s.mu is released between tries (see
// lockAndRead): what the caller read before may have changed.
func (s *Store) writeLock() (unlock func(), err error) {
	return s.lockAndRead(-1)
}

// errLocked is the error of lockAndRead when another writer held the
// lock all the time it waited.
var errLocked = errors.New("another writer holds the file's lock")

// lockAndRead is writeLock, waiting for the lock at most wait (wait < 0:
// as long as it takes); errLocked when another writer held it all that
// time. The caller holds s.mu.
func (s *Store) lockAndRead(wait time.Duration) (unlock func(), err error) {
	if s.closed {
		return nil, ErrClosed
	}
	f := s.f
	if f == nil {
		s.writePending()
		return func() {}, nil
	}
	// The lock is tried without waiting, and waited for between tries
	// without s.mu: a decision that steps a trial takes s.mu, and must
	// not wait for it while another operation of the store waits for a
	// writer that does not release the file. The lock of s.f is only
	// held with s.mu (one Store's goroutines share the descriptor, and
	// flock(2) would let each of them take it again).
	deadline := time.Now().Add(wait)
	for pause := lockRetry; ; pause = min(2*pause, maxLockRetry) {
		ok, err := tryLockFile(f)
		if err != nil {
			return nil, fmt.Errorf("rulestore: locking %s: %v", s.name, err)
		}
		if ok {
			break
		}
		if wait >= 0 && !time.Now().Before(deadline) {
			return nil, fmt.Errorf("rulestore: %s: %w", s.name, errLocked)
		}
		if wait >= 0 {
			pause = min(pause, time.Until(deadline))
		}
		s.mu.Unlock()
		time.Sleep(pause)
		s.mu.Lock()
		if s.closed {
			return nil, ErrClosed
		}
		f = s.f
	}
	unlock = func() { unlockFile(f) }
	if _, err := f.Seek(s.read, io.SeekStart); err != nil {
		unlock()
		return nil, fmt.Errorf("rulestore: %v", err)
	}
	read := s.read
	if err := s.readFrom(f); err != nil {
		unlock()
		return nil, err
	}
	if s.needNL {
		// A torn last line: the record appended next would end it with
		// its line break, and so make it a line of the file before that
		// record (a record, if its writer wrote it whole but its line
		// break apart). It is ended now and read, so that the record
		// follows from it too: a trial step counted on a candidate must
		// not be appended after a promotion it never read.
		if _, err := f.Write([]byte("\n")); err != nil {
			unlock()
			return nil, fmt.Errorf("rulestore: appending to %s: %v", s.name, err)
		}
		s.needNL = false
		if _, err := f.Seek(s.read, io.SeekStart); err != nil {
			unlock()
			return nil, fmt.Errorf("rulestore: %v", err)
		}
		if err := s.readFrom(f); err != nil {
			unlock()
			return nil, err
		}
	}
	if s.read != read {
		s.rebuildLocked()
	}
	s.writePending()
	return unlock, nil
}

// append writes one record as one line, with one Write call: with a file
// opened for appending (O_APPEND), each record lands whole at the end,
// whoever else appends (see docs/store.md for what holds across
// processes). The caller holds s.mu.
func (s *Store) append(rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("rulestore: %v", err)
	}
	if len(b) > maxLine {
		// It could not be read back.
		return fmt.Errorf("rulestore: the record of %s is %d bytes, more than a store line may hold (%d): shorten the rule, rationale or tags", rec.ID, len(b), maxLine)
	}
	// The record as the file holds it (encoding/json escapes <, > and &
	// in the rule), read as every reader reads it: Reload reads it again,
	// the same, and the last record of an id still wins. A record that
	// would not read back (a created_at not in UTC, say) is not written.
	canon, err := parseRecord(b)
	if err != nil {
		return fmt.Errorf("rulestore: the record of %s would not read back: %v", rec.ID, err)
	}
	if s.needNL {
		b = append([]byte("\n"), b...)
	}
	b = append(b, '\n')
	if s.closed || s.w == nil {
		return ErrClosed
	}
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("rulestore: appending to %s: %v", s.name, err)
	}
	s.needNL = false
	s.apply(canon, 0)
	return nil
}

// appendSynced appends a record that changes a rule's status (added,
// promoted, retired) and syncs the writer (the file, or a host's writer
// with a Sync method) before it returns: a promotion the person was told
// was done must survive a crash, else the rule would be back in monitor
// without a word (no torn line left to report). Trial steps, a line per
// firing, are not synced: a step lost to a crash is a firing less. A
// sync that fails is an error: the record was written, but may not be
// on stable storage, and is in force as written. The caller holds s.mu.
func (s *Store) appendSynced(rec Record) error {
	if err := s.append(rec); err != nil {
		return err
	}
	if sw, ok := s.w.(interface{ Sync() error }); ok {
		if err := sw.Sync(); err != nil && !unsyncable(err) {
			// Written all the same: in force as written, as a reader of
			// the file sees it.
			s.rebuildLocked()
			return fmt.Errorf("rulestore: the record of %s was written to %s, but syncing it failed (it may not survive a crash): %v", rec.ID, s.name, err)
		}
	}
	return nil
}

// unsyncable reports whether a sync failed because the writer cannot be
// synced at all (a pipe, a socket, a terminal: fsync says EINVAL), not
// because what was written may be lost: the record is where the host
// sent it.
func unsyncable(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported)
}

// now is the time records are stamped with, in UTC.
func (s *Store) now() time.Time { return s.opts.Now().UTC() }

// Problems returns what the store skipped so far: lines that are not
// records, and rules not in force because they no longer check.
func (s *Store) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Problem(nil), s.problems...)
}

// Digest is the digest of the compilation set the store checks its rules
// against (runtime.RuleStore).
func (s *Store) Digest() string { return s.set.Digest }
