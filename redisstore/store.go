// Package redisstore keeps oarc sessions in Redis (spec 5.9), so that the
// replicas of a host see one session whichever replica takes a call: the
// counters rules read and update (spec 5.3), the record of tool calls the
// engine keeps (spec 5.10: repeat_count, recent_tool_names,
// same_code_reject_run, code_reject_total) and the provenance graph (spec
// 5.7).
//
//	client := redis.NewClient(redisstore.ClientOptions(addr))
//	store, err := redisstore.New(client, redisstore.Options{TTL: 24 * time.Hour})
//	session := store.Session(id) // runtime.NewStoreSession(store, id)
//	ev.Evaluate(ctx, &occ, session, &d)
//
// It is a module of its own, so that hosts that keep sessions in the
// process never have Redis's client in their module graph.
//
// # Keys and round trips
//
// A session is one hash, P{key} (P the prefix, key the session's key,
// runtime.SessionKey of its tenant and id, so that two tenants using one
// id share nothing; spec 5.11): its counters (fields
// c:RULE.fire, c:RULE.breaker, by rule id and counter, never by slot, so
// that replicas running different builds agree), its record of tool calls
// (r: the last call and the runs; rt: the last 64 tool names; t:N:CT: the
// blocks of a tool T with a code C, at most runtime.TotalsLimit of them),
// its provenance nodes (n:ID), their fields for provenance_nodes (d:ID),
// their ancestry summaries (s:N), and a few
// facts of the session (incomplete, nodes, summaries, bytes, strings,
// tokens, its generation g and mutation count seq). One key, so a session
// expires, is replicated and moved between cluster nodes as a whole.
// Beside it, in the same hash slot, its marker P{id}:m outlives it by a
// second and says whether it must still exist (see Lost state); P +
// "epoch" is the store's epoch. Every call is
// one server-side script, so one round trip (two the first time a server
// sees a script: EVALSHA answers NOSCRIPT, then EVAL; see [Store.Load]):
// reading an anchor's counters and the record ([Store.Read], one
// snapshot), applying an occurrence's updates and recording its call
// ([Store.Apply], atomic, all or nothing), recording a node, marking the
// session incomplete, computing a scope, resetting the session. Each
// refreshes the session's expiry ([Options.TTL]).
//
// # The record of tool calls
//
// The record is the state runtime.MemStore keeps, in the session's hash:
// the script that applies an occurrence's counter updates derives the
// record's new state from the one it holds, call by call (so concurrent
// occurrences of a session are ordered as the server ran their scripts),
// and the script that reads the counters reads the record with them. Its
// size is bounded: 64 names, the last call, four counts, and at most
// runtime.TotalsLimit counts of blocks, past which a pair is not counted
// and the record says so (reading it is then an error, never a 0). Tool
// names and codes are arbitrary bytes (each name and each pair's field is
// length-prefixed). Like every stored value, the record is read only in
// the form the scripts write it (see Lost state).
//
// The calls' times (spec 5.13: calls_within, tool_calls_within) are kept
// with the record, in the same field of the session's hash for every call
// that has one (runtime.Call.Time), by the same script, bounded as
// MemStore bounds them: at most runtime.TimesLimit calls, the calls
// runtime.TimesSpan or more before the latest dropped from the oldest,
// and the latest time dropped remembered, so that a window reaching it is
// an error (runtime.ErrTimesDropped), never a short count. The read
// script answers them with the record when the occurrence reads a window
// (runtime.HistoryQuery.Times): still one round trip. Their cost grows
// with the calls kept: an update that records a timed call rewrites the
// field (docs/redis.md, "The calls' times").
//
// # Provenance
//
// The graph is append-only and parents are recorded before their children
// (the recording script refuses an unknown parent), so the facts of a
// node's ancestry never change once it is recorded. The recording script
// therefore computes them then: a node whose parents all have a summary
// gets the union of their summaries and its own facts, shared with a
// parent when it adds nothing (a conversation's chain of messages shares
// one), stored once per distinct summary and bounded in size
// ([Options.SummaryBytes]). A scope is then the union of its inputs'
// summaries; a node whose ancestry outgrew the bound is walked, on the
// server, parents first found, each node and summary once, stopping at
// nodes with a summary. A scope that lists its nodes (provenance_nodes,
// runtime.Scope.WantNodes) walks every node in scope instead, in the same
// script and round trip. The work of one call is bounded
// ([Options.ScopeBudget]): a scope that needs more is an error, never a
// part of the answer, so no session can hold the server's single thread
// for long.
//
// # Lost state
//
// Sessions fail closed when their state is lost, not only when the server
// cannot be reached: a read of counters or of the record, a provenance
// read, an update or a recording of a session whose state the store lost
// is an error
// ([ErrSessionLost]; at a read in an evaluation, an error of kind store),
// and stays one until the host resets the session ([Store.ResetSession])
// or leaves it idle for the TTL. A session idle longer than the TTL
// expires by design and starts fresh, without an error. The store tells
// the two apart with the session's marker (a hash gone before its marker
// says it may: evicted or deleted), the epoch (the server lost everything
// since this store's first call: a session that does not exist cannot be
// proven new, for a TTL), and what each Store remembers of the sessions it
// served ([Options.Remember]: mutations a replica saw applied that are
// gone, after a failover to a replica that had not received them).
// docs/redis.md gives the model and what it cannot detect. A stored value
// that is not what the store writes (a counter that holds "nan", a record
// whose runs do not add up, a key of another type), and a field of the
// session's hash deleted or added by something else than the store (the
// marker counts the fields the store left), is an error too
// ([ErrCorrupt]), never a default.
//
// # Failures
//
// A call fails when the server cannot be reached or does not answer before
// the caller's deadline (the client must be made with
// ContextTimeoutEnabled, which [New] checks; a call without a deadline is
// bounded by [Options.Timeout]); the generated code makes that an
// evaluation error at the read (kind store) and reports updates it could
// not apply: as not applied when the store knows ([runtime.ErrNotApplied]:
// the server refused, or nothing was sent), else as not confirmed (an
// answer lost on the way may follow a script that ran). go-redis redials
// on the next call, so a host recovers when the server is back, without
// restarting. A mutation retried after a lost answer is applied once (its
// token is remembered).
package redisstore

