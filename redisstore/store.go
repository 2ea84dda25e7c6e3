// Package redisstore keeps oarc sessions in Redis (spec 5.9), so that the
// replicas of a host see one session whichever replica takes a call: the
// counters rules read and update (spec 5.3) and the provenance graph
// (spec 5.7).
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
// A session is one hash, P{id} (P the prefix): its counters (fields
// c:RULE.fire, c:RULE.breaker, by rule id and counter, never by slot, so
// that replicas running different builds agree), its provenance nodes
// (n:ID), their ancestry summaries (s:N), and a few facts of the session
// (incomplete, nodes, summaries, tokens). One key, so a session expires,
// is evicted, replicated and moved between cluster nodes as a whole.
// Every call is one server-side script, so one round trip (two the first
// time a server sees a script: EVALSHA answers NOSCRIPT, then EVAL; see
// [Store.Load]): reading an anchor's counters, applying an occurrence's
// updates (atomic, all or nothing), recording a node, marking the session
// incomplete, computing a scope. Each refreshes the session's expiry
// ([Options.TTL]).
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
// server, parents first found, each node and summary once (so at most the
// session's node limit), stopping at nodes with a summary. Either way one
// round trip answers the scope, whatever the graph's size.
//
// # Failures
//
// A call fails when the server cannot be reached or does not answer before
// the caller's deadline (the client must be made with
// ContextTimeoutEnabled, which [New] checks); the generated code makes that
// an evaluation error at the read (kind store) and reports updates it
// could not apply. go-redis redials on the next call, so a host recovers
// when the server is back, without restarting. A mutation the client
// retries after a lost answer is applied once (its token is remembered).
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// ClientOptions returns options for a client of the server at addr that
// suit a store: deadlines honoured (ContextTimeoutEnabled); a failed dial
// not retried within a call, so that a call to a server that is down fails
// at once (go-redis then stops dialing in calls and probes the server in
// the background, every second, until it answers); a call whose answer was
// lost retried once, on a new connection (safe: mutations carry tokens).
// Change what else the host needs (pool size, TLS, credentials).
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{Addr: addr, ContextTimeoutEnabled: true, DialerRetries: 1, MaxRetries: 1}
}

// Options configures a [Store].
type Options struct {
	// Prefix starts every key of the store ("oarc:" when empty): stores
	// of different applications on one server use different prefixes.
	Prefix string
	// TTL is how long a session is kept after its last use (every read
	// and write refreshes it); DefaultTTL when zero.
	TTL time.Duration
	// NodeLimit is the most provenance nodes a session holds;
	// runtime.DefaultNodeLimit when zero.
	NodeLimit int
	// SummaryBytes bounds the encoded size of one ancestry summary
	// (DefaultSummaryBytes when zero; negative: no summaries, every scope
	// walks the graph).
	SummaryBytes int
	// Timeout, when positive, bounds a call whose context allows more
	// (or has no deadline); the client's own timeouts apply in any case.
	Timeout time.Duration
}

// Defaults of [Options].
const (
	DefaultPrefix       = "oarc:"
	DefaultTTL          = 24 * time.Hour
	DefaultSummaryBytes = 512
)

// Store keeps sessions in Redis. It implements runtime.Store and is safe
// for concurrent use; replicas make a Store each, with the same prefix, on
// clients of the same server.
type Store struct {
	c        redis.UniversalClient
	prefix   string
	ttl      string // milliseconds
	limit    string
	sumBytes string
	nodeMax  int
	timeout  time.Duration
	tokBase  uint64
	tokSeq   atomic.Uint64
}

var _ runtime.Store = (*Store)(nil)

// New returns a store on client. The client must honour the caller's
// context deadlines (redis.Options.ContextTimeoutEnabled): a call that
// outlives the evaluation's deadline would turn a late store into a late
// decision instead of an error at the read.
func New(client redis.UniversalClient, opts Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("redisstore: nil client")
	}
	enabled := true
	switch c := client.(type) {
	case *redis.Client:
		enabled = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		enabled = c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		enabled = c.Options().ContextTimeoutEnabled
	}
	if !enabled {
		return nil, errors.New("redisstore: the client must be made with ContextTimeoutEnabled: true, so that a call ends at the caller's deadline (spec 5.9)")
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
	if opts.NodeLimit <= 0 {
		opts.NodeLimit = runtime.DefaultNodeLimit
	}
	if opts.SummaryBytes == 0 {
		opts.SummaryBytes = DefaultSummaryBytes
	}
	var seed [8]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("redisstore: %v", err)
	}
	return &Store{
		c:        client,
		prefix:   opts.Prefix,
		ttl:      strconv.FormatInt(opts.TTL.Milliseconds(), 10),
		limit:    strconv.Itoa(opts.NodeLimit),
		sumBytes: strconv.Itoa(opts.SummaryBytes),
		nodeMax:  opts.NodeLimit,
		timeout:  opts.Timeout,
		tokBase:  binary.LittleEndian.Uint64(seed[:]),
	}, nil
}

