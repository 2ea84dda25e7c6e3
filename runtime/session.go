package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Session is one agent session as the rules see it: per-rule counters
// (spec 5.3) and the provenance graph (spec 5.7), kept by a [Store]. A
// session made by [NewSession] keeps them in the process; one made by
// [NewStoreSession] in a store shared by replicas (spec 5.9). A Session is
// safe for concurrent use. A nil *Session reads every counter as zero,
// records nothing, and has an empty provenance graph. A Session without a
// store (the zero value, or [NewStoreSession] of a nil store) is a host's
// mistake, never a silent allow: every counter or provenance read of it is
// an evaluation error (kind store), its updates are reported, and Record
// and MarkIncomplete return an error.
type Session struct {
	id, tenant string
	key        string // what the store knows the session by: SessionKey(tenant, id)
	store      Store
}

// SessionOption configures a session when it is made.
type SessionOption func(*Session)

// WithTenant puts the session in a tenant (spec 5.11; empty by default):
// two sessions with one id and different tenants are different sessions
// in every store, and nothing recorded in one can be read, named as an
// input or reset from the other. Rules read it as the fact tenant.
func WithTenant(tenant string) SessionOption { return func(s *Session) { s.tenant = tenant } }

// SessionKey is what a store knows the session id of tenant by: the id
// itself in the empty tenant (unless it starts with a NUL byte), else a
// NUL, the tenant as a Go quoted string, a NUL and the id, so that no two
// (tenant, id) pairs share a key.
func SessionKey(tenant, id string) string {
	if tenant == "" && !strings.HasPrefix(id, "\x00") {
		return id
	}
	return "\x00" + strconv.Quote(tenant) + "\x00" + id
}

func newSession(id string, store Store, opts []SessionOption) *Session {
	s := &Session{id: id, store: store}
	for _, o := range opts {
		o(s)
	}
	s.key = SessionKey(s.tenant, s.id)
	return s
}

// errNoStore is the error of every use of a session without a store.
var errNoStore = errors.New("the session has no store: make it with runtime.NewSession, or runtime.NewStoreSession with a store")

// noStore is the store of a session made without one.
type noStore struct{}

func (noStore) Read(context.Context, string, *Snapshot) error         { return errNoStore }
func (noStore) Apply(context.Context, string, *Update) error          { return NotApplied(errNoStore) }
func (noStore) RecordNode(context.Context, string, Node) error        { return NotApplied(errNoStore) }
func (noStore) MarkIncomplete(context.Context, string) error          { return NotApplied(errNoStore) }
func (noStore) Scope(context.Context, string, []string, *Scope) error { return errNoStore }

// NewSession returns a session kept in the process, with the default node
// limit ([DefaultNodeLimit]).
func NewSession(id string, opts ...SessionOption) *Session {
	return newSession(id, NewMemStore(0), opts)
}

// NewStoreSession returns the session id kept by store (a MemStore keeps
// one session: give each session its own).
func NewStoreSession(store Store, id string, opts ...SessionOption) *Session {
	if m, ok := store.(*MemStore); ok && m == nil {
		store = nil // a nil *MemStore is no store
	}
	return newSession(id, store, opts)
}

// InTenant returns the session id of tenant in s's store: another session
// unless the tenant is s's own.
func (s *Session) InTenant(tenant string) *Session {
	if s == nil {
		return nil
	}
	return newSession(s.id, s.store, []SessionOption{WithTenant(tenant)})
}

// ID is the session's id (the host's, without its tenant).
func (s *Session) ID() string {
	if s == nil {
		return ""
	}
	return s.id
}

// Tenant is the session's tenant, "" by default.
func (s *Session) Tenant() string {
	if s == nil {
		return ""
	}
	return s.tenant
}

// Key is what the session's store knows it by: [SessionKey] of its tenant
// and id. Stores are called with it.
func (s *Session) Key() string {
	if s == nil {
		return ""
	}
	return s.key
}

// Store is the store that keeps the session: nil for a nil *Session, and
// a store whose every call fails for a session made without one.
func (s *Session) Store() Store {
	if s == nil {
		return nil
	}
	if s.store == nil {
		return noStore{}
	}
	return s.store
}