import (
	"cmp"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// ClientOptions returns options for a client of the server at addr that
// suit a store: deadlines honoured (ContextTimeoutEnabled); a failed dial
// not retried within a call, so that a call to a server that is down fails
// at once (go-redis then stops dialing in calls and probes the server in
// the background, every second, until it answers); no retries of its own
// (MaxRetries -1): the store retries a call whose answer was lost once
// itself, so that it knows whether anything was sent, and reports an
// update it knows was not applied as not applied. Change what else the
// host needs (pool size, TLS, credentials).
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{Addr: addr, ContextTimeoutEnabled: true, DialerRetries: 1, MaxRetries: -1}
}

// Options configures a [Store].
type Options struct {
	// Prefix starts every key of the store ("oarc:" when empty): stores
	// of different applications on one server use different prefixes.
	// It may not contain braces: a session's keys share its hash tag.
	Prefix string
	// TTL is how long a session is kept after its last use (every read
	// and write refreshes it); DefaultTTL when zero.
	TTL time.Duration
	// Limits bound a session's provenance graph as they bound
	// runtime.MemStore's (zero fields: runtime's defaults): the store
	// refuses the nodes MemStore refuses, with the same words. The
	// per-node limits (labels, parents, and the arguments' bound,
	// runtime.MaxNodeArgs) are checked before a node is sent
	// (so a node over them is refused for them, even in a session that
	// holds its limit of nodes, which MemStore names first); the session's
	// nodes, bytes and distinct strings by the script that records it, in
	// MemStore's order. Sessions recorded by a version of the store
	// without the byte and string counts count from 0.
	Limits runtime.Limits
	// SummaryBytes bounds the encoded size of one ancestry summary
	// (DefaultSummaryBytes when zero; negative: no summaries, every scope
	// walks the graph).
	SummaryBytes int
	// ScopeBudget bounds the server's work in one call, in steps: every
	// node walked, parent followed, summary read and value collected is
	// one. A scope that needs more is an error; a node whose summary would
	// need more to merge is stored without one. A scope that lists its
	// nodes (provenance_nodes) walks every node in scope: a step for each,
	// and for each of its labels and parents. DefaultScopeBudget when
	// zero.
	ScopeBudget int
	// Timeout bounds a call whose context allows more, or has no
	// deadline (DefaultTimeout when zero; negative: only the context and
	// the client's own timeouts).
	Timeout time.Duration
	// Remember is how many sessions a Store remembers (generation,
	// mutations, deadline) to detect state a server lost
	// (DefaultRemember when zero; negative: none).
	Remember int
	// Warn receives what New finds wrong with the server without refusing
	// it: an evicting maxmemory-policy, or a CONFIG GET the server
	// refused. When nil, log.Print.
	Warn func(msg string)
}

// Defaults of [Options].
const (
	DefaultPrefix       = "oarc:"
	DefaultTTL          = 24 * time.Hour
	DefaultSummaryBytes = 512
	DefaultScopeBudget  = 2000
	DefaultTimeout      = time.Second
	DefaultRemember     = 65536
)

// ErrSessionLost is wrapped by the errors of calls on a session whose
// state the store lost (see the package doc, Lost state). Such a session
// fails closed until [Store.ResetSession].
var ErrSessionLost = errors.New("session state lost")

// ErrCorrupt is wrapped by the errors of calls on a session holding a
// value the store does not write (a counter that is not one, a node it
// cannot read). Such a session fails closed until [Store.ResetSession].
var ErrCorrupt = errors.New("session state corrupt")

// Store keeps sessions in Redis. It implements runtime.Store and is safe
// for concurrent use; replicas make a Store each, with the same prefix, on
// clients of the same server.
type Store struct {
	c        redis.UniversalClient
	prefix   string
	ttl      string // milliseconds
	lim      runtime.Limits
	limits   []any // the script's arguments: nodes, bytes, strings
	sumBytes string
	budget   string
	timeout  time.Duration
	tokBase  uint64
	tokSeq   atomic.Uint64
	// epochKey is the store's epoch ("" where a script cannot read it
	// beside a session: a Cluster or a Ring), epoch the one the store
	// knows (nil before its first answer).
	epochKey string
	epoch    atomic.Pointer[string]
	// attempts is set when the client makes one attempt per call (no
	// retries of its own): a call that failed before sending anything on
	// every attempt of the store's is then known not to have run.
	attempts bool
	// cluster is set for a Cluster, whose server refuses a script whose
	// keys are in two hash slots (see keys).
	cluster bool
	mem     *memory
}

var _ runtime.Store = (*Store)(nil)