// Session returns the session id kept by s.
func (s *Store) Session(id string) *runtime.Session { return runtime.NewStoreSession(s, id) }

// Load loads the scripts into the server, so that the first calls after
// it are one round trip each. It is optional: a script the server does
// not have is sent on first use.
func (s *Store) Load(ctx context.Context) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	for _, sc := range []*redis.Script{readScript, applyScript, recordScript, markScript, scopeScript} {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return fmt.Errorf("redisstore: loading scripts: %w", err)
		}
	}
	return nil
}

// Delete removes a session (a host that knows a session ended need not
// wait for its expiry).
func (s *Store) Delete(ctx context.Context, session string) error {
	if session == "" {
		return errNoID
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.c.Del(ctx, s.key(session)[0]).Err(); err != nil {
		return fmt.Errorf("redisstore: deleting session %q: %w", session, err)
	}
	return nil
}

// errNoID is the error of a call for a session without an id: replicas
// could not tell its keys from another's.
var errNoID = errors.New("redis: a session in a store needs an id")

// key is the session's hash. The braces end the id, so that no two
// sessions of stores whose prefixes have no braces share a key (and, in a
// cluster, a session's hash tag is its id).
func (s *Store) key(session string) []string {
	return []string{s.prefix + "{" + session + "}"}
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

// token returns the token of a mutation: 8 bytes no other mutation of
// the store has (a bijection of a sequence), and that another store's
// tokens match with probability 2^-64 (a random base).
func (s *Store) token() string {
	x := s.tokBase + s.tokSeq.Add(1)*0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	return string(b[:])
}

func field(k runtime.CounterKey) string { return "c:" + k.Rule + "." + k.Counter.String() }

// ReadCounters implements runtime.Store: one script, so one consistent
// snapshot.
func (s *Store) ReadCounters(ctx context.Context, session string, keys []runtime.CounterKey, dst []int64) error {
	if len(keys) == 0 {
		return nil
	}
	if session == "" {
		return errNoID
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	args := make([]any, 1, 1+len(keys))
	args[0] = s.ttl
	for _, k := range keys {
		args = append(args, field(k))
	}
	vals, err := readScript.Run(ctx, s.c, s.key(session), args...).Slice()
	if err != nil {
		return fmt.Errorf("redis: reading counters: %w", err)
	}
	if len(vals) != len(keys) {
		return fmt.Errorf("redis: reading counters: %d values for %d counters", len(vals), len(keys))
	}
	for i, v := range vals {
		str, _ := v.(string)
		if str == "" {
			dst[i] = 0
			continue
		}
		n, err := strconv.ParseInt(str, 10, 64)
		if err != nil {
			return fmt.Errorf("redis: counter %s.%s holds %q", keys[i].Rule, keys[i].Counter, str)
		}
		dst[i] = n
	}
	return nil
}

// ApplyCounters implements runtime.Store: one script applies the updates
// in order, all or nothing. An error means they were not applied, or not
// confirmed (an answer lost on the way may follow a script that ran).
func (s *Store) ApplyCounters(ctx context.Context, session string, ups []runtime.CounterUpdate) error {
	if len(ups) == 0 {
		return nil
	}
	if session == "" {
		return errNoID
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	args := make([]any, 2, 2+2*len(ups))
	args[0], args[1] = s.ttl, s.token()
	for _, u := range ups {
		op := "+"
		if u.Reset {
			op = "0"
		}
		args = append(args, field(u.Key), op)
	}
	if err := applyScript.Run(ctx, s.c, s.key(session), args...).Err(); err != nil {
		if unsent(err) {
			return fmt.Errorf("redis: %w", err)
		}
		return fmt.Errorf("redis: %w (not confirmed: the server may have applied them)", err)
	}
	return nil
}

// unsent reports whether a call that failed with err certainly did not
// run its script: the server refused it (the scripts check before they
// write), or no connection could be had.
func unsent(err error) bool {
	var rerr redis.Error
	var op *net.OpError
	return errors.As(err, &rerr) || (errors.As(err, &op) && op.Op == "dial") || errors.Is(err, redis.ErrPoolTimeout)
}

// RecordNode implements runtime.Store. The node is checked on the server,
// in the script that records it: a duplicate id, an unknown parent or a
// full session is refused there, and nothing is evicted.
func (s *Store) RecordNode(ctx context.Context, session string, n runtime.Node) error {
	switch {
	case n.ID == "":
		return errors.New("record: a node needs an id")
	case n.Kind != runtime.Message && n.Kind != runtime.ToolResult:
		return fmt.Errorf("record %q: unknown node kind %d", n.ID, n.Kind)
	case session == "":
		return fmt.Errorf("record %q: %w", n.ID, errNoID)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	args := make([]any, 0, 10+len(n.Labels)+len(n.Parents))
	args = append(args, s.ttl, s.token(), s.limit, s.sumBytes, n.ID, int(n.Kind), n.Tool, n.Origin, n.TrustTier, len(n.Labels))
	for _, l := range n.Labels {
		args = append(args, l)
	}
	for _, p := range n.Parents {
		args = append(args, p)
	}
	res, err := recordScript.Run(ctx, s.c, s.key(session), args...).Slice()
	if err != nil {
		return fmt.Errorf("record %q: redis: %w", n.ID, err)
	}
	if code, _ := res[0].(int64); code == 0 {
		return nil
	}
	reason, _ := res[1].(string)
	switch reason {
	case "limit":
		return fmt.Errorf("record %q: the session holds its limit of %d nodes", n.ID, s.nodeMax)
	case "duplicate":
		return fmt.Errorf("record %q: a node with this id is already recorded", n.ID)
	case "parent":
		p, _ := res[2].(string)
		return fmt.Errorf("record %q: parent %q is not recorded (parents are recorded before their children)", n.ID, p)
	}
	return fmt.Errorf("record %q: redis: unexpected answer %v", n.ID, res)
}

// MarkIncomplete implements runtime.Store.
func (s *Store) MarkIncomplete(ctx context.Context, session string) error {
	if session == "" {
		return errNoID
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := markScript.Run(ctx, s.c, s.key(session), s.ttl).Err(); err != nil {
		return fmt.Errorf("redis: marking the session incomplete: %w", err)
	}
	return nil
}

// Scope implements runtime.Store: one script computes the facts of the
// inputs' ancestry on the server; the lists are sorted here, in byte
// order.
func (s *Store) Scope(ctx context.Context, session string, inputs []string, sc *runtime.Scope) error {
	sc.Tools, sc.Origins, sc.TrustTiers, sc.Labels = sc.Tools[:0], sc.Origins[:0], sc.TrustTiers[:0], sc.Labels[:0]
	if len(inputs) == 0 {
		return nil
	}
	if session == "" {
		return errNoID
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	args := make([]any, 1, 1+len(inputs))
	args[0] = s.ttl
	for _, in := range inputs {
		args = append(args, in)
	}
	res, err := scopeScript.Run(ctx, s.c, s.key(session), args...).Slice()
	if err != nil {
		return fmt.Errorf("redis: computing the provenance scope: %w", err)
	}
	status, _ := res[0].(string)
	switch status {
	case "incomplete":
		return fmt.Errorf("%w: the session is marked incomplete", runtime.ErrUnknownProvenance)
	case "unknown":
		id, _ := res[1].(string)
		return fmt.Errorf("%w: input %q is not recorded", runtime.ErrUnknownProvenance, id)
	case "ok":
		if len(res) == 5 {
			sc.Tools = appendSorted(sc.Tools, res[1])
			sc.Origins = appendSorted(sc.Origins, res[2])
			sc.TrustTiers = appendSorted(sc.TrustTiers, res[3])
			sc.Labels = appendSorted(sc.Labels, res[4])
			return nil
		}
	}
	return fmt.Errorf("redis: computing the provenance scope: unexpected answer %v", res)
}

func appendSorted(dst []string, v any) []string {
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			dst = append(dst, s)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}