// Record adds a provenance node to the session (spec 5.7). Recording
// evaluates nothing. It fails when the id is empty or already recorded,
// the kind is unknown, a parent is not recorded, or the session holds its
// limit of nodes (nothing is evicted).
func (s *Session) Record(ctx context.Context, n Node) error {
	if s == nil {
		return errors.New("record: nil session")
	}
	return s.Store().RecordNode(ctx, s.key, n)
}

// MarkIncomplete says that the session lost, or never had, part of its
// history: from then on reading a provenance fact is an evaluation error,
// because missing observations never prove that nothing happened. A nil
// *Session keeps no graph to mark: an error, as for Record.
func (s *Session) MarkIncomplete(ctx context.Context) error {
	if s == nil {
		return errors.New("mark incomplete: nil session (it keeps no provenance to mark)")
	}
	return s.Store().MarkIncomplete(ctx, s.key)
}

// Store keeps the state of sessions (spec 5.9): the counters rules read
// and update, the record of tool calls the engine keeps (spec 5.10), and
// the provenance graphs. Implementations are safe for concurrent use, and
// honour the context's deadline.
type Store interface {
	// Read reads what s asks, as one consistent snapshot: the counters
	// s.Keys names into s.Counters (len(s.Counters) == len(s.Keys);
	// absent counters are 0) and, when s.History is not nil, the
	// session's record of tool calls for s.Query.
	Read(ctx context.Context, session string, s *Snapshot) error
	// Apply applies the updates of one check (spec 5.11: one occurrence,
	// or several at one anchor), all or nothing, so that no reader sees a
	// part of them: u.Counters in order, and u.Calls, the check's
	// tool.pre_invoke occurrences, in order. An error wraps
	// [ErrNotApplied] when the store knows they were not applied.
	Apply(ctx context.Context, session string, u *Update) error
	// RecordNode adds a provenance node (see [Session.Record]). An error
	// wraps [ErrNotApplied] when the store knows it was not recorded.
	RecordNode(ctx context.Context, session string, n Node) error
	// MarkIncomplete marks the session's provenance incomplete.
	MarkIncomplete(ctx context.Context, session string) error
	// Scope computes the provenance facts of inputs and their ancestors
	// into sc. An input that is not recorded, or an incomplete session, is
	// an error wrapping [ErrUnknownProvenance].
	Scope(ctx context.Context, session string, inputs []string, sc *Scope) error
}

// Snapshot is what an occurrence reads of its session in one consistent
// read ([Store.Read]).
type Snapshot struct {
	Keys     []CounterKey
	Counters []int64 // the values of Keys, filled by the store
	// History, when not nil, receives the record of tool calls for Query.
	History *History
	Query   HistoryQuery
}

// Update is what a check applies to its session ([Store.Apply]).
type Update struct {
	Counters []CounterUpdate
	Calls    []Call
}

// ReadCounters reads counters of a session from st (a [Store.Read] of
// counters only), for hosts and tools that restore or inspect them.
func ReadCounters(ctx context.Context, st Store, session string, keys []CounterKey, dst []int64) error {
	return st.Read(ctx, session, &Snapshot{Keys: keys, Counters: dst})
}

// ApplyCounters applies counter updates to a session in st (a
// [Store.Apply] of counters only).
func ApplyCounters(ctx context.Context, st Store, session string, ups []CounterUpdate) error {
	return st.Apply(ctx, session, &Update{Counters: ups})
}

// CounterKey names one counter: of the rule with the given id, which is
// the rule in slot Slot of its compilation set.
type CounterKey struct {
	Slot    int32
	Rule    string
	Counter Counter
}

// CounterUpdate is one update after an occurrence: an increment, or a
// reset to zero.
type CounterUpdate struct {
	Key   CounterKey
	Reset bool
}

// NodeKind is the kind of a provenance node.
type NodeKind uint8

// The node kinds.
const (
	Message NodeKind = iota + 1
	ToolResult
)

// ParseNodeKind returns the kind with the given name (message,
// tool_result).
func ParseNodeKind(s string) (NodeKind, bool) {
	switch s {
	case "message":
		return Message, true
	case "tool_result":
		return ToolResult, true
	}
	return 0, false
}