// New returns a store on client. The client must honour the caller's
// context deadlines (redis.Options.ContextTimeoutEnabled): a call that
// outlives the evaluation's deadline would turn a late store into a late
// decision instead of an error at the read. New asks the server its
// maxmemory-policy (bounded by the Timeout) and warns ([Options.Warn]) when
// it may evict sessions or does not say; it never refuses a server.
func New(client redis.UniversalClient, opts Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("redisstore: nil client")
	}
	enabled, attempts, epoch, ring, cluster := true, false, true, false, false
	switch c := client.(type) {
	case *redis.Client:
		enabled = c.Options().ContextTimeoutEnabled
		attempts = c.Options().MaxRetries == 0
	case *redis.ClusterClient:
		enabled, epoch, cluster = c.Options().ContextTimeoutEnabled, false, true
	case *redis.Ring:
		enabled, epoch, ring = c.Options().ContextTimeoutEnabled, false, true
	}
	if !enabled {
		return nil, errors.New("redisstore: the client must be made with ContextTimeoutEnabled: true, so that a call ends at the caller's deadline (spec 5.9)")
	}
	if strings.ContainsAny(opts.Prefix, "{}") {
		return nil, fmt.Errorf("redisstore: prefix %q contains a brace: a session's keys are P{id}, and its braces are the session's hash tag", opts.Prefix)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultTTL
	}
	if opts.TTL < time.Millisecond {
		return nil, fmt.Errorf("redisstore: TTL %v is not positive", opts.TTL)
	}
	lim := opts.Limits
	for _, l := range []struct {
		v   *int
		def int
	}{
		{&lim.Nodes, runtime.DefaultNodeLimit}, {&lim.Labels, runtime.DefaultLabelLimit}, {&lim.Parents, runtime.DefaultParentLimit},
		{&lim.Bytes, runtime.DefaultByteLimit}, {&lim.Strings, runtime.DefaultStringLimit},
	} {
		if *l.v <= 0 {
			*l.v = l.def
		}
	}
	if opts.SummaryBytes == 0 {
		opts.SummaryBytes = DefaultSummaryBytes
	}
	if opts.ScopeBudget <= 0 {
		opts.ScopeBudget = DefaultScopeBudget
	}
	switch {
	case opts.Timeout == 0:
		opts.Timeout = DefaultTimeout
	case opts.Timeout < 0:
		opts.Timeout = 0
	}
	if opts.Remember == 0 {
		opts.Remember = DefaultRemember
	}
	if opts.Warn == nil {
		opts.Warn = func(msg string) { log.Print(msg) }
	}
	var seed [8]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("redisstore: %v", err)
	}
	s := &Store{
		c:        client,
		prefix:   opts.Prefix,
		ttl:      strconv.FormatInt(opts.TTL.Milliseconds(), 10),
		lim:      lim,
		limits:   []any{strconv.Itoa(lim.Nodes), strconv.Itoa(lim.Bytes), strconv.Itoa(lim.Strings)},
		sumBytes: strconv.Itoa(opts.SummaryBytes),
		budget:   strconv.Itoa(opts.ScopeBudget),
		timeout:  opts.Timeout,
		tokBase:  binary.LittleEndian.Uint64(seed[:]),
		attempts: attempts,
		cluster:  cluster,
		mem:      newMemory(opts.Remember),
	}
	if epoch {
		s.epochKey = s.prefix + "epoch"
	}
	if ring {
		opts.Warn("redisstore: a Ring moves the sessions of a shard it finds down to the shards that are up, where they do not exist: a replica that does not remember such a session takes it for a new one (counters 0, an empty record and graph: a silent start from zero) until the shard is back, when it fails closed as lost; use a Cluster, or one server with replicas (Sentinel)")
	}
	s.checkPolicy(opts.Warn)
	return s, nil
}

// checkPolicy warns when the server may evict keys with an expiry (all
// sessions have one) or does not say whether it does. A managed server
// may refuse CONFIG: that is a warning, not an error.
func (s *Store) checkPolicy(warn func(string)) {
	ctx, cancel := s.bound(context.Background())
	defer cancel()
	m, err := s.c.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		warn(fmt.Sprintf("redisstore: could not read the server's maxmemory-policy (%v): unless it is noeviction, the server may evict sessions, which then fail closed as lost", err))
		return
	}
	if p := m["maxmemory-policy"]; p != "noeviction" {
		warn(fmt.Sprintf("redisstore: the server's maxmemory-policy is %q: when full, it evicts sessions, which then fail closed as lost until reset; use noeviction (a full server then refuses writes, reported)", p))
	}
}

// Session returns the session id kept by s; [runtime.WithTenant] puts it
// in a tenant (spec 5.11). The store knows a session by its key
// ([runtime.SessionKey] of its tenant and id: [runtime.Session.Key]), so
// two tenants using one id share nothing; [Store.ResetSession] and
// [Store.Delete] take that key.
func (s *Store) Session(id string, opts ...runtime.SessionOption) *runtime.Session {
	return runtime.NewStoreSession(s, id, opts...)
}

// Load loads the scripts into the server, so that the first calls after
// it are one round trip each. It is optional: a script the server does
// not have is sent on first use.
func (s *Store) Load(ctx context.Context) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	for _, sc := range []*redis.Script{readScript, applyScript, recordScript, markScript, scopeScript, resetScript} {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return fmt.Errorf("redisstore: loading scripts: %w", err)
		}
	}
	return nil
}

// ResetSession starts the session over: counters at zero, an empty
// provenance graph, as a session never seen. It is how a host resumes a
// session that fails closed as lost ([ErrSessionLost]) or corrupt
// ([ErrCorrupt]), once it accepts that what the store lost is gone (the
// session's escalations restart from zero; if the agent's history is not
// gone with it, mark the session incomplete after the reset). Every
// replica sees the reset: a replica that remembers the session before it
// does not take it for a loss. session is the session's key
// ([runtime.Session.Key]: its id, in the empty tenant), as every
// runtime.Store call takes it: a reset reaches one tenant's session only.
func (s *Store) ResetSession(ctx context.Context, session string) error {
	_, err := s.run(ctx, resetScript, session, true, nil)
	if err != nil {
		return fmt.Errorf("resetting session %q: %w", session, err)
	}
	return nil
}

// Delete ends a session that the host knows is over: it is
// [Store.ResetSession] (its state is deleted; a marker of the reset, a
// small key, expires after the TTL).
func (s *Store) Delete(ctx context.Context, session string) error {
	return s.ResetSession(ctx, session)
}

// errNoID is the error of a call for a session without an id: replicas
// could not tell its keys from another's.
var errNoID = errors.New("redis: a session in a store needs an id")

