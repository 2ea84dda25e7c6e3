// Package runtime is what an agent host uses of oarc at run time, whatever
// its catalog: the [Decision] an evaluation fills, the [Effect]s, the
// [Session] that keeps counters and provenance across occurrences (in the
// process, or in a [Store] shared by replicas), the [Detection] a validator
// answers, the supplied [ProfileSet], and the options of a bound evaluator.
//
// The rest of the host API is generated for the host's catalog and packs:
// the catalog package holds the facts, the occurrence, the anchors (typed
// constants) and the providers and validators of an Env; the package of a
// compilation set holds New, which binds an Env once, and the Evaluator.
// What only generated code uses lives in runtime/impl.
//
// Evaluating allocates nothing on the common path: a Decision keeps its
// buffers across calls (use one per goroutine), and a Session keeps its
// counters in fixed slots.
package runtime

// Effect is what a firing rule does, and what a decision is. Effects are
// ordered by precedence: a decision is the highest effect that applied.
type Effect uint8

// The effects, lowest precedence first.
const (
	Allow Effect = iota
	Nudge
	Warn
	Transform
	// Ask holds the action until a person approves it (spec 5.12): the
	// host puts [Decision.Question] to a person and goes ahead only on an
	// explicit yes; anything else is a block with [Decision.Rejection]. A
	// block still wins over it.
	Ask
	Block
)

var effectNames = [...]string{"allow", "nudge", "warn", "transform", "ask", "block"}

func (e Effect) String() string {
	if int(e) < len(effectNames) {
		return effectNames[e]
	}
	return "effect?"
}

// ParseEffect returns the effect with the given OAR name.
func ParseEffect(s string) (Effect, bool) {
	for i, n := range effectNames {
		if n == s {
			return Effect(i), true
		}
	}
	return 0, false
}

// Kind is a rule's kind; kinds order evaluation.
type Kind uint8

// The rule kinds in evaluation order.
const (
	KindSchema Kind = iota
	KindPolicy
	KindInvariant
	KindDetector
)

var kindNames = [...]string{"schema", "policy", "invariant", "detector"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Counter names one of a rule's two session counters.
type Counter uint8

// The per-rule counters.
const (
	Fire Counter = iota
	Breaker
)

func (c Counter) String() string {
	if c == Breaker {
		return "breaker"
	}
	return "fire"
}

// Copy is a rule's human text; generated code holds it as constants.
type Copy struct {
	Title, What, Cause, Why, Fix, Instead string
}

// Rule describes a compiled rule. Generated code declares one per rule;
// nothing in it changes at run time.
type Rule struct {
	ID       string
	Pack     string // the pack the rule came from
	Kind     Kind
	Anchor   string
	Effect   Effect
	Monitor  bool // enforcement: monitor
	FailOpen bool // on_error: fail_open
	Copy     Copy
	// DenyByDefault says that this is a deny-by-default code (spec 5.8),
	// not a rule: it blocks what no allow rule allowed.
	DenyByDefault bool
}

// Detection is a validator's answer.
type Detection struct {
	Hit   bool
	Facts DetectorFacts
}

// DetectorFacts are the facts a validator may supply; those supplied
// replace the host's values for the rules that consulted the validator. A
// fact with a value (a non-empty list, a score other than 0) is supplied;
// Has says which others are (an empty list, a zero score), and naming in
// Has a fact that has a value changes nothing. A validator that fills
// SecretMatches and forgets Has is not ignored: its spans are redacted.
type DetectorFacts struct {
	Has                  DetectorFactSet
	PromptInjectionScore float64
	JailbreakScore       float64
	PiiEntities          []map[string]any
	SecretMatches        []map[string]any
}

// Supplied is the set of facts f supplies: Has, and every fact that has
// a value. Engines read a validator's answer through it.
func (f *DetectorFacts) Supplied() DetectorFactSet {
	s := f.Has
	if f.PromptInjectionScore != 0 {
		s |= HasPromptInjectionScore
	}
	if f.JailbreakScore != 0 {
		s |= HasJailbreakScore
	}
	if len(f.PiiEntities) > 0 {
		s |= HasPiiEntities
	}
	if len(f.SecretMatches) > 0 {
		s |= HasSecretMatches
	}
	return s
}

// DetectorFactSet says which detector facts a [Detection] carries.
type DetectorFactSet uint8

// The detector facts.
const (
	HasPromptInjectionScore DetectorFactSet = 1 << iota
	HasJailbreakScore
	HasPiiEntities
	HasSecretMatches
)

// ProfileSet is a set of fact profiles (spec section 3). The zero value
// means the host did not say which profiles it supplied, so every profile
// counts as supplied; NoProfiles says explicitly that none was.
type ProfileSet uint32

// The profiles.
const (
	ProfileSession ProfileSet = 1 << iota
	ProfileTool
	ProfileContentSafety
	ProfileContentProvenance
	ProfileFilesystem
	ProfileMcp
	ProfileProvenance // oarc's (spec 5.7)
	// NoProfiles is the explicit empty set.
	NoProfiles ProfileSet = 1 << 31
)

// ProfileNames lists the profile names in bit order.
var ProfileNames = [...]string{"session", "tool", "content-safety", "content-provenance", "filesystem", "mcp", "provenance"}

// ProfileByName returns the profile bit for a profile name, or 0.
func ProfileByName(name string) ProfileSet {
	for i, n := range ProfileNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// Supplied reports whether every profile in req was supplied.
func (p ProfileSet) Supplied(req ProfileSet) bool {
	return p == 0 || p&req == req
}

// Reads is what the rules of one anchor of a compilation set read (the
// generated package's Reads function): a host that computes facts itself
// can fill only those. Every list is sorted; facts and functions by CEL
// name.
type Reads struct {
	// Facts are the facts the host fills that some rule reads (in a
	// selector, a when, or as a validator's fallback); the tool_arg_*
	// functions read tool_args, which is listed.
	Facts []string
	// Kept are the session facts the engine keeps that some rule reads
	// (spec 5.10): the host does not fill them.
	Kept []string
	// Functions are the provider-backed functions some rule calls.
	Functions []string
	// Validators are the validators some detector rule consults.
	Validators []string
	// Counters: some rule reads a session counter; Provenance: some rule
	// reads a provenance fact.
	Counters, Provenance bool
	// Time: some rule reads the occurrence's time (calls_within,
	// tool_calls_within, local_hour, local_weekday; spec 5.13), which is
	// Occurrence.Time, or the runtime's clock when it is zero. CallTimes:
	// some rule reads the session's record of its calls' times
	// (calls_within, tool_calls_within), kept only in the Session given to
	// every evaluation (with none, they count the current call alone).
	Time, CallTimes bool
}