func (k NodeKind) String() string {
	switch k {
	case Message:
		return "message"
	case ToolResult:
		return "tool_result"
	}
	return "kind?"
}

// Node is a recorded piece of what the agent saw (spec 5.7): a message, or
// the result of a tool call that returned successfully, with where it came
// from and the nodes it was computed from (recorded before it).
type Node struct {
	ID        string
	Kind      NodeKind
	Tool      string   // for a tool result: the tool that produced it
	Origin    string   // host-defined source: user, web, email, ...
	TrustTier string   // host-defined: trusted, untrusted, ...
	Labels    []string // confidential, pii, ...
	Parents   []string // ids of the nodes it was computed from
	// Args are, for a tool result, the arguments of the call that
	// produced it (spec 5.11: provenance_nodes); ignored for a message.
	// They are kept as JSON (NodeArgsJSON: at most MaxNodeArgs bytes,
	// which count toward the session's byte limit): arguments JCS cannot
	// serialise, or larger, make the node refused.
	Args map[string]any
}

// MaxNodeArgs is the most bytes of canonical JSON a node's Args may take.
const MaxNodeArgs = 64 << 10

// ScopeNode is one node of an occurrence's scope (provenance_nodes, spec
// 5.11): its recorded fields, and whether it is one of the occurrence's
// inputs rather than only an ancestor. ArgsJSON is the JSON of its Args
// (NodeArgsJSON; "" for none).
type ScopeNode struct {
	ID, Tool, Origin, TrustTier string
	Kind                        NodeKind
	Labels                      []string
	ArgsJSON                    string
	Input                       bool
}

// Scope holds the provenance facts of an occurrence: each a sorted list of
// distinct strings over its inputs and their ancestors.
type Scope struct {
	Tools      []string // tool of every tool_result node
	Origins    []string // every non-empty origin
	TrustTiers []string // every non-empty trust tier
	Labels     []string // every label
	// WantNodes asks the store for Nodes too: every node in scope once,
	// the inputs first in the order given, then the ancestors in
	// recording order (provenance_nodes). Filling them may allocate.
	WantNodes bool
	Nodes     []ScopeNode
}

// ErrUnknownProvenance is wrapped by the errors of [Store.Scope] when the
// scope cannot be known: an input is not recorded, or the session is
// marked incomplete.
var ErrUnknownProvenance = errors.New("provenance unknown")

// The default limits of a session's provenance graph ([Limits]).
const (
	// DefaultNodeLimit is the default number of provenance nodes a
	// session holds.
	DefaultNodeLimit = 65536
	// DefaultLabelLimit is the default number of labels one node may
	// carry.
	DefaultLabelLimit = 256
	// DefaultParentLimit is the default number of parents one node may
	// name.
	DefaultParentLimit = 256
	// DefaultByteLimit is the default size of a session's graph, counted
	// as [NodeSize] counts it.
	DefaultByteLimit = 16 << 20
	// DefaultStringLimit is the default number of distinct strings (tools,
	// origins, trust tiers, labels) a session's graph holds.
	DefaultStringLimit = 4096
)

// Limits bound what a session's provenance graph holds (spec 5.7), so
// that no session can make a scope slow or memory grow without bound: a
// node over a limit is refused with an error to the host, and nothing is
// evicted. The limits also bound the work of a scope, which visits each
// node, label and parent in scope at most once and sorts the distinct
// values it found: with the defaults, at most 2M labels and parents in a
// session (each counts 8 bytes of NodeSize) and 4,096 distinct values, a
// walk of a few milliseconds. A zero field takes its default.
type Limits struct {
	Nodes   int // nodes per session (DefaultNodeLimit)
	Labels  int // labels per node (DefaultLabelLimit)
	Parents int // parents per node (DefaultParentLimit)
	Bytes   int // NodeSize of all the session's nodes (DefaultByteLimit)
	Strings int // distinct tools, origins, tiers and labels (DefaultStringLimit)
}