// keys are the session's hash and marker, and the epoch when the scripts
// can read it. The braces end the id, so that no two sessions of stores
// whose prefixes have no braces share a key (a hash ends with "}", a
// marker with "}:m"); in a cluster, a session's hash tag is its id, and
// its marker's too.
//
// In a Cluster, a key that starts with "}" would make an empty hash tag
// (P{}...}): Redis then hashes each key whole, the hash and the marker
// land in two slots, and the server refuses every script of the session.
// Such keys, and those that start with NULs and then "}" (so that none
// collides), are stored as P{\x00key}: their tag is the NULs before the
// first "}". The runtime's keys (runtime.SessionKey) never start with
// NULs and "}" (a tenant's start with a NUL and a quote), so the keys of
// every session that worked in a Cluster are unchanged.
func (s *Store) keys(session string) []string {
	inner := session
	if s.cluster && strings.HasPrefix(strings.TrimLeft(session, "\x00"), "}") {
		inner = "\x00" + session
	}
	h := s.prefix + "{" + inner + "}"
	if s.epochKey == "" {
		return []string{h, h + ":m"}
	}
	return []string{h, h + ":m", s.epochKey}
}

// bound applies Options.Timeout to ctx.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.timeout > 0 {
		if d, ok := ctx.Deadline(); !ok || time.Until(d) > s.timeout {
			return context.WithTimeout(ctx, s.timeout)
		}
	}
	return ctx, func() {}
}

// token returns the token of a call: 8 bytes no other call of the store
// has (a bijection of a sequence), and that another store's tokens match
// with probability 2^-64 (a random base).
func (s *Store) token() string {
	x := s.tokBase + s.tokSeq.Add(1)*0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	return string(b[:])
}

// answer is a script's answer to a call that went through: its status
// ("ok", "done") and, for ok, what follows the header.
type answer struct {
	status  string
	payload []any
}

// run runs script sc for session, with the arguments every script starts
// with and then extra. An error is the call's failure, or the session's
// (lost, corrupt); for a mutation it wraps runtime.ErrNotApplied when the
// store knows the script did not write: the script refused (lost,
// corrupt; an answer the store cannot read is not a refusal), or nothing
// was sent (the client makes one attempt per call, and every attempt
// failed before sending, or was refused by the server before it ran).
//
// A call whose answer was lost is sent once more (a mutation carries its
// token, so a retry of one that ran is recognised and not applied again).
func (s *Store) run(ctx context.Context, sc *redis.Script, session string, mutation bool, extra []any) (answer, error) {
	if session == "" {
		return answer{}, runtime.NotApplied(errNoID)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return answer{}, runtime.NotApplied(fmt.Errorf("redis: %w", err))
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	m := s.mem.get(session)
	epoch := ""
	if e := s.epoch.Load(); e != nil {
		epoch = *e
	}
	args := make([]any, 0, 6+len(extra))
	args = append(args, s.ttl, s.token(), epoch, m.g, m.s, m.d)
	args = append(args, extra...)
	var res []any
	var err error
	sent := false
	for attempt := 0; attempt < 2; attempt++ {
		res, err = sc.Run(ctx, s.c, s.keys(session), args...).Slice()
		if err == nil || !maybeSent(err) {
			break
		}
		sent = true
		if ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		err = fmt.Errorf("redis: %w", err)
		if mutation && !sent && s.attempts {
			err = runtime.NotApplied(err)
		}
		return answer{}, err
	}
	a, err := s.parse(session, res)
	var refused *sessionError
	if mutation && errors.As(err, &refused) {
		// The script refused before writing. An answer of another
		// shape says nothing of what ran: not confirmed.
		err = runtime.NotApplied(err)
	}
	return a, err
}

// maybeSent reports whether a call that failed with err may have reached
// the server and run: not when the server answered with an error (it
// refused the call before running it, or the script failed before its
// first write), and not when no connection could be had.
func maybeSent(err error) bool {
	var rerr redis.Error
	var op *net.OpError
	switch {
	case errors.As(err, &rerr), errors.As(err, &op) && op.Op == "dial",
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrClosed):
		return false
	}
	return true
}

// parse reads the header of a script's answer: it remembers the epoch and
// the session's state, and turns a lost or corrupt session into its error.
func (s *Store) parse(session string, res []any) (answer, error) {
	if len(res) == 0 {
		return answer{}, errors.New("redis: an empty answer")
	}
	status, _ := res[0].(string)
	if status == "done" {
		return answer{status: status}, nil
	}
	if len(res) >= 2 {
		if e, _ := res[1].(string); e != "" {
			if old := s.epoch.Load(); old == nil || *old != e {
				s.epoch.Store(&e)
			}
		}
	}
	switch status {
	case "ok":
		if len(res) >= 5 {
			g, _ := res[2].(string)
			str, _ := res[3].(string)
			n, err := strconv.ParseInt(str, 10, 64)
			d, ok := res[4].(int64)
			if err == nil && ok {
				if g != "" {
					s.mem.put(session, g, n, d)
				}
				return answer{status: status, payload: res[5:]}, nil
			}
		}
	case "lost", "corrupt":
		if len(res) == 3 {
			why, _ := res[2].(string)
			kind := ErrSessionLost
			if status == "corrupt" {
				kind = ErrCorrupt
			}
			return answer{}, &sessionError{kind: kind, session: session, why: why}
		}
	}
	return answer{}, fmt.Errorf("redis: unexpected answer %v", res)
}

// sessionError is the error of a call on a lost or corrupt session.
type sessionError struct {
	kind    error // ErrSessionLost or ErrCorrupt
	session string
	why     string
}

func (e *sessionError) Error() string {
	state := "lost"
	if e.kind == ErrCorrupt {
		state = "corrupt"
	}
	return fmt.Sprintf("redis: session %q %s: %s; it fails closed until reset (Store.ResetSession)", e.session, state, e.why)
}

func (e *sessionError) Unwrap() error { return e.kind }

func field(k runtime.CounterKey) string { return "c:" + k.Rule + "." + k.Counter.String() }

