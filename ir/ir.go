// Package ir is oarc's intermediate representation: a pack of rules whose
// conditions are typed expression trees, resolved down to the operation and
// the static types of every operand. The compiler produces it from checked
// CEL; codegen turns it into Go. It is plain data: every node can be walked
// ([Walk]) and printed ([Print]), and tests compare printed IR.
package ir

// Pos is a position in a rule file.
type Pos struct {
	File      string
	Line, Col int
}

// Pack is a compiled pack.
type Pack struct {
	Name   string
	Origin string
	// Rules in evaluation order within each anchor: kind rank, then id. A
	// rule's index here is its counter slot.
	Rules []*Rule
	// Anchors that have rules, sorted by id.
	Anchors []*Anchor
	// Validators are the detector ids the rules name, sorted; a rule's
	// DetectorSlot indexes this list.
	Validators []string
	// Sources are the rule files, for the generated header.
	Sources []string
}

// Anchor is the static dispatch entry of one anchor.
type Anchor struct {
	ID    string
	Rules []int // indexes into Pack.Rules, in evaluation order
}

// Rule is one compiled rule.
type Rule struct {
	Index        int
	ID           string
	Kind         string // schema, policy, invariant, detector
	Anchor       string
	Effect       string // block, warn, nudge, allow, transform
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
	Increment    []string // counter names
	Reset        []CounterRef
	Redact       []string
	Replacement  string
	Pos          Pos
}

// Clause is one selector clause: the fact equals one of the values (for a
// list(string) fact: any element is among them).
type Clause struct {
	Fact   string // CEL name
	Type   *Type
	Values []any // string, int64 or bool
}

// Flow is a rule's flow matcher over lycaon.recent_tool_names.
type Flow struct {
	Steps      [][]string
	Within     int // 0: unbounded
	Contiguous bool
}

// Copy is a rule's human text.
type Copy struct {
	Title, What, Cause, Why, Fix, Instead string
}

// CounterRef names a counter of a rule.
type CounterRef struct {
	Rule    string
	Slot    int
	Counter string // fire or breaker
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

// Fact reads a fact by CEL name (lycaon.x for host facts), or the core fact
// anchor. In a detector rule, a detector fact reads the validator's value
// when it supplied one.
type Fact struct {
	Node
	Name     string
	Detector bool // read through the rule's detection
}

// Counter reads a session counter from the occurrence's snapshot.
type Counter struct {
	Node
	Rule    string
	Slot    int
	Counter string // fire or breaker
}

// Var reads a comprehension variable.
type Var struct {
	Node
	Name string
}

// Call applies an operation. Op names the CEL operation independently of
// operand types (add, eq, lt, in, size, matches, lowerAscii, int, ...);
// codegen picks the implementation from the static types of Args.
type Call struct {
	Node
	Op   string
	Args []Expr
	// Guards, when the checker resolved the call to a single overload, are
	// that overload's declared parameter types: cel-go then rejects (no
	// such overload) an argument whose dynamic type does not fit, even if
	// another overload would take it. Nil means the function dispatches on
	// the arguments' dynamic types among all its overloads.
	Guards []*Type
}

// Observe calls an observation function of the catalog: a built-in
// (tool_arg_*) or a provider-backed one.
type Observe struct {
	Node
	Func     string // CEL name
	Provider bool
	Arg      Expr
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

// Comprehension is one of CEL's macros over a list or map.
type Comprehension struct {
	Node
	Macro string // all, exists, exists_one, filter, map
	Range Expr
	Var   string
	// Pred is the predicate of all/exists/exists_one/filter and the
	// optional filter of map; Body is the transform of map.
	Pred Expr
	Body Expr
}