func (l Limits) withDefaults() Limits {
	if l.Nodes <= 0 {
		l.Nodes = DefaultNodeLimit
	}
	if l.Labels <= 0 {
		l.Labels = DefaultLabelLimit
	}
	if l.Parents <= 0 {
		l.Parents = DefaultParentLimit
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultByteLimit
	}
	if l.Strings <= 0 {
		l.Strings = DefaultStringLimit
	}
	return l
}

// NodeSize is what a node counts against [Limits.Bytes]: the bytes of its
// strings, 8 for each label and parent, and 64 for the node itself. It
// does not depend on what the session already holds (interning saves
// memory, not budget), so a graph is refused at the same node in every
// store.
func NodeSize(n Node) int {
	args, _ := NodeArgsJSON(n)
	return nodeSize(n, args)
}

func nodeSize(n Node, args string) int {
	size := 64 + len(n.ID) + len(n.Tool) + len(n.Origin) + len(n.TrustTier) + len(args)
	for _, l := range n.Labels {
		size += 8 + len(l)
	}
	for _, p := range n.Parents {
		size += 8 + len(p)
	}
	return size
}

// NodeArgsJSON is the JSON a store keeps of a node's Args
// ([AppendTypedJSON]: DecodeToolArgs gives the same values back): "" for a
// message or no Args; an error for Args that JCS cannot serialise or that
// take more than MaxNodeArgs bytes.
func NodeArgsJSON(n Node) (string, error) {
	if n.Kind != ToolResult || n.Args == nil {
		return "", nil
	}
	b, err := AppendTypedJSON(nil, n.Args)
	switch {
	case err != nil:
		return "", fmt.Errorf("record %q: its arguments: %v", n.ID, err)
	case len(b) > MaxNodeArgs:
		return "", fmt.Errorf("record %q: its arguments take %d bytes of JSON, more than the limit of %d", n.ID, len(b), MaxNodeArgs)
	}
	return string(b), nil
}

// check refuses a node over the per-node limits, or one whose size
// would take the session, which holds used bytes, over its limit.
func (l Limits) check(n Node, args string, used int) error {
	switch {
	case len(n.Labels) > l.Labels:
		return fmt.Errorf("record %q: %d labels, more than the limit of %d per node", n.ID, len(n.Labels), l.Labels)
	case len(n.Parents) > l.Parents:
		return fmt.Errorf("record %q: %d parents, more than the limit of %d per node", n.ID, len(n.Parents), l.Parents)
	case used+nodeSize(n, args) > l.Bytes:
		return fmt.Errorf("record %q: the session's provenance would exceed its limit of %d bytes", n.ID, l.Bytes)
	}
	return nil
}

// ErrNotApplied is wrapped by the error of a [Store]'s mutation
// (ApplyCounters, RecordNode, MarkIncomplete) when the store knows that it
// wrote nothing: it refused, or could not send the call. Without it, the
// mutation is not confirmed: it may have been applied (a store's answer
// lost on the way), and a caller that applies it again may count it twice.
var ErrNotApplied = errors.New("not applied")

// NotApplied returns err (nil when err is nil), with its text, marked as
// known not to have been applied: errors.Is(NotApplied(err),
// ErrNotApplied).
func NotApplied(err error) error {
	if err == nil {
		return nil
	}
	return notApplied{err}
}

type notApplied struct{ error }

func (e notApplied) Unwrap() []error { return []error{e.error, ErrNotApplied} }

// MemStore is the in-process store of one session: the default. Its
// counters live in fixed slots (the rule slots of the compilation set that
// first updates them), so that reading and updating them allocates nothing.
type MemStore struct {
	mu sync.Mutex
	// ids[slot] is the rule whose counters vals[2*slot], vals[2*slot+1]
	// are; a key whose rule does not match its slot (a session shared by
	// two compilation sets) falls back to other.
	ids   []string
	vals  []int64
	other map[otherKey]int64
	rec   record
	g     graph
	// session is the key of the one session the store keeps, bound at
	// its first call.
	session string
	bound   bool
}

type otherKey struct {
	rule string
	c    Counter
}