// parseCounter reads a stored counter: the form the scripts write, and
// the only one they read (count in scripts.go): 1 to 15 decimal digits
// without a leading zero. Anything else (a sign, "0", spaces, "nan",
// "1e3", "0x10", 2.5) is not a counter.
func parseCounter(v string) (int64, bool) {
	if len(v) == 0 || len(v) > 15 || v[0] < '1' || v[0] > '9' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return n, true
}

// Read implements runtime.Store: one script reads the counters and, when
// sn.History is not nil, the session's record of tool calls for sn.Query,
// so they are one snapshot, in one round trip. Every value read is checked
// (a counter here, the record in the script): one the store does not
// write is an error wrapping [ErrCorrupt].
func (s *Store) Read(ctx context.Context, session string, sn *runtime.Snapshot) error {
	keys := sn.Keys
	if len(keys) == 0 && sn.History == nil {
		return nil
	}
	q := &sn.Query
	args := make([]any, 0, 1+len(keys)+4+len(q.Codes))
	args = append(args, len(keys))
	for _, k := range keys {
		args = append(args, field(k))
	}
	if sn.History != nil {
		last := "0"
		if q.LastTool {
			last = "1"
		}
		names := "0"
		if q.Names {
			names = "1"
		}
		times := "0"
		if q.Times {
			times = "1"
		}
		args = append(args, q.Tool, last, names, times)
		for _, c := range q.Codes {
			args = append(args, c)
		}
	}
	a, err := s.run(ctx, readScript, session, false, args)
	if err != nil {
		return fmt.Errorf("reading the session: %w", err)
	}
	want := 1
	if sn.History != nil {
		want = 2
	}
	vals, ok := a.payload, len(a.payload) == want
	if ok {
		vals, ok = a.payload[0].([]any)
	}
	if !ok || len(vals) != len(keys) {
		return fmt.Errorf("reading the session: redis: unexpected answer %v", a.payload)
	}
	for i, v := range vals {
		if v == nil {
			sn.Counters[i] = 0
			continue
		}
		str, _ := v.(string)
		n, ok := parseCounter(str)
		if !ok {
			return fmt.Errorf("reading counters: %w", &sessionError{kind: ErrCorrupt, session: session, why: fmt.Sprintf("counter %s.%s holds %q, not a counter", keys[i].Rule, keys[i].Counter, str)})
		}
		sn.Counters[i] = n
	}
	if sn.History != nil {
		switch why, ok := readHistory(sn.History, a.payload[1], len(q.Codes), q.Names, q.Times); {
		case why != "":
			return fmt.Errorf("reading the record of tool calls: %w", &sessionError{kind: ErrCorrupt, session: session, why: why})
		case !ok:
			sn.History.Reset()
			return fmt.Errorf("reading the record of tool calls: redis: unexpected answer %v", a.payload[1])
		}
	}
	return nil
}

// readHistory fills h from the read script's answer (see readScript): it
// reports a stored value the store does not write (the names) as
// corrupt, and an answer of another shape as unexpected. Without names
// (the query did not ask for them) the answer holds the last one only,
// which is the last call's tool, and h.Tools is left empty. With times,
// it fills h.Times from ct (see timesLib), checked whole (parseTimes).
// corrupt says what is wrong with a stored value ("" when nothing is).
func readHistory(h *runtime.History, v any, codes int, names, times bool) (corrupt string, ok bool) {
	h.Reset()
	l, _ := v.([]any)
	if len(l) != 12 {
		return "", false
	}
	var n [6]int64
	for i := range n {
		x, ok := l[i].(int64)
		if !ok || x < 0 {
			return "", false
		}
		n[i] = x
	}
	fp, ok1 := l[6].(string)
	code, ok2 := l[7].(string)
	list, ok3 := l[8].(string)
	totals, ok4 := l[9].([]any)
	known, ok5 := l[10].([]any)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || len(fp) != len(runtime.Fingerprint{}) || n[5] > 1 ||
		len(totals) != codes || len(known) != codes {
		return "", false
	}
	h.Calls, h.Run, h.CodeRun, h.LastRepeat, h.LastCodeRun = n[0], n[1], n[2], n[3], n[4]
	want := min(n[0], runtime.RecentLimit)
	if !names {
		want = min(n[0], 1)
	}
	var good bool
	if h.Tools, good = splitNames(h.Tools, list, int(want)); !good {
		h.Reset()
		return "the tool names of the record of tool calls hold something else", false
	}
	if len(h.Tools) > 0 {
		h.Last.Tool = h.Tools[len(h.Tools)-1]
	}
	if !names {
		h.Tools = h.Tools[:0]
	}
	copy(h.Last.Fingerprint[:], fp)
	h.Last.HasFingerprint, h.Last.Code = n[5] == 1, code
	for i := range totals {
		t, ok1 := totals[i].(int64)
		k, ok2 := known[i].(int64)
		if !ok1 || !ok2 || t < 0 || k < 0 || k > 1 {
			return "", false
		}
		h.Totals = append(h.Totals, t)
		h.TotalsKnown = append(h.TotalsKnown, k == 1)
	}
	if times {
		ct, isStr := l[11].(string)
		if !isStr && l[11] != nil {
			return "", false
		}
		if !parseTimes(&h.Times, ct, isStr) {
			h.Reset()
			return "the calls' times of the record of tool calls hold something else", false
		}
	}
	return "", true
}

// splitNames appends the names of a record's list (rt: each its length,
// 4 bytes big-endian, and its bytes) to dst, and reports whether b holds
// exactly want of them and nothing else: the form the scripts write, as
// walkNames checks it in scripts.go.
func splitNames(dst []string, b string, want int) ([]string, bool) {
	for k := 0; len(b) > 0; k++ {
		if k == want || len(b) < 4 {
			return dst, false
		}
		n := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
		if n > uint64(len(b)-4) {
			return dst, false
		}
		dst = append(dst, b[4:4+n])
		b = b[4+n:]
	}
	return dst, len(dst) == want
}

