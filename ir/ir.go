// Package ir is oarc's intermediate representation: a pack of rules whose
// conditions are typed expression trees, resolved down to the operation and
// the static types of every operand. The compiler produces it from checked
// CEL, complete (counter slots, validator slots, detector facts, the Go field
// path of every fact); codegen turns it into Go without looking anything up
// elsewhere. It is plain data: every node can be walked ([Walk]) and printed
// ([Print]), and tests compare printed IR.
package ir

// Pos is a position in a rule file.
type Pos struct {
	File      string
	Line, Col int
}

// Set is a compilation set: the packs compiled together into one Go
// package (spec section 1), with one catalog and one evaluation order.
type Set struct {
	// Packs are the packs of the set, in the order they were given.
	Packs []PackInfo
	// Catalog is the catalog the rules were checked against.
	Catalog *Catalog
	// Rules in evaluation order: kind rank, then id. A rule's index here
	// is its counter slot.
	Rules []*Rule
	// Anchors that have rules or deny by default, sorted by id.
	Anchors []*Anchor
	// Validators are the detector ids the rules name, sorted.
	Validators []string
	// Digest identifies the rule sources of the set (spec 10): sha256:...
	Digest string
	// Times says that some rule reads the calls' times (calls_within,
	// tool_calls_within, spec 5.13): the record then keeps them.
	Times bool
	// Record says that some rule reads a session fact the engine derives
	// from the record of tool calls (spec 5.10: repeat_count,
	// recent_tool_names, same_code_reject_run, code_reject_total, or a
	// flow): the session keeps the record, and each tool.pre_invoke
	// occurrence is recorded. A set that reads none records nothing.
	Record bool
	// Bindings are the result bindings of the packs (spec 11), in pack
	// order: the MCP guard validates results against them.
	Bindings []Binding
}

// Binding is a result binding (spec 11): results of tool Tool of server
// Server ("" matches any) are validated against the JSON Schema Schema,
// the file Path of pack Pack.
type Binding struct {
	Pack, Server, Tool, Path string
	Schema                   string
}

// PackInfo describes one pack of a set.
type PackInfo struct {
	Name   string
	Origin string
	// Sources are its files (rule files, pack.yaml), relative to the pack,
	// for the generated header.
	Sources []string
}

// Name is the set's name: its packs' names joined with "+".
func (s *Set) Name() string {
	name := ""
	for i, p := range s.Packs {
		if i > 0 {
			name += "+"
		}
		name += p.Name
	}
	return name
}

// Catalog describes a host catalog (spec section 9) as generated code sees
// it: the anchors, and the facts and functions with their Go names.
type Catalog struct {
	// Host is the namespace of host facts and functions (lycaon).
	Host string
	// Fingerprint is a short hash of the catalog data: generated code
	// refers to it so that code compiled against another catalog fails to
	// build.
	Fingerprint string
	// GoPackage is the import path of the generated catalog package, and
	// GoName its package name.
	GoPackage, GoName string
	// HostField is the field of the facts struct holding the host facts.
	HostField string
	Anchors   []CatalogAnchor
	Facts     []CatalogFact
	Functions []CatalogFunction
}

// CatalogAnchor is an anchor of a catalog.
type CatalogAnchor struct {
	ID, GoName, Title string
	Planes            []string
}

// CatalogFact is a fact of a catalog.
type CatalogFact struct {
	Name        string // CEL name
	Type        *Type
	Tier        string // core, standard, oarc, host
	Profile     string
	Field       []string // Go field path in the facts struct; nil for derived facts
	Description string
	// Kept is the engine-kept fact it is (spec 5.10): not a field of the
	// facts struct.
	Kept Kept
}

// CatalogFunction is an observation function of a catalog.
type CatalogFunction struct {
	Name        string // CEL name
	Params      []*Type
	Result      *Type
	Tier        string
	Profile     string
	Builtin     Builtin
	Provider    string // Go field of the providers struct; "" for built-ins
	Description string
}

// Deny is a deny-by-default code of an anchor (spec 5.8).
type Deny struct {
	Code    string
	Pack    string
	Monitor bool
	Copy    Copy
}

// ToolPreInvoke is the anchor whose occurrences the engine records (spec
// 5.10): a proposed tool call.
const ToolPreInvoke = "tool.pre_invoke"