// NewMemStore returns an empty in-process store holding at most nodeLimit
// provenance nodes (0: [DefaultNodeLimit]), with the other default
// [Limits].
func NewMemStore(nodeLimit int) *MemStore {
	return NewMemStoreLimits(Limits{Nodes: nodeLimit})
}

// NewMemStoreLimits returns an empty in-process store whose provenance
// graph is bounded by lim (zero fields: the defaults).
func NewMemStoreLimits(lim Limits) *MemStore {
	return &MemStore{g: graph{lim: lim.withDefaults()}}
}

func (m *MemStore) slot(k CounterKey, grow bool) (int, bool) {
	s := int(k.Slot)
	if s < 0 {
		return 0, false
	}
	if s < len(m.ids) {
		if m.ids[s] == k.Rule {
			return s, true
		}
		if m.ids[s] != "" {
			return 0, false
		}
	} else if !grow {
		return 0, false
	}
	if s >= len(m.ids) {
		m.ids = append(m.ids, make([]string, s+1-len(m.ids))...)
		m.vals = append(m.vals, make([]int64, 2*len(m.ids)-len(m.vals))...)
	}
	m.ids[s] = k.Rule
	return s, true
}

// Read implements [Store].
func (m *MemStore) Read(_ context.Context, session string, s *Snapshot) error {
	m.mu.Lock()
	if err := m.own(session); err != nil {
		m.mu.Unlock()
		return err
	}
	for i, k := range s.Keys {
		if sl, ok := m.slot(k, false); ok {
			s.Counters[i] = m.vals[2*sl+int(k.Counter&1)]
		} else {
			s.Counters[i] = m.other[otherKey{k.Rule, k.Counter}]
		}
	}
	if s.History != nil {
		m.rec.read(&s.Query, s.History)
	}
	m.mu.Unlock()
	return nil
}

// Apply implements [Store].
func (m *MemStore) Apply(_ context.Context, session string, u *Update) error {
	m.mu.Lock()
	if err := m.own(session); err != nil {
		m.mu.Unlock()
		return NotApplied(err)
	}
	for i := range u.Calls {
		m.rec.apply(&u.Calls[i])
	}
	for _, u := range u.Counters {
		k := u.Key
		if s, ok := m.slot(k, true); ok {
			if u.Reset {
				m.vals[2*s+int(k.Counter&1)] = 0
			} else {
				m.vals[2*s+int(k.Counter&1)]++
			}
			continue
		}
		if m.other == nil {
			m.other = map[otherKey]int64{}
		}
		if u.Reset {
			delete(m.other, otherKey{k.Rule, k.Counter})
		} else {
			m.other[otherKey{k.Rule, k.Counter}]++
		}
	}
	m.mu.Unlock()
	return nil
}

// RecordNode implements [Store].
func (m *MemStore) RecordNode(_ context.Context, session string, n Node) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.own(session); err != nil {
		return NotApplied(err)
	}
	return NotApplied(m.g.record(n)) // a refusal: nothing recorded
}

// MarkIncomplete implements [Store].
func (m *MemStore) MarkIncomplete(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.own(session); err != nil {
		return NotApplied(err)
	}
	m.g.incomplete = true
	return nil
}

// Scope implements [Store]. Ancestry is walked without recursion, and
// allocates nothing once the store's and sc's buffers have grown.
func (m *MemStore) Scope(_ context.Context, session string, inputs []string, sc *Scope) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.own(session); err != nil {
		return err
	}
	return m.g.scope(inputs, sc)
}

// own binds the store to the first session key it serves and refuses any
// other (a MemStore keeps one session): two sessions given one MemStore,
// or one id in two tenants (spec 5.11), never share state in silence.
func (m *MemStore) own(session string) error {
	if !m.bound {
		m.session, m.bound = session, true
		return nil
	}
	if session != m.session {
		return errMemStoreShared
	}
	return nil
}

// errMemStoreShared is the error of a MemStore used for a second session.
var errMemStoreShared = errors.New("a MemStore keeps one session: this one belongs to another session (or tenant); give each session its own, runtime.NewSession does")