// Apply implements runtime.Store: one script applies the counter updates
// in order and records the calls in order, all or nothing, in one round
// trip. An error wraps runtime.ErrNotApplied when the store knows nothing
// was applied; else the update is not confirmed (an answer lost on the
// way may follow a script that ran; its token makes a retry of it apply
// nothing).
func (s *Store) Apply(ctx context.Context, session string, u *runtime.Update) error {
	if len(u.Counters) == 0 && len(u.Calls) == 0 {
		return nil
	}
	args := make([]any, 0, 1+2*len(u.Counters)+6*len(u.Calls))
	args = append(args, len(u.Counters))
	for _, c := range u.Counters {
		op := "+"
		if c.Reset {
			op = "0"
		}
		args = append(args, field(c.Key), op)
	}
	for i := range u.Calls {
		c := &u.Calls[i]
		has := "0"
		if c.HasFingerprint {
			has = "1"
		}
		sec, ns := "", ""
		if c.Time != 0 {
			// Seconds (floor) and nanoseconds: each exact in a Lua number.
			q, r := c.Time/1e9, c.Time%1e9
			if r < 0 {
				q, r = q-1, r+1e9
			}
			sec, ns = strconv.FormatInt(q, 10), strconv.FormatInt(r, 10)
		}
		args = append(args, c.Tool, string(c.Fingerprint[:]), has, c.Code, sec, ns)
	}
	_, err := s.run(ctx, applyScript, session, true, args)
	return err
}

// RecordNode implements runtime.Store. The node is checked on the server,
// in the script that records it: a duplicate id, an unknown parent or a
// full session is refused there, and nothing is evicted. A node's
// arguments (a tool result's Args) are kept as runtime.NodeArgsJSON
// encodes them, and refused with its words (not serialisable by JCS, or
// more than runtime.MaxNodeArgs bytes) before anything is sent. An error
// wraps runtime.ErrNotApplied when the store knows the node was not
// recorded.
func (s *Store) RecordNode(ctx context.Context, session string, n runtime.Node) error {
	switch {
	case n.ID == "":
		return runtime.NotApplied(errors.New("record: a node needs an id"))
	case n.Kind != runtime.Message && n.Kind != runtime.ToolResult:
		return runtime.NotApplied(fmt.Errorf("record %q: unknown node kind %d", n.ID, n.Kind))
	}
	nodeArgs, err := runtime.NodeArgsJSON(n)
	if err != nil {
		return runtime.NotApplied(err)
	}
	switch {
	case len(n.Labels) > s.lim.Labels:
		return runtime.NotApplied(fmt.Errorf("record %q: %d labels, more than the limit of %d per node", n.ID, len(n.Labels), s.lim.Labels))
	case len(n.Parents) > s.lim.Parents:
		return runtime.NotApplied(fmt.Errorf("record %q: %d parents, more than the limit of %d per node", n.ID, len(n.Parents), s.lim.Parents))
	}
	bare := n
	bare.Args = nil // NodeSize without encoding the arguments again
	args := make([]any, 0, 13+len(n.Labels)+len(n.Parents))
	args = append(args, s.limits...)
	args = append(args, s.sumBytes, s.budget, runtime.NodeSize(bare)+len(nodeArgs), n.ID, int(n.Kind), n.Tool, n.Origin, n.TrustTier, nodeArgs, len(n.Labels))
	for _, l := range n.Labels {
		args = append(args, l)
	}
	for _, p := range n.Parents {
		args = append(args, p)
	}
	a, err := s.run(ctx, recordScript, session, true, args)
	if err != nil {
		if !errors.Is(err, runtime.ErrNotApplied) {
			return fmt.Errorf("record %q: %w (not confirmed: the server may have recorded it)", n.ID, err)
		}
		return fmt.Errorf("record %q: %w", n.ID, err)
	}
	if a.status == "done" || (len(a.payload) == 1 && a.payload[0] == "recorded") {
		return nil
	}
	if len(a.payload) >= 2 && a.payload[0] == "refused" {
		reason, _ := a.payload[1].(string)
		switch reason {
		case "args":
			return runtime.NotApplied(fmt.Errorf("record %q: its arguments take more than the limit of %d bytes of JSON", n.ID, runtime.MaxNodeArgs))
		case "limit":
			return runtime.NotApplied(fmt.Errorf("record %q: the session holds its limit of %d nodes", n.ID, s.lim.Nodes))
		case "bytes":
			return runtime.NotApplied(fmt.Errorf("record %q: the session's provenance would exceed its limit of %d bytes", n.ID, s.lim.Bytes))
		case "strings":
			return runtime.NotApplied(fmt.Errorf("record %q: the session's provenance would hold more than its limit of %d distinct tools, origins, trust tiers and labels", n.ID, s.lim.Strings))
		case "duplicate":
			return runtime.NotApplied(fmt.Errorf("record %q: a node with this id is already recorded", n.ID))
		case "parent":
			if len(a.payload) == 3 {
				p, _ := a.payload[2].(string)
				return runtime.NotApplied(fmt.Errorf("record %q: parent %q is not recorded (parents are recorded before their children)", n.ID, p))
			}
		}
	}
	return fmt.Errorf("record %q: redis: unexpected answer %v", n.ID, a.payload)
}

// MarkIncomplete implements runtime.Store.
func (s *Store) MarkIncomplete(ctx context.Context, session string) error {
	if _, err := s.run(ctx, markScript, session, true, nil); err != nil {
		if !errors.Is(err, runtime.ErrNotApplied) {
			return fmt.Errorf("marking the session incomplete: %w (not confirmed: the server may have marked it)", err)
		}
		return fmt.Errorf("marking the session incomplete: %w", err)
	}
	return nil
}