// ContextEntry is one entry of the rendered context (spec 10): a titled
// rule that tells the agent what to do, or an enforced deny-by-default
// code with a title (Pinned: rendered first, never ranked).
type ContextEntry struct {
	ID                      string
	Title, Fix, Instead     string
	Monitor, Global, Pinned bool
	Tags, Text              []string
}

// Context lists what the rendered context of s may show (spec 10): first
// each enforced deny-by-default code with a title, once, in pack order,
// with its pack's copy; then the titled rules in evaluation order, except
// allow and transform rules, which tell the agent nothing it must do.
func Context(s *Set) []ContextEntry {
	var out []ContextEntry
	seen := map[string]bool{}
	for _, a := range s.Anchors {
		d := a.Deny
		if d == nil || d.Monitor || d.Copy.Title == "" || seen[d.Code] {
			continue
		}
		seen[d.Code] = true
		out = append(out, ContextEntry{ID: d.Code, Title: d.Copy.Title, Fix: d.Copy.Fix, Instead: d.Copy.Instead, Pinned: true})
	}
	for _, r := range s.Rules {
		if r.Copy.Title == "" || r.Effect == EffectAllow || r.Effect == EffectTransform {
			continue
		}
		out = append(out, ContextEntry{ID: r.ID, Title: r.Copy.Title, Fix: r.Copy.Fix, Instead: r.Copy.Instead,
			Monitor: r.Monitor, Global: len(r.Selector) == 0, Tags: r.Tags, Text: r.Text})
	}
	return out
}

// Anchor is the static dispatch entry of one anchor.
type Anchor struct {
	ID    string
	Rules []int // indexes into Set.Rules, in evaluation order
	// Deny is the anchor's deny-by-default code, nil if none.
	Deny *Deny
}

// RuleKind is a rule's kind; kinds order evaluation.
type RuleKind uint8

// The rule kinds, in evaluation order.
const (
	KindSchema RuleKind = iota
	KindPolicy
	KindInvariant
	KindDetector
)

var ruleKindNames = [...]string{"schema", "policy", "invariant", "detector"}

func (k RuleKind) String() string { return nameOf(ruleKindNames[:], int(k)) }

// ParseRuleKind returns the kind with the given OAR name.
func ParseRuleKind(s string) (RuleKind, bool) {
	i, ok := indexOf(ruleKindNames[:], s)
	return RuleKind(i), ok
}

// Effect is what a firing rule does. Effects are ordered by precedence (the
// runtime's order): a decision is the highest effect that applied.
type Effect uint8

// The effects, lowest precedence first.
const (
	EffectAllow Effect = iota
	EffectNudge
	EffectWarn
	EffectTransform
	// EffectAsk holds the action for a person's approval (spec 5.12): above
	// every effect that lets it go ahead, below a block, which still wins.
	EffectAsk
	EffectBlock
)

var effectNames = [...]string{"allow", "nudge", "warn", "transform", "ask", "block"}

func (e Effect) String() string { return nameOf(effectNames[:], int(e)) }

// ParseEffect returns the effect with the given OAR name.
func ParseEffect(s string) (Effect, bool) {
	i, ok := indexOf(effectNames[:], s)
	return Effect(i), ok
}

// Counter is one of a rule's two session counters.
type Counter uint8

// The counters.
const (
	Fire Counter = iota
	Breaker
)

var counterNames = [...]string{"fire", "breaker"}

func (c Counter) String() string { return nameOf(counterNames[:], int(c)) }

// ParseCounter returns the counter with the given OAR name.
func ParseCounter(s string) (Counter, bool) {
	i, ok := indexOf(counterNames[:], s)
	return Counter(i), ok
}

func nameOf(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "?"
}

func indexOf(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}

// Rule is one compiled rule.
type Rule struct {
	Index        int
	ID           string
	Pack         string // the pack it came from
	Kind         RuleKind
	Anchor       string
	Effect       Effect
	Monitor      bool
	FailOpen     bool
	Profiles     []string
	Selector     []*Clause
	Flow         *Flow
	Detector     string
	DetectorSlot int  // -1 when the rule has no detector
	When         Expr // nil means true
	WhenSource   string
	Copy         Copy
	// Tags and Text are the rule's tokens for rendering it into a prompt
	// (spec 10): the casefolded word tokens of its selector values and id,
	// and of its copy; computed at compile time.
	Tags, Text []string
	Increment  []Counter
	Reset      []CounterRef
	// Stored says which of the rule's counters (by Counter) some rule of
	// the set reads: only those are kept in the session's store.
	Stored      [2]bool
	Redact      []string
	Replacement string
	Pos         Pos
}