// graph is a provenance graph: nodes in recording order, parents before
// children, so it has no cycles. Its strings (tools, origins, tiers,
// labels) are interned when a node is recorded, so that a walk collects
// each fact's distinct values by number and sorts only those.
type graph struct {
	nodes      []pnode
	byID       map[string]int32
	incomplete bool
	lim        Limits
	bytes      int // the NodeSize of the nodes recorded
	strs       []string
	strID      map[string]int32
	// Walk buffers: mark[i] == gen when node i was visited in this walk;
	// seen[f][s] == gen when string s is already among fact f's values.
	mark  []uint32
	gen   uint32
	stack []int32
	// visited are the nodes of a walk that lists them (Scope.WantNodes).
	visited []int32
	seen    [4][]uint32
	found   [4][]int32
}

// The four provenance facts, as indexes into graph.seen and graph.found.
const (
	factTools = iota
	factOrigins
	factTiers
	factLabels
)

// pnode is a recorded node; a string is an index into graph.strs, -1 for
// none (an empty tool, origin or tier, which the facts leave out).
type pnode struct {
	kind               NodeKind
	tool, origin, tier int32
	labels             []int32
	parents            []int32
	id, args           string // the node's id; its Args' canonical JSON
}

func (g *graph) intern(s string) int32 {
	if i, ok := g.strID[s]; ok {
		return i
	}
	if g.strID == nil {
		g.strID = map[string]int32{}
	}
	i := int32(len(g.strs))
	g.strs = append(g.strs, s)
	g.strID[s] = i
	return i
}

// newStrings counts the distinct strings of n that the graph would intern
// and does not hold yet.
func (g *graph) newStrings(n Node) int {
	fresh := 0
	var seen map[string]bool
	count := func(s string) {
		if _, ok := g.strID[s]; ok || seen[s] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[s] = true
		fresh++
	}
	if n.Kind == ToolResult && n.Tool != "" {
		count(n.Tool)
	}
	for _, s := range [...]string{n.Origin, n.TrustTier} {
		if s != "" {
			count(s)
		}
	}
	for _, l := range n.Labels {
		count(l)
	}
	return fresh
}

// internSome interns s, or returns -1 for the empty string.
func (g *graph) internSome(s string) int32 {
	if s == "" {
		return -1
	}
	return g.intern(s)
}

func (g *graph) record(n Node) error {
	switch {
	case n.ID == "":
		return errors.New("record: a node needs an id")
	case n.Kind != Message && n.Kind != ToolResult:
		return fmt.Errorf("record %q: unknown node kind %d", n.ID, n.Kind)
	case len(g.nodes) >= g.lim.Nodes:
		return fmt.Errorf("record %q: the session holds its limit of %d nodes", n.ID, g.lim.Nodes)
	}
	args, err := NodeArgsJSON(n)
	if err != nil {
		return err
	}
	if err := g.lim.check(n, args, g.bytes); err != nil {
		return err
	}
	if fresh := g.newStrings(n); len(g.strs)+fresh > g.lim.Strings {
		return fmt.Errorf("record %q: the session's provenance would hold more than its limit of %d distinct tools, origins, trust tiers and labels", n.ID, g.lim.Strings)
	}
	if _, dup := g.byID[n.ID]; dup {
		return fmt.Errorf("record %q: a node with this id is already recorded", n.ID)
	}
	parents := make([]int32, 0, len(n.Parents))
	for _, id := range n.Parents {
		i, ok := g.byID[id]
		if !ok {
			return fmt.Errorf("record %q: parent %q is not recorded (parents are recorded before their children)", n.ID, id)
		}
		parents = append(parents, i)
	}
	p := pnode{kind: n.Kind, tool: -1, origin: g.internSome(n.Origin), tier: g.internSome(n.TrustTier), parents: parents, id: n.ID, args: args}
	if n.Kind == ToolResult {
		p.tool = g.internSome(n.Tool) // a message's tool is no tool result's
	}
	if len(n.Labels) > 0 {
		p.labels = make([]int32, len(n.Labels))
		for i, l := range n.Labels {
			p.labels[i] = g.intern(l) // every label, the empty one too
		}
	}
	if g.byID == nil {
		g.byID = map[string]int32{}
	}
	g.byID[n.ID] = int32(len(g.nodes))
	g.nodes = append(g.nodes, p)
	g.bytes += nodeSize(n, args)
	return nil
}