// Scope implements runtime.Store: one script computes the facts of the
// inputs' ancestry on the server, within the step budget (an incomplete
// session is an error, with inputs or without); the lists are sorted
// here, in byte order. With sc.WantNodes the same script, in the same
// round trip, lists every node in scope (it then walks them all, within
// the budget: see scopeScript); a listed node that is not what the store
// writes is an error wrapping [ErrCorrupt].
func (s *Store) Scope(ctx context.Context, session string, inputs []string, sc *runtime.Scope) error {
	sc.Tools, sc.Origins, sc.TrustTiers, sc.Labels = sc.Tools[:0], sc.Origins[:0], sc.TrustTiers[:0], sc.Labels[:0]
	sc.Nodes = sc.Nodes[:0]
	// Without inputs the server is asked all the same: the scope is empty
	// unless the session is incomplete (spec 5.7: a host that lost
	// history cannot show that the action depends on nothing).
	want := "0"
	if sc.WantNodes {
		want = "1"
	}
	args := make([]any, 0, 2+len(inputs))
	args = append(args, s.budget, want)
	for _, in := range inputs {
		args = append(args, in)
	}
	a, err := s.run(ctx, scopeScript, session, false, args)
	if err != nil {
		return fmt.Errorf("computing the provenance scope: %w", err)
	}
	res := a.payload
	status := ""
	if len(res) > 0 {
		status, _ = res[0].(string)
	}
	switch status {
	case "incomplete":
		return fmt.Errorf("%w: the session is marked incomplete", runtime.ErrUnknownProvenance)
	case "unknown":
		if len(res) == 2 {
			id, _ := res[1].(string)
			return fmt.Errorf("%w: input %q is not recorded", runtime.ErrUnknownProvenance, id)
		}
	case "budget":
		return fmt.Errorf("computing the provenance scope: redis: the ancestry of the inputs needs more than the budget of %s steps (Options.ScopeBudget): it outgrew its summaries", s.budget)
	case "scope", "nodes":
		if len(res) == 5 && status == "scope" || len(res) == 6 && status == "nodes" && sc.WantNodes {
			var good [4]bool
			sc.Tools, good[0] = appendSorted(sc.Tools, res[1])
			sc.Origins, good[1] = appendSorted(sc.Origins, res[2])
			sc.TrustTiers, good[2] = appendSorted(sc.TrustTiers, res[3])
			sc.Labels, good[3] = appendSorted(sc.Labels, res[4])
			if good != [4]bool{true, true, true, true} {
				sc.Tools, sc.Origins, sc.TrustTiers, sc.Labels = sc.Tools[:0], sc.Origins[:0], sc.TrustTiers[:0], sc.Labels[:0]
				break
			}
			if status == "scope" {
				if !sc.WantNodes {
					return nil
				}
				break
			}
			nodes, why, ok := scopeNodes(sc.Nodes, inputs, res[5])
			if why != "" {
				sc.Nodes = sc.Nodes[:0]
				return fmt.Errorf("listing the provenance nodes: %w", &sessionError{kind: ErrCorrupt, session: session, why: why})
			}
			if ok {
				sc.Nodes = nodes
				return nil
			}
		}
	}
	sc.Nodes = sc.Nodes[:0]
	return fmt.Errorf("computing the provenance scope: redis: unexpected answer %v", res)
}

// scopeNodes appends to dst the nodes the scope script listed (in the
// order it walked them), the inputs first in the order given and once
// each, then the others in recording order. It reports a listed node that
// is not what the store writes (why: two nodes in one place of the
// recording order, arguments that are not a JSON object, a message with a
// tool or arguments), and an answer of another shape (not ok).
func scopeNodes(dst []runtime.ScopeNode, inputs []string, v any) (nodes []runtime.ScopeNode, why string, ok bool) {
	l, _ := v.([]any)
	type listed struct {
		n   runtime.ScopeNode
		seq int64
	}
	all := make([]listed, 0, len(l))
	byID := make(map[string]int, len(l))
	seqs := make(map[int64]bool, len(l))
	for _, e := range l {
		f, _ := e.([]any)
		if len(f) != 8 {
			return dst, "", false
		}
		id, ok1 := f[0].(string)
		seq, ok2 := f[1].(int64)
		kind, ok3 := f[2].(int64)
		tool, ok4 := f[3].(string)
		origin, ok5 := f[4].(string)
		tier, ok6 := f[5].(string)
		labels, ok7 := f[6].([]any)
		args, ok8 := f[7].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || !ok8 || seq < 1 || (kind != 1 && kind != 2) {
			return dst, "", false
		}
		if _, dup := byID[id]; dup {
			return dst, "", false
		}
		if seqs[seq] {
			return dst, fmt.Sprintf("nodes %q and another hold one place in the recording order", id), false
		}
		seqs[seq] = true
		n := runtime.ScopeNode{ID: id, Kind: runtime.NodeKind(kind), Tool: tool, Origin: origin, TrustTier: tier, ArgsJSON: args, Labels: make([]string, 0, len(labels))}
		for _, x := range labels {
			s, ok := x.(string)
			if !ok {
				return dst, "", false
			}
			n.Labels = append(n.Labels, s)
		}
		switch {
		case n.Kind == runtime.Message && (tool != "" || args != ""):
			return dst, fmt.Sprintf("message %q holds a tool or arguments", id), false
		case args != "" && (len(args) > runtime.MaxNodeArgs || args[0] != '{' || !json.Valid([]byte(args))):
			return dst, fmt.Sprintf("the arguments of node %q are not a JSON object of at most %d bytes", id, runtime.MaxNodeArgs), false
		}
		byID[id] = len(all)
		all = append(all, listed{n: n, seq: seq})
	}
	used := make([]bool, len(all))
	for _, in := range inputs {
		i, ok := byID[in]
		if !ok {
			return dst, "", false // the script lists every input it found
		}
		if !used[i] {
			used[i] = true
			n := all[i].n
			n.Input = true
			dst = append(dst, n)
		}
	}
	rest := make([]listed, 0, len(all))
	for i, x := range all {
		if !used[i] {
			rest = append(rest, x)
		}
	}
	slices.SortFunc(rest, func(a, b listed) int { return cmp.Compare(a.seq, b.seq) })
	for _, x := range rest {
		dst = append(dst, x.n)
	}
	return dst, "", true
}