// Clause is one selector clause: the fact equals one of the values (for a
// list(string) fact: any element is among them).
type Clause struct {
	Fact    string // CEL name
	Profile string // the fact's profile, "" for core and host facts
	Field   []string
	Type    *Type
	Values  []any // string, int64 or bool
	// Read reads the fact as the rule's when would (a Fact with its
	// source, or the rule's own CounterRead for fire_count and
	// breaker_count), with the host's values of detector facts: a
	// selector is evaluated before the validator.
	Read Expr
}

// WalkRule walks every expression of r: its selector's fact reads, then
// its when.
func WalkRule(r *Rule, fn func(Expr) bool) {
	for _, c := range r.Selector {
		Walk(c.Read, fn)
	}
	Walk(r.When, fn)
}

// Flow is a rule's flow matcher over the host's recent tool names.
type Flow struct {
	Steps      [][]string
	Within     int // 0: unbounded
	Contiguous bool
	// Names is the field path of the list(string) fact the flow reads.
	Names []string
}

// Copy is a rule's human text.
type Copy struct {
	Title, What, Cause, Why, Fix, Instead string
}

// CounterRef names a counter of a rule.
type CounterRef struct {
	Rule    string
	Slot    int
	Counter Counter
}

// Expr is a typed expression node.
type Expr interface {
	// Type is the static type of the node's value.
	Type() *Type
	// Offset is the node's position in the `when` source, in code points.
	Offset() int
	isExpr()
}

// Node holds what every expression has.
type Node struct {
	T   *Type
	Off int
}

// Type implements Expr.
func (n *Node) Type() *Type { return n.T }

// Offset implements Expr.
func (n *Node) Offset() int { return n.Off }
func (n *Node) isExpr()     {}

// Const is a literal: nil (null), bool, int64, uint64, float64, string,
// or a TypeName (a type identifier such as int).
type Const struct {
	Node
	Value any
}

// TypeName is the value of a type identifier.
type TypeName string

// FactSource says where a fact's value comes from.
type FactSource uint8

// The sources of facts.
const (
	// FromFacts reads the occurrence's facts at Field.
	FromFacts FactSource = iota
	// FromDetector reads the rule's validator's value when it supplied
	// one, else the occurrence's facts at Field (detector facts of a
	// detector rule, spec 5.5).
	FromDetector
	// FromAnchor is the core fact anchor: the occurrence's anchor id.
	FromAnchor
	// FromProvenance is one of oarc's provenance facts (spec 5.7), derived
	// from the session's graph; Field names the list of runtime.Scope.
	FromProvenance
	// FromKept is a session fact the engine keeps (spec 5.10); Fact.Kept
	// says which.
	FromKept
	// FromNodes is provenance_nodes (spec 5.11): every node in the scope.
	FromNodes
	// FromBatch is batch_tools (spec 5.11): the tools of the check.
	FromBatch
	// FromTenant is tenant (spec 5.11): the session's tenant.
	FromTenant
	// FromContent is content (spec 5.13): the occurrence's content.
	FromContent
)

// Kept names a session fact the engine keeps (spec 5.10).
type Kept uint8

// The engine-kept facts.
const (
	NotKept Kept = iota
	KeptFingerprint
	KeptRepeatCount
	KeptRecentToolNames
	KeptSameCodeRejectRun
	KeptCodeRejectTotal
)

// FromRecord reports whether k is derived from the session's record of
// tool calls (all but the fingerprint, which is of the occurrence's own
// arguments).
func (k Kept) FromRecord() bool { return k != NotKept && k != KeptFingerprint }

// Fact reads a fact.
type Fact struct {
	Node
	Name   string // CEL name (lycaon.x for host facts)
	Source FactSource
	// Field is the Go field path of the fact in the facts struct, e.g.
	// [Lycaon ToolIsState]; empty for FromAnchor and FromKept.
	Field []string
	// Kept is the engine-kept fact of a FromKept read.
	Kept Kept
}