// add adds string s to fact f's values of this walk, once.
func (g *graph) add(f int, s int32) {
	if s >= 0 && g.seen[f][s] != g.gen {
		g.seen[f][s] = g.gen
		g.found[f] = append(g.found[f], s)
	}
}

func (g *graph) scope(inputs []string, sc *Scope) error {
	sc.Tools, sc.Origins, sc.TrustTiers, sc.Labels = sc.Tools[:0], sc.Origins[:0], sc.TrustTiers[:0], sc.Labels[:0]
	sc.Nodes = sc.Nodes[:0]
	g.visited = g.visited[:0]
	if g.incomplete {
		return fmt.Errorf("%w: the session is marked incomplete", ErrUnknownProvenance)
	}
	if len(g.mark) < len(g.nodes) {
		g.mark = append(g.mark, make([]uint32, len(g.nodes)-len(g.mark))...)
	}
	for f := range g.seen {
		if len(g.seen[f]) < len(g.strs) {
			g.seen[f] = append(g.seen[f], make([]uint32, len(g.strs)-len(g.seen[f]))...)
		}
		g.found[f] = g.found[f][:0]
	}
	if g.gen++; g.gen == 0 {
		clear(g.mark)
		for f := range g.seen {
			clear(g.seen[f])
		}
		g.gen = 1
	}
	g.stack = g.stack[:0]
	for _, id := range inputs {
		i, ok := g.byID[id]
		if !ok {
			return fmt.Errorf("%w: input %q is not recorded", ErrUnknownProvenance, id)
		}
		if g.mark[i] != g.gen {
			g.mark[i] = g.gen
			g.stack = append(g.stack, i)
		}
	}
	for len(g.stack) > 0 {
		i := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		if sc.WantNodes {
			g.visited = append(g.visited, i)
		}
		n := &g.nodes[i]
		g.add(factTools, n.tool)
		g.add(factOrigins, n.origin)
		g.add(factTiers, n.tier)
		for _, l := range n.labels {
			g.add(factLabels, l)
		}
		for _, p := range n.parents {
			if g.mark[p] != g.gen {
				g.mark[p] = g.gen
				g.stack = append(g.stack, p)
			}
		}
	}
	sc.Tools = g.sorted(sc.Tools, factTools)
	sc.Origins = g.sorted(sc.Origins, factOrigins)
	sc.TrustTiers = g.sorted(sc.TrustTiers, factTiers)
	sc.Labels = g.sorted(sc.Labels, factLabels)
	if sc.WantNodes {
		g.scopeNodes(inputs, sc)
	}
	return nil
}

// scopeNodes lists the nodes of the walk just done (g.visited): the
// inputs first, in the order given and once each, then the ancestors in
// recording order.
func (g *graph) scopeNodes(inputs []string, sc *Scope) {
	slices.Sort(g.visited)
	isInput := map[int32]bool{}
	view := func(i int32, input bool) ScopeNode {
		n := &g.nodes[i]
		v := ScopeNode{ID: n.id, Kind: n.kind, Input: input, ArgsJSON: n.args}
		str := func(s int32) string {
			if s < 0 {
				return ""
			}
			return g.strs[s]
		}
		v.Tool, v.Origin, v.TrustTier = str(n.tool), str(n.origin), str(n.tier)
		v.Labels = make([]string, len(n.labels))
		for j, l := range n.labels {
			v.Labels[j] = g.strs[l]
		}
		return v
	}
	for _, id := range inputs {
		i := g.byID[id]
		if !isInput[i] {
			isInput[i] = true
			sc.Nodes = append(sc.Nodes, view(i, true))
		}
	}
	for _, i := range g.visited {
		if !isInput[i] {
			sc.Nodes = append(sc.Nodes, view(i, false))
		}
	}
}

// sorted appends fact f's values of this walk to dst, in byte order
// (distinct already).
func (g *graph) sorted(dst []string, f int) []string {
	for _, s := range g.found[f] {
		dst = append(dst, g.strs[s])
	}
	slices.Sort(dst)
	return dst
}