// appendSorted appends the strings of the list v to dst, sorted and
// deduplicated, and reports whether v is a list of strings: an answer of
// another shape is an error, never a list without what it could not read.
func appendSorted(dst []string, v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return dst, false
	}
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return dst, false
		}
		dst = append(dst, s)
	}
	slices.Sort(dst)
	return slices.Compact(dst), true
}

// memory is what a Store remembers of the sessions it served, most
// recently used first, at most max of them: a session's generation, the
// mutations it had, and until when it must exist (its deadline, server
// time). The scripts compare it with what they find: fewer mutations of
// the same generation, or another generation (not begun by a reset) before
// the deadline, is state the server lost.
type memory struct {
	mu  sync.Mutex
	max int
	m   map[string]*list.Element
	l   list.List
}

// memo is what memory holds of one session (the zero memo: nothing).
type memo struct {
	id, g string
	s, d  int64
}

func newMemory(max int) *memory {
	if max <= 0 {
		return nil
	}
	return &memory{max: max, m: map[string]*list.Element{}}
}

func (m *memory) get(id string) memo {
	if m == nil {
		return memo{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.m[id]; ok {
		return *e.Value.(*memo)
	}
	return memo{}
}

// put remembers an answer. Answers of concurrent calls arrive in any
// order: of one generation, the most mutations and the latest deadline
// are kept; of another, the answer with the later deadline wins (a
// deadline is the server's time of the call plus the TTL).
func (m *memory) put(id, g string, s, d int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.m[id]; ok {
		v := e.Value.(*memo)
		switch {
		case v.g == g:
			v.s, v.d = max(v.s, s), max(v.d, d)
		case d >= v.d:
			*v = memo{id: id, g: g, s: s, d: d}
		}
		m.l.MoveToFront(e)
		return
	}
	m.m[id] = m.l.PushFront(&memo{id: id, g: g, s: s, d: d})
	if m.l.Len() > m.max {
		last := m.l.Back()
		m.l.Remove(last)
		delete(m.m, last.Value.(*memo).id)
	}
}

// parseTimes fills c from ct, the calls' times as the apply script writes
// them (see timesLib in scripts.go; present false when absent: none kept
// yet), and
// reports whether ct is in that form, whole: canonical numbers, at most
// runtime.TimesLimit entries and exactly as many as its header says, each
// no later than the latest time and, when there is one, the oldest after
// the latest minus runtime.TimesSpan (as every apply leaves it), and
// nothing after them. Else c is left unfilled: the store fails closed.
func parseTimes(c *runtime.CallTimes, ct string, present bool) bool {
	if !present {
		c.Kept = true
		return true
	}
	head, rest, found := strings.Cut(ct, ";")
	f := strings.Split(head, " ")
	if !found || len(f) != 6 || (f[3] != "0" && f[3] != "1") {
		return false
	}
	n, ok1 := parseTimeNum(f[0], false)
	latest, ok2 := joinTimeText(f[1], f[2])
	dropAt, ok3 := joinTimeText(f[4], f[5])
	if !ok1 || !ok2 || !ok3 || n > runtime.TimesLimit || (f[3] == "0" && (f[4] != "0" || f[5] != "0")) {
		return false
	}
	at, tools := c.At, c.Tools
	for k := int64(0); len(rest) > 0; k++ {
		if k == n {
			return false
		}
		sec, r, ok := strings.Cut(rest, " ")
		ns, r2, ok2 := strings.Cut(r, " ")
		ln, r3, ok3 := strings.Cut(r2, ":")
		if !ok || !ok2 || !ok3 {
			return false
		}
		t, okt := joinTimeText(sec, ns)
		l, okl := parseTimeNum(ln, false)
		if !okt || !okl || l > int64(len(r3)) || t > latest {
			return false
		}
		if k == 0 && latest >= math.MinInt64+int64(runtime.TimesSpan) && t <= latest-int64(runtime.TimesSpan) {
			return false
		}
		at, tools = append(at, t), append(tools, r3[:l])
		rest = r3[l:]
	}
	if int64(len(at)) != n {
		return false
	}
	c.Kept, c.At, c.Tools, c.Dropped, c.DroppedAt = true, at, tools, f[3] == "1", dropAt
	return true
}

// parseTimeNum parses a number of ct: canonical decimal digits (a sign
// only where signed), at most 12 characters (seconds of an int64 of
// nanoseconds have at most 10 digits).
func parseTimeNum(v string, signed bool) (int64, bool) {
	d := v
	if signed && strings.HasPrefix(d, "-") {
		d = d[1:]
		if d == "0" {
			return 0, false
		}
	}
	if len(v) > 12 || d == "" || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	x, err := strconv.ParseInt(v, 10, 64)
	return x, err == nil
}

// joinTimeText is a time of ct (seconds, nanoseconds) in Unix
// nanoseconds, when it is one an int64 holds.
func joinTimeText(sec, ns string) (int64, bool) {
	s, ok1 := parseTimeNum(sec, true)
	n, ok2 := parseTimeNum(ns, false)
	if !ok1 || !ok2 || n >= 1e9 {
		return 0, false
	}
	const g = int64(1e9)
	if s >= 0 {
		if s > math.MaxInt64/g {
			return 0, false
		}
		b := s * g
		if n > math.MaxInt64-b {
			return 0, false
		}
		return b + n, true
	}
	if s < math.MinInt64/g-1 {
		return 0, false
	}
	b, d := (s+1)*g, n-g
	if d < math.MinInt64-b {
		return 0, false
	}
	return b + d, true
}