// CounterRead reads a session counter from the occurrence's snapshot.
type CounterRead struct {
	Node
	Rule    string
	Slot    int
	Counter Counter
}

// Var reads a comprehension variable.
type Var struct {
	Node
	Name string
}

// Call applies an operation; codegen picks the implementation from the
// static types of Args.
type Call struct {
	Node
	Op   Op
	Args []Expr
	// Guards, when the checker resolved the call to a single overload, are
	// that overload's declared parameter types: cel-go then rejects (no
	// such overload) an argument whose dynamic type does not fit, even if
	// another overload would take it. Nil means the function dispatches on
	// the arguments' dynamic types among all its overloads.
	Guards []*Type
}

// Builtin is an observation function the runtime answers itself.
type Builtin uint8

// The built-in observation functions (spec section 3).
const (
	NotBuiltin Builtin = iota
	ToolArgString
	ToolArgInt
	ToolArgBool
	// URLHost, URLScheme, URLPort and URLPath are oarc's URL functions
	// (spec 5.11): their argument is the URL, not a tool argument.
	URLHost
	URLScheme
	URLPort
	URLPath
	// CallsWithin and ToolCallsWithin count the session's recent calls,
	// LocalHour and LocalWeekday read the occurrence's time (spec 5.13).
	CallsWithin
	ToolCallsWithin
	LocalHour
	LocalWeekday
)

var builtinNames = [...]string{"", "tool_arg_string", "tool_arg_int", "tool_arg_bool", "url_host", "url_scheme", "url_port", "url_path",
	"calls_within", "tool_calls_within", "local_hour", "local_weekday"}

// ReadsTime reports whether the built-in reads the occurrence's time.
func (b Builtin) ReadsTime() bool { return b >= CallsWithin && b <= LocalWeekday }

// ReadsCallTimes reports whether the built-in reads the calls' times of
// the session's record.
func (b Builtin) ReadsCallTimes() bool { return b == CallsWithin || b == ToolCallsWithin }

// ReadsToolArgs reports whether the built-in reads the tool arguments
// (tool_arg_*), rather than only its arguments.
func (b Builtin) ReadsToolArgs() bool {
	return b == ToolArgString || b == ToolArgInt || b == ToolArgBool
}

func (b Builtin) String() string { return nameOf(builtinNames[:], int(b)) }

// BuiltinByName returns the built-in with the given CEL name.
func BuiltinByName(s string) (Builtin, bool) {
	i, ok := indexOf(builtinNames[1:], s)
	return Builtin(i + 1), ok
}

// Observe calls an observation function of the catalog: a built-in over
// the tool arguments, or one a host provider answers.
type Observe struct {
	Node
	Func    string // CEL name
	Builtin Builtin
	// ToolArgs is the field path of tool_args, for a built-in.
	ToolArgs []string
	// Provider is the Go field of the providers struct answering the
	// function, when it is not a built-in.
	Provider string
	// Params are the function's declared parameter types; Args its
	// arguments.
	Params []*Type
	Args   []Expr
}

// And is CEL's commutative, error-absorbing conjunction.
type And struct {
	Node
	Terms []Expr
}

// Or is CEL's commutative, error-absorbing disjunction.
type Or struct {
	Node
	Terms []Expr
}

// Cond is c ? then : else.
type Cond struct {
	Node
	C, Then, Else Expr
}

// Select is x.field on a map (or dyn); with Test it is has(x.field).
type Select struct {
	Node
	X     Expr
	Field string
	Test  bool
}

// Index is x[i].
type Index struct {
	Node
	X, I Expr
}

// List is a list literal.
type List struct {
	Node
	Elems []Expr
}

// Map is a map literal.
type Map struct {
	Node
	Keys, Values []Expr
}

// Macro is one of CEL's comprehension macros.
type Macro uint8

// The macros.
const (
	All Macro = iota
	Exists
	ExistsOne
	Filter
	MapMacro
)

var macroNames = [...]string{"all", "exists", "exists_one", "filter", "map"}

func (m Macro) String() string { return nameOf(macroNames[:], int(m)) }

// Comprehension is one of CEL's macros over a list or map.
type Comprehension struct {
	Node
	Macro Macro
	Range Expr
	Var   string
	// Pred is the predicate of all/exists/exists_one/filter and the
	// optional filter of map; Body is the transform of map.
	Pred Expr
	Body Expr
}
