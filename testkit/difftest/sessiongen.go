// This file owns the session generator: random compilation sets (one to
// three packs, stock and project, every kind, every effect their origin
// and anchors allow, selectors over every selectable fact, flows,
// detectors, counters, deny by default, transforms) and random sessions
// against them, written as fixtures (spec section 8) so that what the
// session differential runs is what `oarc test` would run.
//
// Every choice is one production of a table, so that a new fact class or
// effect is one more entry: the facts a step supplies and how
// (factClasses), the values of each catalog type (typeValues), the
// conditions over a fact of each type (typeAtoms), the other conditions
// (atoms), the effects by origin and plane (effects), the rule features
// (ruleFeatures) and the step features (stepFeatures). Each production
// counts itself in Counts under its name, which the differential reports
// and the test holds to a floor.

package difftest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/wire"
)

// SessionGen generates compilation sets and sessions against them.
type SessionGen struct {
	r    *rand.Rand
	cat  *catalog.Catalog
	expr *Gen // the expression differential's generator, for deeper CEL
	// decks deal facts, anchors and functions round-robin in a shuffled
	// order, so that a run of a few hundred draws meets every one.
	decks map[string]*deck
	// Counts counts the productions used, by name.
	Counts map[string]int
	// selected and read are the facts some selector named and some
	// condition read.
	selected, read map[string]bool
	// Transforms biases the sets and sessions towards the content planes
	// (TransformBias): sets of several transform rules with different
	// replacements beside asks, deny-by-default allowlists and monitored
	// rules, and steps whose validators and hosts answer with odd span
	// facts and contents.
	Transforms bool
}

// NewSessionGen returns a generator seeded with seed.
func NewSessionGen(seed int64) *SessionGen {
	return NewSessionGenFrom(rand.New(rand.NewSource(seed)))
}

// NewSessionGenFrom returns a generator drawing from r.
func NewSessionGenFrom(r *rand.Rand) *SessionGen {
	g := &SessionGen{r: r, cat: catalog.Default(), decks: map[string]*deck{}, Counts: map[string]int{},
		selected: map[string]bool{}, read: map[string]bool{}}
	g.expr = NewGenFrom(r)
	return g
}

func (g *SessionGen) chance(n int) bool { return g.r.Intn(n) == 0 }

func (g *SessionGen) pick(l ...string) string { return l[g.r.Intn(len(l))] }

func (g *SessionGen) count(name string) { g.Counts[name]++ }

// deck deals its items in a shuffled order, reshuffling after each round.
type deck struct {
	items []string
	next  int
}

// draw deals the next item of the named deck, made of items on first use.
func (g *SessionGen) draw(name string, items func() []string) string {
	d := g.decks[name]
	if d == nil {
		d = &deck{items: items()}
		g.decks[name] = d
	}
	if d.next == 0 {
		g.r.Shuffle(len(d.items), func(i, j int) { d.items[i], d.items[j] = d.items[j], d.items[i] })
	}
	s := d.items[d.next]
	d.next = (d.next + 1) % len(d.items)
	return s
}

// The small alphabets rules and steps share, so that they meet: every
// string a rule compares with is a value a step may supply.
var (
	words = []string{"", "a", "bash", "read", "read_secret", "http_fetch", "send_email", "web", "user", "x", "é", "日本", "A b"}
	tools = []string{"bash", "read", "read_secret", "http_fetch", "send_email"}
	ints  = []int64{0, 1, 2, 3, -1, 5, 100, math.MaxInt64, math.MinInt64}
	// doubles are JSON numbers: a fixture cannot carry NaN or infinities.
	doubles      = []float64{0, 0.5, 0.93, 1, -1.5, 1e300}
	validatorIDs = []string{"v.alpha", "v.beta", "v.gamma"}
	argKeysS     = []string{"a", "b", "n", "path", "m"}
)

// GenSet is a generated compilation set.
type GenSet struct {
	Name string
	// Transforms says that the set was generated with
	// SessionGen.Transforms, and its sessions should be.
	Transforms bool
	Packs      []*GenPack
	Anchors    []string // the anchors its rules and deny_by_default use
	// mentions are the values the rules compare each fact with (by CEL
	// name): the values a step supplies most often.
	mentions map[string][]any
	// validators and providers are the validator ids and provider-backed
	// functions the rules use.
	validators map[string]bool
	providers  map[string]bool
	flows      [][][]string // the flows' sequences
	// providerArgs are the constant arguments the rules pass to
	// providers, by function.
	providerArgs map[string][]string
	// focus are the rules whose counters the others read and reset most.
	focus []*GenRule
}

// counterRule picks the rule whose counter a rule reads or resets: one of
// the set's focus more often than not.
func (g *SessionGen) counterRule(s *GenSet, rules []*GenRule) *GenRule {
	if len(s.focus) > 0 && !g.chance(3) {
		return s.focus[g.r.Intn(len(s.focus))]
	}
	return rules[g.r.Intn(len(rules))]
}

// GenPack is one pack of a generated set.
type GenPack struct {
	Name   string
	Origin string // stock or project
	Deny   *GenDeny
	Rules  []*GenRule
}

// GenDeny is a pack's deny_by_default (spec 5.8).
type GenDeny struct {
	Anchors []string
	Code    string
	Monitor bool
	Copy    map[string]string
}

// GenRule is one generated rule.
type GenRule struct {
	ID, Kind, Anchor, Effect string
	Pack                     *GenPack
	Selector                 map[string]any
	Profiles                 []string
	When                     string
	Flow                     *GenFlow
	Monitor                  bool
	OnError                  string // "", fail_open or fail_closed
	Detector                 string
	Increment                bool
	Reset                    []string
	Redact                   []string
	Replacement              *string
	Copy                     map[string]string
	// Refs are the rules it names (counter reads and resets): it cannot
	// load without them.
	Refs []string
	// CounterReads are the rules whose counters it reads (itself for
	// fire_count and breaker_count).
	CounterReads []string
	focus        bool
	// Tags are the productions it used.
	Tags []string
}

// GenFlow is a rule's flow (spec 5.4).
type GenFlow struct {
	Sequence   [][]string
	Within     int
	Contiguous bool
}

// Rules returns the rules of every pack of the set.
func (s *GenSet) Rules() []*GenRule {
	var out []*GenRule
	for _, p := range s.Packs {
		out = append(out, p.Rules...)
	}
	return out
}

func (s *GenSet) mention(fact string, v any) {
	if !slices.Contains(s.mentions[fact], v) {
		s.mentions[fact] = append(s.mentions[fact], v)
	}
}

// effectRule says which origins may use an effect and which planes its
// anchor needs (spec 2). Adding an effect is adding a row.
type effectRule struct {
	name    string
	origins []string
	planes  []string // any one of them
}

var effects = []effectRule{
	{"block", []string{"stock", "project"}, []string{"block"}},
	{"warn", []string{"stock", "project"}, []string{"block", "inform"}},
	{"nudge", []string{"stock", "project"}, []string{"block", "inform"}},
	{"allow", []string{"stock"}, []string{"block"}},
	{"transform", []string{"stock"}, []string{"transform"}},
}

// effectsFor lists the effects a rule of origin may have at anchor.
func (g *SessionGen) effectsFor(origin string, anchor *catalog.Anchor) []string {
	var out []string
	for _, e := range effects {
		if !slices.Contains(e.origins, origin) {
			continue
		}
		for _, p := range e.planes {
			if anchor.HasPlane(p) {
				out = append(out, e.name)
				break
			}
		}
	}
	return out
}

var kinds = []string{"schema", "policy", "invariant", "detector"}

// anchorClasses are the kinds of anchors a set draws from: the tool call,
// the model-IO anchors (block and transform), the other block anchors,
// the block-and-inform ones, and the inform-only ones.
var anchorClasses = []struct {
	name string
	of   func(a *catalog.Anchor) bool
}{
	{"tool", func(a *catalog.Anchor) bool { return a.ID == "tool.pre_invoke" }},
	{"content", func(a *catalog.Anchor) bool { return strings.HasPrefix(a.ID, "content.") }},
	{"block", func(a *catalog.Anchor) bool {
		return a.ID != "tool.pre_invoke" && a.HasPlane("block") && !a.HasPlane("inform") && !a.HasPlane("transform")
	}},
	{"block+inform", func(a *catalog.Anchor) bool { return a.HasPlane("block") && a.HasPlane("inform") }},
	{"inform", func(a *catalog.Anchor) bool { return len(a.Planes) == 1 && a.Planes[0] == "inform" }},
}

func (g *SessionGen) anchorOf(class int) string {
	c := anchorClasses[class]
	return g.draw("anchor:"+c.name, func() []string {
		var out []string
		for _, a := range g.cat.Anchors {
			if c.of(a) {
				out = append(out, a.ID)
			}
		}
		return out
	})
}

// Set generates a compilation set.
func (g *SessionGen) Set(name string) *GenSet {
	s := &GenSet{Name: name, mentions: map[string][]any{}, validators: map[string]bool{}, providers: map[string]bool{}, providerArgs: map[string][]string{}}
	// Two to four anchors, the tool call most often; with Transforms, a
	// content anchor (model IO: block and transform planes) first.
	if g.Transforms {
		s.Transforms = true
		s.Anchors = append(s.Anchors, g.anchorOf(1))
		g.count("bias:transforms")
	}
	for range 2 + g.r.Intn(3) {
		class := []int{0, 0, 0, 1, 1, 2, 3, 4, 4}[g.r.Intn(9)]
		if g.Transforms {
			class = []int{0, 0, 1, 1, 1, 2, 3}[g.r.Intn(7)]
		}
		if a := g.anchorOf(class); !slices.Contains(s.Anchors, a) {
			s.Anchors = append(s.Anchors, a)
			g.count("anchor:" + anchorClasses[class].name)
		}
	}
	npacks := 1 + g.r.Intn(3)
	g.count(fmt.Sprintf("set:%d packs", npacks))
	denied := map[string]bool{}
	for i := range npacks {
		p := &GenPack{Name: fmt.Sprintf("pack%c", 'a'+i), Origin: g.pick("stock", "project")}
		if g.Transforms && i == 0 {
			p.Origin = "stock" // transforms and allowlists are stock's
		}
		g.count("origin:" + p.Origin)
		if p.Origin == "stock" && (g.chance(2) || g.Transforms && i == 0) {
			p.Deny = g.deny(s, p, denied)
		}
		s.Packs = append(s.Packs, p)
	}
	// Rule skeletons first (ids, packs, anchors, effects), so that the
	// features may name any rule of the set.
	n := 3 + g.r.Intn(10)
	if g.Transforms {
		n = 6 + g.r.Intn(8)
	}
	var rules []*GenRule
	for i := range n {
		p := s.Packs[g.r.Intn(len(s.Packs))]
		if i < len(s.Packs) {
			p = s.Packs[i] // every pack has a rule
		}
		r := &GenRule{ID: fmt.Sprintf("R%02d", g.r.Intn(100)), Pack: p, Anchor: s.Anchors[g.r.Intn(len(s.Anchors))]}
		for slices.ContainsFunc(rules, func(o *GenRule) bool { return o.ID == r.ID }) {
			r.ID = fmt.Sprintf("R%02d", g.r.Intn(100))
		}
		effs := g.effectsFor(p.Origin, g.cat.Anchor(r.Anchor))
		r.Effect = effs[g.r.Intn(len(effs))]
		if slices.Contains(effs, "transform") && (g.chance(3) || g.Transforms && !g.chance(3)) {
			// The only effect that needs both a stock pack and a
			// transform plane: drawn more often than its share.
			r.Effect = "transform"
		}
		if r.Effect == "block" && (r.ID[2]%3 == 0 || g.Transforms && r.ID[2]%3 == 1) {
			// ask (spec 5.12) has block's origins and planes: a third of
			// the blocks ask instead, chosen by id without a draw, so
			// that a seed's sets stay what they were otherwise.
			r.Effect = "ask"
		}
		r.Kind = kinds[g.r.Intn(len(kinds))]
		if g.Transforms && r.Effect == "transform" && g.chance(2) {
			// Detector transforms: the validator's spans, or none when it
			// fails (a failed-closed firing of unknown spans).
			r.Kind = "detector"
		}
		p.Rules = append(p.Rules, r)
		rules = append(rules, r)
	}
	// One or two rules whose counters the others read and reset most
	// often: counters that no one reads, or that nothing changes, show
	// nothing of what a session carries.
	for range 1 + g.r.Intn(2) {
		r := rules[g.r.Intn(len(rules))]
		if !slices.Contains(s.focus, r) {
			s.focus = append(s.focus, r)
			r.focus = true
		}
	}
	for _, r := range rules {
		g.rule(s, r, rules)
	}
	for _, p := range s.Packs {
		sort.Slice(p.Rules, func(i, j int) bool { return p.Rules[i].ID < p.Rules[j].ID })
	}
	return s
}

func (g *SessionGen) deny(s *GenSet, p *GenPack, denied map[string]bool) *GenDeny {
	var free []string
	for _, a := range s.Anchors {
		if g.cat.Anchor(a).HasPlane("block") && !denied[a] {
			free = append(free, a)
		}
	}
	if len(free) == 0 {
		return nil
	}
	d := &GenDeny{Code: "DENY_" + strings.ToUpper(p.Name[len(p.Name)-1:]), Monitor: g.chance(2), Copy: g.copyText()}
	g.r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	d.Anchors = free[:1+g.r.Intn(len(free))]
	for _, a := range d.Anchors {
		denied[a] = true
	}
	if d.Monitor {
		g.count("deny:monitor")
	} else {
		g.count("deny:enforce")
	}
	return d
}

// ruleFeature is one optional part of a rule: odds in 100 that a rule
// gets it, and what it adds. Features run in order; when comes last so
// that it may read what the others chose (a detector rule's facts).
type ruleFeature struct {
	name string
	odds int
	add  func(g *SessionGen, s *GenSet, r *GenRule, rules []*GenRule, reads map[string]bool)
}

var ruleFeatures = []ruleFeature{
	{"selector", 55, (*SessionGen).selector},
	{"flow", 15, (*SessionGen).flow},
	{"monitor", 20, func(g *SessionGen, _ *GenSet, r *GenRule, _ []*GenRule, _ map[string]bool) { r.Monitor = true }},
	{"on_error", 45, func(g *SessionGen, _ *GenSet, r *GenRule, _ []*GenRule, _ map[string]bool) {
		r.OnError = g.pick("fail_open", "fail_open", "fail_closed")
		if g.Transforms && r.Effect != "warn" && r.Effect != "nudge" {
			// Failing closed is what a transform or an ask does with an
			// error that shows.
			r.OnError = g.pick("fail_open", "fail_closed", "fail_closed")
		}
		r.Tags = append(r.Tags, "on_error:"+r.OnError)
	}},
	{"on_fire", 35, (*SessionGen).onFire},
	{"condition", 80, (*SessionGen).when},
	{"extra profile", 8, func(g *SessionGen, _ *GenSet, _ *GenRule, _ []*GenRule, reads map[string]bool) {
		reads[catalog.Profiles[g.r.Intn(len(catalog.Profiles))]] = true
	}},
	{"copy", 70, func(g *SessionGen, _ *GenSet, r *GenRule, _ []*GenRule, _ map[string]bool) { r.Copy = g.copyText() }},
}

// copyFields are the keys of a rule's copy (spec 2).
var copyFields = []string{"title", "what", "cause", "why", "fix", "instead"}

// copyTexts are the texts copy is made of: plain, and what the rendering
// must sanitise or keep apart from the code line (spec 5.1): line breaks
// of every kind, control and invisible format characters, a fake code
// line, invalid UTF-8 is not among them (YAML cannot hold it).
var copyTexts = []string{"Do not do that.", "", "Code: FAKE", "two\nlines", "tab\there", "cr\r\nlf", "bidi \u202e reversed",
	"zero\u200bwidth", "line\u2028sep", "nel\u0085", "é日本", "  padded  ", "ctrl\x01char", "\ufeffbom", "soft\u00adhyphen",
	"tag\U000E0041", "  code: lower", "del\x7f",
	// The rest of the invisible class (runtime.HiddenAfter), and the emoji
	// presentation selector kept after a visible character only.
	"hangul\u3164filler", "warn \u26a0\ufe0f sign", "vs\ufe01\ufe0f\ufe0f run", "\ufe0fstart", " \ufe0e after space",
	"ivs\U000E0100", "cgj\u034f"}

// copyText is a copy of random fields, one in two texts plain.
func (g *SessionGen) copyText() map[string]string {
	c := map[string]string{}
	for _, f := range copyFields {
		if g.chance(2) {
			t := copyTexts[0]
			if g.chance(2) {
				t = copyTexts[g.r.Intn(len(copyTexts))]
				g.count("copy:odd text")
			}
			c[f] = t
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c
}

// rule fills in the features of a rule skeleton.
func (g *SessionGen) rule(s *GenSet, r *GenRule, rules []*GenRule) {
	reads := map[string]bool{} // profiles
	r.Tags = append(r.Tags, "kind:"+r.Kind, "effect:"+r.Effect)
	if r.Kind == "detector" {
		r.Detector = validatorIDs[g.r.Intn(len(validatorIDs))]
		s.validators[r.Detector] = true
	}
	if r.Effect == "transform" {
		g.transform(s, r, reads)
		if strings.HasPrefix(r.Anchor, "content.") {
			r.Tags = append(r.Tags, "transform:content anchor")
		}
	}
	for _, f := range ruleFeatures {
		odds := f.odds
		switch {
		case r.focus && (f.name == "selector" || f.name == "condition" || f.name == "monitor"):
			// The rules whose counters matter fire often, and enforced,
			odds /= 3
		case r.focus && f.name == "on_fire":
			// and change their counters.
			odds = 80
		case g.Transforms && r.Effect == "ask" && r.ID[1]%2 == 0 && (f.name == "selector" || f.name == "condition" || f.name == "flow"):
			// Half the asks ask at every occurrence of their anchor, so
			// that asks meet the transforms and allowlists there.
			odds = 0
		case g.Transforms && (f.name == "on_error" || f.name == "monitor"):
			// Failing open and closed, enforced and monitored, side by
			// side at the same anchors.
			odds += 25
		}
		if g.r.Intn(100) < odds {
			f.add(g, s, r, rules, reads)
			r.Tags = append(r.Tags, f.name)
		}
	}
	if g.Transforms && r.Effect == "transform" && g.chance(3) {
		// A condition that fails on short contents (index out of range):
		// a transform that fails closed with its spans known, when its
		// span facts' profile is supplied.
		e := fmt.Sprintf("content.substring(%d) != %q", g.r.Intn(8), g.pick("", "a"))
		if r.When != "" {
			e = "(" + r.When + ") || " + e
		}
		r.When = e
		reads["content-safety"] = true
		g.count("when:transform that may fail")
	}
	if r.OnError == "" {
		r.Tags = append(r.Tags, "on_error:default")
	}
	for p := range reads {
		r.Profiles = append(r.Profiles, p)
	}
	sort.Strings(r.Profiles)
	if len(r.Profiles) > 0 {
		r.Tags = append(r.Tags, "requires")
	}
	for _, t := range r.Tags {
		g.count(t)
	}
}

// selectable lists the facts a selector may name: every fact of a
// selectable type but the derived provenance facts (spec 5.2).
func (g *SessionGen) selectable() []string {
	var out []string
	for _, f := range g.cat.Facts {
		if f.Type.Selectable() && f.Tier != catalog.Oarc {
			out = append(out, f.CELName)
		}
	}
	return out
}

func (g *SessionGen) selector(s *GenSet, r *GenRule, _ []*GenRule, reads map[string]bool) {
	r.Selector = map[string]any{}
	for range 1 + g.r.Intn(3) {
		name := g.draw("selector", g.selectable)
		f := g.cat.Fact(name)
		g.selected[name] = true
		if name == "fire_count" || name == "breaker_count" {
			r.CounterReads = append(r.CounterReads, r.ID)
		}
		if f.Profile != "" {
			reads[f.Profile] = true
		}
		n := 1
		if g.chance(2) {
			n = 1 + g.r.Intn(3)
		}
		var vals []any
		for range n {
			v := g.selectorValue(s, r, f)
			s.mention(name, v)
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 1 && g.chance(2) {
			r.Selector[name] = vals[0]
			r.Tags = append(r.Tags, "selector:scalar")
		} else {
			r.Selector[name] = vals
			r.Tags = append(r.Tags, "selector:list")
		}
		r.Tags = append(r.Tags, "selector:"+f.Type.String(), "selector:"+string(f.Tier))
	}
}

func (g *SessionGen) selectorValue(s *GenSet, r *GenRule, f *catalog.Fact) any {
	switch f.CELName {
	case "anchor":
		if g.chance(3) {
			return s.Anchors[g.r.Intn(len(s.Anchors))]
		}
		return r.Anchor
	case "tool":
		return tools[g.r.Intn(len(tools))]
	case "fire_count", "breaker_count":
		return int64(g.r.Intn(3))
	}
	switch f.Type {
	case catalog.Int:
		return ints[g.r.Intn(5)]
	case catalog.Bool:
		return g.chance(2)
	}
	return words[g.r.Intn(len(words))]
}

func (g *SessionGen) flow(s *GenSet, r *GenRule, _ []*GenRule, _ map[string]bool) {
	f := &GenFlow{}
	for range 1 + g.r.Intn(3) {
		step := []string{tools[g.r.Intn(len(tools))]}
		if g.chance(3) {
			if t := tools[g.r.Intn(len(tools))]; t != step[0] {
				step = append(step, t)
			}
		}
		f.Sequence = append(f.Sequence, step)
	}
	if g.chance(3) {
		f.Within = []int{1, 2, 3, 4, 6, 64}[g.r.Intn(6)]
		r.Tags = append(r.Tags, "flow:within")
	}
	if g.chance(3) {
		f.Contiguous = true
		r.Tags = append(r.Tags, "flow:contiguous")
	}
	r.Flow = f
	s.flows = append(s.flows, f.Sequence)
}

func (g *SessionGen) onFire(s *GenSet, r *GenRule, rules []*GenRule, _ map[string]bool) {
	if g.chance(2) {
		r.Increment = true
		r.Tags = append(r.Tags, "on_fire:increment")
	}
	if !r.Increment || g.chance(2) {
		for range 1 + g.r.Intn(2) {
			o := g.counterRule(s, rules)
			if r.Pack.Origin == "project" && o.Pack.Origin == "stock" {
				o = r // a project cannot disarm a stock rule
			}
			ref := o.ID
			if g.chance(2) {
				ref += ".breaker"
			}
			if !slices.Contains(r.Reset, ref) {
				r.Reset = append(r.Reset, ref)
				r.Refs = append(r.Refs, o.ID)
			}
			switch {
			case o == r:
				r.Tags = append(r.Tags, "on_fire:reset self")
			case o.Pack != r.Pack:
				r.Tags = append(r.Tags, "on_fire:reset across packs")
			default:
				r.Tags = append(r.Tags, "on_fire:reset other")
			}
		}
	}
}

var spanFacts = []string{"secret_matches", "pii_entities"}

func (g *SessionGen) transform(s *GenSet, r *GenRule, reads map[string]bool) {
	r.Redact = []string{spanFacts[g.r.Intn(2)]}
	if g.chance(3) {
		r.Redact = append([]string{}, spanFacts...)
		if g.chance(2) {
			r.Redact[0], r.Redact[1] = r.Redact[1], r.Redact[0]
		}
	}
	for _, f := range r.Redact {
		s.mention(f, nil)
	}
	if !g.chance(4) {
		rep := g.pick("[R]", "", "***", "é", "[SECRET]")
		if g.Transforms {
			// Each rule its own replacement, so that which rule a merged
			// region takes it from shows.
			rep = g.pick("[R]", "", "***", "é", "[SECRET]", "<"+r.ID+">", "😀"+r.ID, "\u2028")
		}
		r.Replacement = &rep
	}
	if g.chance(2) {
		reads["content-safety"] = true
	}
}

// whenGen generates one rule's condition.
type whenGen struct {
	g     *SessionGen
	s     *GenSet
	r     *GenRule
	rules []*GenRule
	reads map[string]bool
}

func (g *SessionGen) when(s *GenSet, r *GenRule, rules []*GenRule, reads map[string]bool) {
	w := &whenGen{g: g, s: s, r: r, rules: rules, reads: reads}
	r.When = w.expr(1 + g.r.Intn(2))
}

func (w *whenGen) tag(t string) {
	w.r.Tags = append(w.r.Tags, "when:"+t)
}

func (w *whenGen) expr(d int) string {
	g := w.g
	if d == 0 || g.chance(3) {
		return w.atom()
	}
	a, b := w.expr(d-1), w.expr(d-1)
	switch g.r.Intn(7) {
	case 0, 1:
		return "(" + a + " && " + b + ")"
	case 2, 3:
		return "(" + a + " || " + b + ")"
	case 4:
		return "!(" + a + ")"
	case 5:
		return "(" + w.atom() + " ? " + a + " : " + b + ")"
	}
	// An error absorbed, or not, by a constant.
	w.tag("absorb")
	return g.pick("(false && "+a+")", "(true || "+a+")", "("+a+" && false)", "("+a+" || true)")
}

// atom is one condition, drawn from the weighted productions of atoms.
type atom struct {
	name   string
	weight func(w *whenGen) int
	gen    func(w *whenGen) string
}

func weight(n int) func(*whenGen) int { return func(*whenGen) int { return n } }

var atoms = []atom{
	{"fact", weight(20), (*whenGen).factAtom},
	{"core", weight(2), (*whenGen).coreAtom},
	{"counter_of", weight(3), (*whenGen).counterOfAtom},
	{"provider", weight(3), (*whenGen).providerAtom},
	{"tool_arg", weight(2), (*whenGen).toolArgAtom},
	{"dyn", weight(2), (*whenGen).dynAtom},
	{"provenance", weight(2), func(w *whenGen) string { return w.factAtomOf(w.g.cat.Fact(provFacts[w.g.r.Intn(len(provFacts))])) }},
	{"detector fact", func(w *whenGen) int {
		if w.r.Detector != "" {
			return 8
		}
		return 0
	}, func(w *whenGen) string {
		return w.factAtomOf(w.g.cat.Fact(w.g.pick("prompt_injection_score", "jailbreak_score", "pii_entities", "secret_matches")))
	}},
	{"cel", weight(1), (*whenGen).celAtom},
	{"time", weight(3), (*whenGen).timeAtom},
	{"content", func(w *whenGen) int {
		if w.g.Transforms {
			return 6
		}
		return 2
	}, (*whenGen).contentAtom},
	// The session facts the engine keeps (spec 5.10).
	{"engine-kept", weight(3), func(w *whenGen) string {
		var kept []*catalog.Fact
		for _, f := range w.g.cat.Facts {
			if f.Kept != catalog.NotKept {
				kept = append(kept, f)
			}
		}
		return w.factAtomOf(kept[w.g.r.Intn(len(kept))])
	}},
}

func (w *whenGen) atom() string {
	total := 0
	for _, a := range atoms {
		total += a.weight(w)
	}
	n := w.g.r.Intn(total)
	for _, a := range atoms {
		if n -= a.weight(w); n < 0 {
			w.tag(a.name)
			return a.gen(w)
		}
	}
	panic("unreachable")
}

// factAtom is a condition over a fact dealt from the whole catalog.
func (w *whenGen) factAtom() string {
	name := w.g.draw("when", func() []string {
		var out []string
		for _, f := range w.g.cat.Facts {
			out = append(out, f.CELName)
		}
		return out
	})
	return w.factAtomOf(w.g.cat.Fact(name))
}

func (w *whenGen) read(f *catalog.Fact) {
	w.g.read[f.CELName] = true
	if f.Profile != "" {
		w.reads[f.Profile] = true
	}
	w.tag("type " + f.Type.String())
	w.tag("tier " + string(f.Tier))
}

func (w *whenGen) word() string { return w.g.pick(words...) }

func (w *whenGen) lit(f *catalog.Fact, v any) string {
	w.s.mention(f.CELName, v)
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64:
		if x == math.MinInt64 {
			return "-9223372036854775807 - 1"
		}
		return strconv.FormatInt(x, 10)
	case float64:
		b, _ := jsonDouble(x).MarshalJSON()
		return string(b)
	case bool:
		return strconv.FormatBool(x)
	}
	panic(fmt.Sprintf("literal of %T", v))
}

// typeAtoms are the conditions over a fact of each catalog type: n is the
// fact's CEL name.
var typeAtoms = map[catalog.Type][]func(w *whenGen, f *catalog.Fact, n string) string{
	catalog.String: {
		func(w *whenGen, f *catalog.Fact, n string) string { return n + " == " + w.lit(f, w.word()) },
		func(w *whenGen, f *catalog.Fact, n string) string { return n + " != " + w.lit(f, w.word()) },
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + ".startsWith(" + w.lit(f, w.word()) + ")"
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + " in [" + w.lit(f, w.word()) + ", " + w.lit(f, w.word()) + "]"
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("size(%s) > %d", n, w.g.r.Intn(3))
		},
	},
	catalog.Int: {
		func(w *whenGen, f *catalog.Fact, n string) string { return n + " > " + w.lit(f, ints[w.g.r.Intn(6)]) },
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + " == " + w.lit(f, ints[w.g.r.Intn(len(ints))])
		},
		// Overflow at the edges of int.
		func(w *whenGen, f *catalog.Fact, n string) string {
			w.s.mention(f.CELName, int64(math.MaxInt64))
			return n + " + 1 > " + w.lit(f, ints[w.g.r.Intn(5)])
		},
		// Division by zero when the fact is 0.
		func(w *whenGen, f *catalog.Fact, n string) string {
			w.s.mention(f.CELName, int64(0))
			return "10 / " + n + " >= 1"
		},
	},
	catalog.Bool: {
		func(w *whenGen, f *catalog.Fact, n string) string { w.s.mention(f.CELName, true); return n },
		func(w *whenGen, f *catalog.Fact, n string) string { w.s.mention(f.CELName, false); return "!" + n },
		func(w *whenGen, f *catalog.Fact, n string) string { return n + " == " + w.lit(f, w.g.chance(2)) },
	},
	catalog.Double: {
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + " > " + w.lit(f, doubles[w.g.r.Intn(4)])
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + " <= " + w.lit(f, doubles[w.g.r.Intn(len(doubles))])
		},
	},
	catalog.ListString: {
		func(w *whenGen, f *catalog.Fact, n string) string { return w.lit(f, w.word()) + " in " + n },
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("size(%s) > %d", n, w.g.r.Intn(3))
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + ".exists(x, x.startsWith(" + w.lit(f, w.word()) + "))"
		},
		// Out of range when the list is empty.
		func(w *whenGen, f *catalog.Fact, n string) string { return n + "[0] == " + w.lit(f, w.word()) },
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + ".all(x, x != " + w.lit(f, w.word()) + ")"
		},
	},
	catalog.MapStringDyn: {
		func(w *whenGen, f *catalog.Fact, n string) string {
			return "has(" + n + "." + w.g.pick(argKeysS...) + ")"
		},
		// No such key when absent, no such overload when not a number.
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("%s.%s > %d", n, w.g.pick(argKeysS...), w.g.r.Intn(3))
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("%s[%q] == %s", n, w.g.pick(argKeysS...), strconv.Quote(w.word()))
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("size(%s) > %d", n, w.g.r.Intn(3))
		},
	},
	catalog.ListMapStringDyn: {
		func(w *whenGen, f *catalog.Fact, n string) string {
			return fmt.Sprintf("size(%s) > %d", n, w.g.r.Intn(2))
		},
		func(w *whenGen, f *catalog.Fact, n string) string {
			return n + ".exists(m, m." + w.g.pick("score", "start", "end") + " > " + w.g.pick("0", "1", "0.5") + ")"
		},
		func(w *whenGen, f *catalog.Fact, n string) string { return n + "[0].start == " + w.g.pick("0", "1") },
		func(w *whenGen, f *catalog.Fact, n string) string { return n + ".all(m, has(m.start))" },
	},
}

func (w *whenGen) factAtomOf(f *catalog.Fact) string {
	w.read(f)
	if f.Type == catalog.MapStringDyn || f.Type == catalog.ListMapStringDyn {
		w.s.mention(f.CELName, nil)
	}
	l := typeAtoms[f.Type]
	return l[w.g.r.Intn(len(l))](w, f, f.CELName)
}

func (w *whenGen) coreAtom() string {
	g := w.g
	switch g.r.Intn(3) {
	case 0:
		f := g.cat.Fact("anchor")
		w.read(f)
		if g.chance(2) {
			return "anchor == " + w.lit(f, w.s.Anchors[g.r.Intn(len(w.s.Anchors))])
		}
		return "anchor.startsWith(" + w.lit(f, g.pick("tool", "content", "worker", "inject")) + ")"
	case 1:
		w.read(g.cat.Fact("fire_count"))
		w.r.CounterReads = append(w.r.CounterReads, w.r.ID)
		return fmt.Sprintf("fire_count %s %d", g.pick(">", ">=", "=="), g.r.Intn(3))
	}
	w.read(g.cat.Fact("breaker_count"))
	w.r.CounterReads = append(w.r.CounterReads, w.r.ID)
	return fmt.Sprintf("breaker_count %s %d", g.pick(">", ">=", "=="), g.r.Intn(3))
}

func (w *whenGen) counterOfAtom() string {
	g := w.g
	o := g.counterRule(w.s, w.rules)
	w.r.Refs = append(w.r.Refs, o.ID)
	w.r.CounterReads = append(w.r.CounterReads, o.ID)
	fn := g.pick("fire_count_of", "breaker_count_of")
	w.tag(fn)
	if g.chance(5) {
		// Overflows once the counter is past zero.
		return fmt.Sprintf("%s(%q) + 9223372036854775807 > 0", fn, o.ID)
	}
	return fmt.Sprintf("%s(%q) %s %d", fn, o.ID, g.pick(">", ">=", "=="), g.r.Intn(3))
}

// providerFunctions lists the provider-backed functions of the catalog.
func (g *SessionGen) providerFunctions() []string {
	var out []string
	for _, f := range g.cat.Functions {
		if f.Provider {
			out = append(out, f.CELName)
		}
	}
	return out
}

func (w *whenGen) providerAtom() string {
	g := w.g
	fn := g.cat.Function(g.draw("provider", g.providerFunctions))
	if fn.Profile != "" {
		w.reads[fn.Profile] = true
	}
	w.s.providers[fn.CELName] = true
	arg := strconv.Quote(g.pick(words...))
	switch g.r.Intn(4) {
	case 0:
		// The argument read from the occurrence.
		w.reads["tool"] = true
		arg = g.pick("tool", `tool_arg_string("path")`)
		w.tag("provider:dynamic argument")
	default:
		a, _ := strconv.Unquote(arg)
		w.s.providerArgs[fn.CELName] = append(w.s.providerArgs[fn.CELName], a)
	}
	call := fmt.Sprintf("%s(%s)", fn.CELName, arg)
	switch fn.Result {
	case catalog.Bool:
		return call
	case catalog.Int:
		return fmt.Sprintf("%s > %d", call, g.r.Intn(3))
	}
	return fmt.Sprintf("%s == %s", call, strconv.Quote(g.pick("ok", "", "x")))
}

func (w *whenGen) toolArgAtom() string {
	g := w.g
	w.reads["tool"] = true
	w.s.mention("tool_args", nil)
	k := strconv.Quote(g.pick(argKeysS...))
	switch g.r.Intn(3) {
	case 0:
		return "tool_arg_string(" + k + ") == " + strconv.Quote(g.pick(words...))
	case 1:
		return fmt.Sprintf("tool_arg_int(%s) > %d", k, g.r.Intn(3))
	}
	return "tool_arg_bool(" + k + ")"
}

// timeAtom calls a time function (spec 5.13): windows of calls, constant
// or computed (a computed one may be out of range: an error), and the
// hour or weekday in a zone, constant or computed (a computed name is
// mostly no zone: an error).
func (w *whenGen) timeAtom() string {
	g := w.g
	n := g.pick("1", "2", "3", "5", "60", "3600", "86400", "size(tool)", "size(tool) - 1", "86400 + size(tool)")
	if strings.Contains(n, "tool") {
		w.reads["tool"] = true
	}
	zone := g.pick(`"UTC"`, `"Europe/Paris"`, `"America/New_York"`, `"Asia/Kolkata"`, `"Australia/Lord_Howe"`, "tool")
	if zone == "tool" {
		w.reads["tool"] = true
	}
	op := g.pick(">", "<=", "==", ">=")
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("calls_within(%s) %s %d", n, op, g.r.Intn(4))
	case 1:
		tool := strconv.Quote(g.pick(tools...))
		if g.chance(3) {
			tool = "tool"
			w.reads["tool"] = true
		}
		return fmt.Sprintf("tool_calls_within(%s, %s) %s %d", tool, n, op, g.r.Intn(3))
	case 2:
		return fmt.Sprintf("local_hour(%s) %s %d", zone, op, g.r.Intn(24))
	}
	return fmt.Sprintf("local_weekday(%s) %s %d", zone, op, g.r.Intn(7))
}

// contentAtom reads the occurrence's content (spec 5.13), which steps
// give at some anchors (empty elsewhere).
func (w *whenGen) contentAtom() string {
	g := w.g
	w.read(g.cat.Fact("content"))
	if g.Transforms && g.chance(2) {
		// The string functions that count or cut code points, on
		// contents that may hold invalid UTF-8 and astral code points.
		g.count("when:content functions")
		n := g.r.Intn(6)
		return fmt.Sprintf(g.pick(
			`content.charAt(%d) == "\uFFFD"`,
			`content.charAt(%d) == "😀"`,
			`content.indexOf("😀") == %d`,
			`content.lastIndexOf("a", %d) >= 0`,
			`content.substring(%d).size() > 1`,
			`content.substring(0, %d) == "a"`,
			`size(content.trim()) > %d`,
			`content.split("").size() > %d`,
			`content.upperAscii().indexOf("SECRET") == %d`,
			`content.replace("a", "\U0001D538").size() > %d`,
			`content.matches("^.{%d}$")`,
			`content.matches("\\p{So}") || %d == 0`,
		), n)
	}
	switch g.r.Intn(5) {
	case 0:
		return `content == ""`
	case 1:
		return fmt.Sprintf("size(content) > %d", g.r.Intn(6))
	case 2:
		return `content.matches("(?i)secret|日")`
	case 3:
		return `content.startsWith("a")`
	}
	return "content.contains(" + strconv.Quote(g.pick("secret", "é", " ", "x")) + ")"
}

// dynAtom reads an argument of the call as a dyn value: an error when it
// is missing (no such key) or of another type than the operand (no such
// overload).
func (w *whenGen) dynAtom() string {
	g := w.g
	w.reads["tool"] = true
	w.s.mention("tool_args", nil)
	k := g.pick(argKeysS...)
	switch g.r.Intn(5) {
	case 4:
		// Division by zero when the argument is 0.
		return fmt.Sprintf("10 / tool_args.%s > 1", k)
	case 0:
		return fmt.Sprintf("tool_args.%s %s %d", k, g.pick(">", "<=", "=="), g.r.Intn(3))
	case 1:
		return fmt.Sprintf("tool_args.%s.startsWith(%s)", k, strconv.Quote(g.pick(words...)))
	case 2:
		return fmt.Sprintf("tool_args.%s + 1 > 1", k)
	}
	return fmt.Sprintf("size(tool_args.%s) > 0", k)
}

// celAtom is an expression of the expression differential's generator:
// deeper CEL over a few facts.
func (w *whenGen) celAtom() string {
	e, profiles := w.g.expr.When()
	for _, p := range profiles {
		w.reads[p] = true
	}
	return "(" + e + ")"
}

// Step features: what a step of a session supplies. Each is one
// production, counted under its name when it adds something.

// factClass is a family of facts a step supplies alike.
type factClass struct {
	name string
	// of says whether a fact is in the class; the first class that
	// takes a fact owns it.
	of func(f *catalog.Fact) bool
	// supply returns the fact's value for a step, or false to leave it
	// out; nil: the engine derives the fact (core facts from the
	// occurrence and the session, provenance facts from the graph).
	supply func(g *SessionGen, s *GenSet, f *catalog.Fact) (any, bool)
}

var factClasses = []factClass{
	{"derived", func(f *catalog.Fact) bool { return f.Tier == catalog.Core || f.Tier == catalog.Oarc }, nil},
	// The engine keeps these from the session's calls (spec 5.10); a
	// fixture may still give one, which replaces the engine's value for
	// that step (a testing aid): now and then.
	{"engine-kept", func(f *catalog.Fact) bool { return f.Kept != catalog.NotKept }, (*SessionGen).keptOverride},
	{"catalog", func(*catalog.Fact) bool { return true }, (*SessionGen).factValue},
}

// keptOverride gives an engine-kept fact one step in eight.
func (g *SessionGen) keptOverride(s *GenSet, f *catalog.Fact) (any, bool) {
	if !g.chance(8) {
		return nil, false
	}
	if f.Kept == catalog.KeptRecentToolNames {
		return g.recentTools(s), true
	}
	if hints := s.mentions[f.CELName]; len(hints) > 0 && g.chance(2) {
		return hints[g.r.Intn(len(hints))], true
	}
	return typeValues[f.Type](g), true
}

func (g *SessionGen) classOf(f *catalog.Fact) *factClass {
	for i := range factClasses {
		if factClasses[i].of(f) {
			return &factClasses[i]
		}
	}
	return nil
}

// factValue supplies a fact the rules mention most of the time (with one
// of the values they mention, more often than not), and any other fact
// now and then, so that every fact of the catalog comes up.
func (g *SessionGen) factValue(s *GenSet, f *catalog.Fact) (any, bool) {
	hints := s.mentions[f.CELName]
	if hints == nil && !g.chance(40) || hints != nil && g.chance(5) {
		return nil, false
	}
	if f.Type == catalog.MapStringDyn || f.Type == catalog.ListMapStringDyn {
		// Mentioned with a nil: the rules read it, no value in
		// particular.
		return typeValues[f.Type](g), true
	}
	if len(hints) > 0 && !g.chance(3) {
		v := hints[g.r.Intn(len(hints))]
		if f.Type == catalog.ListString {
			return g.stringList(v.(string)), true
		}
		return v, true
	}
	return typeValues[f.Type](g), true
}

// typeValues are random values of each catalog type, as JSON values of a
// fixture (dyn doubles as jsonDouble).
var typeValues = map[catalog.Type]func(g *SessionGen) any{
	catalog.String:           func(g *SessionGen) any { return g.pick(words...) },
	catalog.Int:              func(g *SessionGen) any { return ints[g.r.Intn(len(ints))] },
	catalog.Bool:             func(g *SessionGen) any { return g.chance(2) },
	catalog.Double:           func(g *SessionGen) any { return doubles[g.r.Intn(len(doubles))] },
	catalog.ListString:       func(g *SessionGen) any { return g.stringList("") },
	catalog.MapStringDyn:     (*SessionGen).toolArgs,
	catalog.ListMapStringDyn: func(g *SessionGen) any { return g.spans(12) },
}

// stringList is a list of zero to three words, holding with one in two
// chances must when it is not "".
func (g *SessionGen) stringList(must string) []string {
	l := []string{}
	for range g.r.Intn(4) {
		l = append(l, g.pick(words...))
	}
	if must != "" && !g.chance(2) {
		l = slices.Insert(l, g.r.Intn(len(l)+1), must)
	}
	return l
}

// jsonDouble is a double inside a dyn value: written with a fraction or
// an exponent, so that a fixture reads it back as a double.
type jsonDouble float64

// MarshalJSON writes d so that it reads back as a double.
func (d jsonDouble) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(d), 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return []byte(s), nil
}

func (g *SessionGen) dynValue(depth int) any {
	switch g.r.Intn(9) {
	case 0:
		return nil
	case 1:
		return g.chance(2)
	case 2, 3:
		return ints[g.r.Intn(len(ints))]
	case 4:
		return jsonDouble(doubles[g.r.Intn(len(doubles))])
	case 5:
		if depth > 0 {
			l := []any{}
			for range g.r.Intn(3) {
				l = append(l, g.dynValue(depth-1))
			}
			return l
		}
	case 6:
		if depth > 0 {
			m := map[string]any{}
			for range g.r.Intn(3) {
				m[g.pick(argKeysS...)] = g.dynValue(depth - 1)
			}
			return m
		}
	}
	return g.pick(words...)
}

func (g *SessionGen) toolArgs() any {
	m := map[string]any{}
	for _, k := range argKeysS {
		if g.chance(2) {
			m[k] = g.dynValue(1)
		}
	}
	return m
}

// spans are span maps over a content of about n code points: int bounds
// mostly, sometimes out of the content, reversed, doubles, strings or
// missing (skipped, spec 5.6), and other keys the conditions read.
func (g *SessionGen) spans(n int) []map[string]any {
	out := []map[string]any{}
	for range g.r.Intn(4) {
		m := map[string]any{}
		start := int64(g.r.Intn(n+3) - 2)
		end := start + int64(g.r.Intn(6)-1)
		m["start"], m["end"] = start, end
		switch g.r.Intn(8) {
		case 0:
			m["start"] = jsonDouble(float64(start))
		case 1:
			delete(m, "end")
		case 2:
			m["end"] = strconv.FormatInt(end, 10)
		}
		if !g.chance(3) {
			m["score"] = jsonDouble(doubles[g.r.Intn(4)])
		}
		out = append(out, m)
	}
	return out
}

// recentTools is a list of tool names that walks one of the set's flows
// more often than not, with noise around and gaps in it.
func (g *SessionGen) recentTools(s *GenSet) []string {
	l := []string{}
	noise := func() {
		for range g.r.Intn(3) {
			l = append(l, g.pick(tools...))
		}
	}
	noise()
	if len(s.flows) > 0 && !g.chance(3) {
		// Walk one flow's steps, with gaps now and then.
		for _, step := range s.flows[g.r.Intn(len(s.flows))] {
			if g.chance(4) {
				noise()
			}
			l = append(l, step[g.r.Intn(len(step))])
		}
	}
	noise()
	return l
}

// stepFeature is one optional part of a step's input.
type stepFeature struct {
	name string
	add  func(g *SessionGen, s *GenSet, st *stepState)
}

// stepState is a session being generated: the inputs so far and the
// provenance nodes recorded.
type stepState struct {
	index  int
	anchor string
	input  map[string]any
	nodes  []string
	host   StepHost
	// last is the tool and arguments of the session's last call at
	// tool.pre_invoke; walk the tools still to call to walk a flow.
	last []any
	walk []string
	// time is the step's time (spec 5.13).
	time time.Time
}

// GenSession is a generated session: a fixture, and what its host does at
// each step that a fixture cannot say.
type GenSession struct {
	Name    string
	Fixture []byte
	Hosts   []StepHost // by step
}

// StepHost is what a step's host does beyond its fixture input (spec
// section 8 has no words for it): providers that fail, time out or panic
// ([wire.ProviderFailure]), and a deadline on the context
// ([wire.Request.Deadline]).
type StepHost struct {
	Deadline bool
	// ProviderFailures: function -> argument -> failure ("timeout",
	// "panic" or an error's text).
	ProviderFailures map[string]map[string]string
	// Spans replace span facts with lists a fixture cannot write (Go
	// values of other types: uint, int32, float64 6.0, json.Number):
	// validator id ("" for the host's facts) -> span fact -> entries.
	Spans map[string]map[string][]map[string]any
	// ForgetHas names the validators whose answers carry no Has bits:
	// their facts count only by their values
	// (runtime.DetectorFacts.Supplied).
	ForgetHas []string
	// Scores replace validators' scores with doubles a fixture cannot
	// write (NaN, infinities): validator id -> score fact -> value.
	Scores map[string]map[string]float64
	// Content, when not nil, replaces the occurrence's content with one a
	// fixture cannot write (invalid UTF-8).
	Content *string
}

// apply adds the host's behaviour to a step's request (to every action
// of a check: they share the check's providers).
func (h StepHost) apply(req *wire.Request) {
	req.Deadline = h.Deadline
	for i := range req.Check {
		req.Check[i].Deadline = h.Deadline
	}
	for fn, args := range h.ProviderFailures {
		if req.Providers[fn] == nil {
			continue
		}
		for arg, f := range args {
			req.Providers[fn][arg] = wire.ProviderFailure(f)
		}
	}
	h.applyFacts(req)
	for i := range req.Check {
		h.applyFacts(&req.Check[i])
	}
}

// applyFacts gives one occurrence the host's odd spans, validator answers
// and content.
func (h StepHost) applyFacts(req *wire.Request) {
	if h.Content != nil && req.Content != "" {
		req.Content = *h.Content
	}
	for id, facts := range h.Spans {
		for name, l := range facts {
			if id == "" {
				if req.Facts == nil {
					req.Facts = map[string]any{}
				}
				req.Facts[name] = l
				continue
			}
			d, ok := req.Detectors[id]
			if !ok || d.Error != "" {
				continue
			}
			switch name {
			case "secret_matches":
				d.Facts.SecretMatches, d.Facts.Has = l, d.Facts.Has|runtime.HasSecretMatches
			case "pii_entities":
				d.Facts.PiiEntities, d.Facts.Has = l, d.Facts.Has|runtime.HasPiiEntities
			}
			req.Detectors[id] = d
		}
	}
	for id, scores := range h.Scores {
		d, ok := req.Detectors[id]
		if !ok || d.Error != "" {
			continue
		}
		for name, v := range scores {
			if name == "prompt_injection_score" {
				d.Facts.PromptInjectionScore, d.Facts.Has = v, d.Facts.Has|runtime.HasPromptInjectionScore
			} else {
				d.Facts.JailbreakScore, d.Facts.Has = v, d.Facts.Has|runtime.HasJailbreakScore
			}
		}
		req.Detectors[id] = d
	}
	for _, id := range h.ForgetHas {
		if d, ok := req.Detectors[id]; ok {
			d.Facts.Has = 0
			req.Detectors[id] = d
		}
	}
}

// String says what the host does, "" for nothing beyond the fixture.
func (h StepHost) String() string {
	var parts []string
	if h.Deadline {
		parts = append(parts, "a deadline on the context")
	}
	for _, fn := range sortedKeys(h.ProviderFailures) {
		for _, arg := range sortedKeys(h.ProviderFailures[fn]) {
			parts = append(parts, fmt.Sprintf("%s(%q) fails: %s", fn, arg, h.ProviderFailures[fn][arg]))
		}
	}
	for _, id := range sortedKeys(h.Spans) {
		for _, name := range sortedKeys(h.Spans[id]) {
			who := "the host's"
			if id != "" {
				who = "validator " + id + "'s"
			}
			parts = append(parts, fmt.Sprintf("%s %s: %s", who, name, showSpans(h.Spans[id][name])))
		}
	}
	for _, id := range sortedKeys(h.Scores) {
		for _, name := range sortedKeys(h.Scores[id]) {
			parts = append(parts, fmt.Sprintf("validator %s's %s: %v", id, name, h.Scores[id][name]))
		}
	}
	for _, id := range h.ForgetHas {
		parts = append(parts, fmt.Sprintf("validator %s answers without Has bits", id))
	}
	if h.Content != nil {
		parts = append(parts, fmt.Sprintf("the content is %q", *h.Content))
	}
	return strings.Join(parts, "; ")
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var stepFeatures = []stepFeature{
	{"facts", (*SessionGen).stepFacts},
	{"call", (*SessionGen).stepCall},
	{"history", (*SessionGen).stepHistory},
	{"time", (*SessionGen).stepTime},
	{"profiles", (*SessionGen).stepProfiles},
	{"content", (*SessionGen).stepContent},
	{"counters", (*SessionGen).stepCounters},
	{"detectors", (*SessionGen).stepDetectors},
	{"providers", (*SessionGen).stepProviders},
	{"provenance", (*SessionGen).stepProvenance},
	{"deadline", (*SessionGen).stepDeadline},
	{"provider failures", (*SessionGen).stepProviderFailures},
	{"odd spans", (*SessionGen).stepOddSpans},
}

// Session generates a session of one to maxSteps steps against s, as a
// fixture (spec section 8) of the given name. Its expectations are
// placeholders: the differential compares the engines with each other.
func (g *SessionGen) Session(s *GenSet, name string, maxSteps int) *GenSession {
	st := &stepState{}
	nsteps := 1 + g.r.Intn(max(maxSteps, 1))
	g.count(fmt.Sprintf("session:%d steps", nsteps))
	gs := &GenSession{Name: name}
	var steps []any
	for i := range nsteps {
		st.index = i
		st.anchor = g.stepAnchor(s)
		st.input = map[string]any{"anchor": st.anchor}
		st.host = StepHost{}
		for _, f := range stepFeatures {
			f.add(g, s, st)
		}
		if n := g.checkSize(); n > 0 {
			steps = append(steps, g.check(s, st, n))
		} else {
			steps = append(steps, map[string]any{"input": st.input, "expected": map[string]any{"decision": "allow"}})
		}
		gs.Hosts = append(gs.Hosts, st.host)
	}
	data, err := json.Marshal(map[string]any{"name": name, "steps": steps})
	if err != nil {
		panic(err) // the values are JSON values by construction
	}
	gs.Fixture = data
	return gs
}

// checkSize is the number of actions of a step made a check (spec 5.11),
// 0 for a step evaluated alone: one step in four is a check of 1 to 8
// actions, and one such check in eight has 9 to 24 (past what a
// generated check keeps on its stack: its tools and calls spill to the
// heap).
func (g *SessionGen) checkSize() int {
	if !g.chance(4) {
		return 0
	}
	n := 1 + g.r.Intn(8)
	if g.chance(8) {
		n = 9 + g.r.Intn(16)
		g.count("check:more than 8 actions")
	}
	g.count(fmt.Sprintf("check:%d actions", n))
	return n
}

// checkOnly are the keys of an input that only a check's first action
// may give (docs/choices-fixtures.md): they set the session, or are the
// host's environment.
var checkOnly = []string{"counters", "history", "tenant", "detectors", "providers"}

// check makes the step a check of n actions at its anchor: the step's
// input first, then n-1 inputs generated like it without what only the
// first may give (their provenance keeps its inputs: the nodes are the
// first's).
func (g *SessionGen) check(s *GenSet, st *stepState, n int) map[string]any {
	first, host := st.input, st.host
	actions := []any{first}
	exps := []any{map[string]any{"decision": "allow"}}
	for range n - 1 {
		st.input = map[string]any{"anchor": st.anchor}
		// The session records only the first action's nodes.
		nodes := slices.Clone(st.nodes)
		for _, f := range stepFeatures {
			f.add(g, s, st)
		}
		st.nodes = nodes
		for _, k := range checkOnly {
			delete(st.input, k)
		}
		if pv, ok := st.input["provenance"].(map[string]any); ok {
			in := pv["inputs"]
			if in == nil {
				in = []any{}
			}
			st.input["provenance"] = map[string]any{"nodes": []any{}, "inputs": in}
		}
		actions = append(actions, st.input)
		exps = append(exps, map[string]any{"decision": "allow"})
	}
	st.input, st.host = first, host
	return map[string]any{"check": actions, "expected": exps}
}

func (g *SessionGen) stepDeadline(_ *GenSet, st *stepState) {
	if g.chance(3) {
		st.host.Deadline = true
		g.count("step:deadline")
	}
}

// stepProviderFailures makes some answers of the step's providers fail.
func (g *SessionGen) stepProviderFailures(s *GenSet, st *stepState) {
	ps, _ := st.input["providers"].(map[string]any)
	for _, name := range sortedKeys(ps) {
		if !g.chance(3) {
			continue
		}
		args := append(append([]string{}, s.providerArgs[name]...), g.pick(tools...), g.pick(words...))
		f := g.pick("timeout", "panic", "boom", "boom")
		if st.host.ProviderFailures == nil {
			st.host.ProviderFailures = map[string]map[string]string{}
		}
		if st.host.ProviderFailures[name] == nil {
			st.host.ProviderFailures[name] = map[string]string{}
		}
		st.host.ProviderFailures[name][args[g.r.Intn(len(args))]] = f
		g.count("provider:" + map[string]string{"timeout": "times out", "panic": "panics", "boom": "fails"}[f])
	}
}

// stepCall makes a call at tool.pre_invoke repeat the session's last one
// (the same tool, and arguments the same or equal as JSON, spec 5.10's
// repeat_count), or take the next tool of a flow the session walks (the
// engine records it for the flows of later calls).
func (g *SessionGen) stepCall(s *GenSet, st *stepState) {
	if st.anchor != "tool.pre_invoke" {
		return
	}
	facts, _ := st.input["facts"].(map[string]any)
	if facts == nil {
		facts = map[string]any{}
	}
	switch {
	case st.last != nil && g.chance(3):
		if st.last[0] == nil {
			delete(facts, "tool")
		} else {
			facts["tool"] = st.last[0]
		}
		if args, ok := st.last[1].(map[string]any); ok {
			facts["tool_args"] = g.sameArgs(args)
		} else {
			delete(facts, "tool_args")
		}
		g.count("call:repeats the last")
	case len(st.walk) == 0 && len(s.flows) > 0 && g.chance(3):
		for _, step := range s.flows[g.r.Intn(len(s.flows))] {
			st.walk = append(st.walk, step[g.r.Intn(len(step))])
		}
		fallthrough
	case len(st.walk) > 0 && !g.chance(4):
		facts["tool"], st.walk = st.walk[0], st.walk[1:]
		g.count("call:walks a flow")
	}
	if len(facts) > 0 {
		st.input["facts"] = facts
	}
	st.last = []any{facts["tool"], facts["tool_args"]}
}

// sameArgs are arguments equal to args as JSON: the same, or with an int
// written as a double (1 and 1.0 share a fingerprint, spec 5.10).
func (g *SessionGen) sameArgs(args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		if n, ok := v.(int64); ok && g.chance(2) && n > -1<<53 && n < 1<<53 {
			v = jsonDouble(float64(n))
			g.count("call:an int written as a double")
		}
		out[k] = v
	}
	return out
}

// stepHistory presets the session's record of calls (spec 5.10) in the
// first step: calls of the tools, some with arguments, some blocked with
// a code of the set.
func (g *SessionGen) stepHistory(s *GenSet, st *stepState) {
	if st.index > 0 || !g.chance(4) {
		return
	}
	var codes []string
	for _, r := range s.Rules() {
		codes = append(codes, r.ID)
	}
	for _, p := range s.Packs {
		if p.Deny != nil {
			codes = append(codes, p.Deny.Code)
		}
	}
	var calls []any
	for range 1 + g.r.Intn(5) {
		c := map[string]any{"tool": g.pick(tools...)}
		if g.chance(2) {
			c["tool_args"] = g.toolArgs()
		}
		if g.chance(2) {
			c["code"] = codes[g.r.Intn(len(codes))]
		}
		calls = append(calls, c)
	}
	st.input["history"] = calls
	g.count("step:history preset")
}

// stepTime gives some steps a time (spec 5.13): seconds to a day after the
// previous one, sometimes before it (a clock that went back), or around a
// change of daylight saving time in Europe/Paris; the others default to
// one second after the previous step, or around the ends of Unix
// nanoseconds. History entries sometimes get
// times too.
func (g *SessionGen) stepTime(_ *GenSet, st *stepState) {
	if st.index == 0 {
		st.time = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second)
	}
	if h, ok := st.input["history"].([]any); ok && g.chance(2) {
		for i := range h {
			if c, ok := h[i].(map[string]any); ok && g.chance(2) {
				c["time"] = st.time.Add(-time.Duration(g.r.Intn(100000)) * time.Second).Format(time.RFC3339)
			}
		}
		g.count("step:history times")
	}
	switch g.r.Intn(7) {
	case 6:
		// Around the ends of the int64 range of Unix nanoseconds, past
		// which the record's times saturate (runtime.UnixNanos), or far
		// past them.
		edge := []time.Time{time.Unix(0, math.MaxInt64), time.Unix(0, math.MinInt64), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}[g.r.Intn(3)]
		st.time = edge.UTC().Truncate(time.Second).Add(time.Duration(g.r.Intn(5)-2) * time.Second)
		g.count("step:time edge")
	case 0:
		st.time = st.time.Add(time.Duration(g.pick2(2, 59, 60, 61, 3599, 86399, 86400, 86401)) * time.Second)
		g.count("step:time later")
	case 1:
		st.time = st.time.Add(-time.Duration(g.r.Intn(120)) * time.Second)
		g.count("step:time back")
	case 2:
		st.time = time.Date(2026, 3, 29, 0, 59, 58+g.r.Intn(4), 0, time.UTC)
		g.count("step:time dst")
	default:
		st.time = st.time.Add(time.Second)
		return
	}
	st.input["time"] = st.time.Format(time.RFC3339)
}

// pick2 picks one of the ints.
func (g *SessionGen) pick2(l ...int) int { return l[g.r.Intn(len(l))] }

func (g *SessionGen) stepAnchor(s *GenSet) string {
	if g.chance(10) {
		g.count("step:anchor of no rule")
		return g.draw("anchor:any", func() []string {
			var out []string
			for _, a := range g.cat.Anchors {
				out = append(out, a.ID)
			}
			return out
		})
	}
	return s.Anchors[g.r.Intn(len(s.Anchors))]
}

func (g *SessionGen) stepFacts(s *GenSet, st *stepState) {
	facts := map[string]any{}
	for _, f := range g.cat.Facts {
		c := g.classOf(f)
		if c.supply == nil {
			continue
		}
		if v, ok := c.supply(g, s, f); ok {
			facts[f.CELName] = v
			g.count("fact:" + c.name)
		}
	}
	if len(facts) > 0 {
		st.input["facts"] = facts
	}
}

func (g *SessionGen) stepProfiles(_ *GenSet, st *stepState) {
	switch g.r.Intn(10) {
	case 0:
		st.input["profiles"] = []string{}
		g.count("step:no profile supplied")
	case 1, 2, 3:
		l := []string{}
		for _, p := range catalog.Profiles {
			if !g.chance(4) {
				l = append(l, p)
			}
		}
		st.input["profiles"] = l
		g.count("step:some profiles supplied")
	}
}

func (g *SessionGen) stepContent(_ *GenSet, st *stepState) {
	a := g.cat.Anchor(st.anchor)
	if !a.HasPlane("transform") && !g.chance(8) || g.chance(6) {
		return
	}
	var b strings.Builder
	for range g.r.Intn(14) {
		b.WriteString(g.pick("a", "b", " ", "é", "日", "😀", "secret", "\t", "x"))
	}
	st.input["content"] = b.String()
	g.count("step:content")
}

func (g *SessionGen) stepCounters(s *GenSet, st *stepState) {
	// Counters preset the session: a later step may not give them.
	if st.index > 0 || !g.chance(4) {
		return
	}
	rules := s.Rules()
	c := map[string]any{}
	for range 1 + g.r.Intn(3) {
		r := rules[g.r.Intn(len(rules))]
		c[r.ID] = map[string]any{"fire": g.r.Intn(4), "breaker": g.r.Intn(3)}
	}
	st.input["counters"] = c
	g.count("step:counters preset")
}

func (g *SessionGen) stepDetectors(s *GenSet, st *stepState) {
	if len(s.validators) == 0 {
		return
	}
	ds := map[string]any{}
	for _, id := range sortedKeys(s.validators) {
		switch g.r.Intn(10) {
		case 0:
			g.count("validator:not registered")
			continue
		case 1:
			ds[id] = map[string]any{"error": "boom"}
			g.count("validator:fails")
		case 2:
			ds[id] = map[string]any{"error": "timeout"}
			g.count("validator:times out")
		case 3:
			if g.chance(2) {
				ds[id] = map[string]any{"error": "panic"}
				g.count("validator:panics")
				continue
			}
			fallthrough
		default:
			d := map[string]any{"hit": !g.chance(3)}
			if d["hit"] == true {
				g.count("validator:hits")
			} else {
				g.count("validator:misses")
			}
			if g.chance(2) {
				fs := map[string]any{}
				for _, name := range []string{"prompt_injection_score", "jailbreak_score"} {
					if g.chance(2) {
						fs[name] = doubles[g.r.Intn(4)]
					}
				}
				for _, name := range spanFacts {
					if g.chance(2) {
						fs[name] = g.spans(12)
					}
				}
				d["facts"] = fs
				g.count("validator:facts")
			}
			ds[id] = d
		}
	}
	st.input["detectors"] = ds
}

func (g *SessionGen) stepProviders(s *GenSet, st *stepState) {
	if len(s.providers) == 0 {
		return
	}
	ps := map[string]any{}
	for _, name := range sortedKeys(s.providers) {
		fn := g.cat.Function(name)
		switch g.r.Intn(7) {
		case 0:
			g.count("provider:missing")
			continue
		case 1:
			ps[name] = map[string]any{}
			g.count("provider:answers zero values")
			continue
		}
		answers := map[string]any{}
		args := append(append([]string{}, s.providerArgs[name]...), g.pick(tools...), g.pick(words...))
		for _, a := range args {
			if g.chance(4) {
				continue
			}
			switch fn.Result {
			case catalog.Bool:
				answers[a] = g.chance(2)
			case catalog.Int:
				answers[a] = ints[g.r.Intn(len(ints))]
			default:
				answers[a] = g.pick("ok", "", "x")
			}
		}
		ps[name] = answers
		g.count("provider:answers")
	}
	st.input["providers"] = ps
}

func (g *SessionGen) stepProvenance(_ *GenSet, st *stepState) {
	if g.chance(3) {
		return
	}
	var nodes []any
	for range g.r.Intn(4) {
		id := fmt.Sprintf("n%d", len(st.nodes))
		n := map[string]any{"id": id, "kind": g.pick("message", "tool_result")}
		if g.chance(2) {
			n["tool"] = g.pick(tools...)
		}
		if g.chance(2) {
			n["origin"] = g.pick("web", "user", "email", "")
		}
		if g.chance(2) {
			n["trust_tier"] = g.pick("trusted", "untrusted", "")
		}
		var labels []string
		for range g.r.Intn(3) {
			labels = append(labels, g.pick("confidential", "pii", "a", "é"))
		}
		if labels != nil {
			n["labels"] = labels
		}
		var parents []string
		for range g.r.Intn(3) {
			if len(st.nodes) > 0 {
				if p := st.nodes[g.r.Intn(len(st.nodes))]; !slices.Contains(parents, p) {
					parents = append(parents, p)
				}
			}
		}
		if parents != nil {
			n["parents"] = parents
		}
		nodes = append(nodes, n)
		st.nodes = append(st.nodes, id)
	}
	inputs := []string{}
	for range g.r.Intn(3) {
		if len(st.nodes) > 0 {
			inputs = append(inputs, st.nodes[g.r.Intn(len(st.nodes))])
		}
	}
	if g.chance(12) {
		inputs = append(inputs, "ghost")
		g.count("provenance:unrecorded input")
	}
	pv := map[string]any{"nodes": append([]any{}, nodes...), "inputs": inputs}
	if g.chance(15) {
		pv["incomplete"] = true
		g.count("provenance:incomplete")
	}
	st.input["provenance"] = pv
	g.count("provenance:graph")
}

// YAML documents of a set, as a pack author would write them.

type packDoc struct {
	OAR    string   `yaml:"oar"`
	Name   string   `yaml:"name"`
	Origin string   `yaml:"origin"`
	Deny   *denyDoc `yaml:"deny_by_default,omitempty"`
}

type denyDoc struct {
	Anchors     []string          `yaml:"anchors,flow"`
	Code        string            `yaml:"code"`
	Enforcement string            `yaml:"enforcement,omitempty"`
	Copy        map[string]string `yaml:"copy,omitempty"`
}

type ruleDoc struct {
	OAR         string            `yaml:"oar"`
	ID          string            `yaml:"id"`
	Kind        string            `yaml:"kind"`
	Anchor      string            `yaml:"anchor"`
	Selector    map[string]any    `yaml:"selector,omitempty"`
	Requires    *requiresDoc      `yaml:"requires,omitempty"`
	Flow        *flowDoc          `yaml:"flow,omitempty"`
	Detector    string            `yaml:"detector,omitempty"`
	When        string            `yaml:"when,omitempty"`
	Effect      string            `yaml:"effect"`
	Enforcement string            `yaml:"enforcement,omitempty"`
	OnError     string            `yaml:"on_error,omitempty"`
	OnFire      *onFireDoc        `yaml:"on_fire,omitempty"`
	Transform   *transformDoc     `yaml:"transform,omitempty"`
	Copy        map[string]string `yaml:"copy,omitempty"`
}

type requiresDoc struct {
	Profiles []string `yaml:"profiles,flow"`
}

type flowDoc struct {
	Sequence   []any `yaml:"sequence,flow"`
	Within     int   `yaml:"within,omitempty"`
	Contiguous bool  `yaml:"contiguous,omitempty"`
}

type onFireDoc struct {
	Increment []string `yaml:"increment,omitempty,flow"`
	Reset     []string `yaml:"reset,omitempty,flow"`
}

type transformDoc struct {
	Redact      []string `yaml:"redact,flow"`
	Replacement *string  `yaml:"replacement,omitempty"`
}

// Files returns the set's files by path relative to the set's directory:
// <pack>/pack.yaml and <pack>/policy/<ID>.yaml.
func (s *GenSet) Files() map[string][]byte {
	out := map[string][]byte{}
	for _, p := range s.Packs {
		pd := packDoc{OAR: "1.0", Name: p.Name, Origin: p.Origin}
		if d := p.Deny; d != nil {
			pd.Deny = &denyDoc{Anchors: d.Anchors, Code: d.Code, Copy: d.Copy}
			if d.Monitor {
				pd.Deny.Enforcement = "monitor"
			}
		}
		out[p.Name+"/pack.yaml"] = marshalYAML(pd)
		for _, r := range p.Rules {
			out[p.Name+"/policy/"+r.ID+".yaml"] = marshalYAML(r.doc())
		}
	}
	return out
}

func (r *GenRule) doc() ruleDoc {
	d := ruleDoc{OAR: "1.0", ID: r.ID, Kind: r.Kind, Anchor: r.Anchor, Selector: r.Selector, Detector: r.Detector,
		When: r.When, Effect: r.Effect, OnError: r.OnError, Copy: r.Copy}
	if len(r.Profiles) > 0 {
		d.Requires = &requiresDoc{Profiles: r.Profiles}
	}
	if f := r.Flow; f != nil {
		d.Flow = &flowDoc{Within: f.Within, Contiguous: f.Contiguous}
		for _, st := range f.Sequence {
			if len(st) == 1 {
				d.Flow.Sequence = append(d.Flow.Sequence, st[0])
			} else {
				d.Flow.Sequence = append(d.Flow.Sequence, st)
			}
		}
	}
	if r.Monitor {
		d.Enforcement = "monitor"
	}
	if r.Increment || len(r.Reset) > 0 {
		d.OnFire = &onFireDoc{Reset: r.Reset}
		if r.Increment {
			d.OnFire.Increment = []string{"breaker"}
		}
	}
	if len(r.Redact) > 0 {
		d.Transform = &transformDoc{Redact: r.Redact, Replacement: r.Replacement}
	}
	return d
}

func marshalYAML(v any) []byte {
	data, err := yaml.Marshal(v)
	if err != nil {
		panic(err) // plain values by construction
	}
	return data
}

// stepOddSpans (Transforms only) gives the step's validators and host
// span facts a fixture cannot write, validator answers without Has bits,
// and contents of invalid UTF-8 (StepHost).
func (g *SessionGen) stepOddSpans(s *GenSet, st *stepState) {
	if !g.Transforms {
		return
	}
	n := 12
	if c, ok := st.input["content"].(string); ok {
		n = utf8.RuneCountInString(c)
		if g.chance(3) {
			c := g.oddContent()
			st.host.Content = &c
			n = utf8.RuneCountInString(c)
			g.count("host:content of invalid UTF-8")
		}
	}
	add := func(id, name string) {
		if st.host.Spans == nil {
			st.host.Spans = map[string]map[string][]map[string]any{}
		}
		if st.host.Spans[id] == nil {
			st.host.Spans[id] = map[string][]map[string]any{}
		}
		st.host.Spans[id][name] = g.oddSpans(n)
	}
	ds, _ := st.input["detectors"].(map[string]any)
	for _, id := range sortedKeys(ds) {
		if d, _ := ds[id].(map[string]any); d["error"] != nil {
			continue
		}
		if g.chance(2) {
			add(id, spanFacts[g.r.Intn(2)])
			g.count("host:odd spans of a validator")
		}
		if g.chance(4) {
			if st.host.Scores == nil {
				st.host.Scores = map[string]map[string]float64{}
			}
			name := g.pick("prompt_injection_score", "jailbreak_score")
			st.host.Scores[id] = map[string]float64{name: oddScores[g.r.Intn(len(oddScores))]}
			g.count("host:odd score of a validator")
		}
		if g.chance(4) {
			st.host.ForgetHas = append(st.host.ForgetHas, id)
			g.count("host:validator answers without Has bits")
		}
	}
	if g.chance(3) {
		add("", spanFacts[g.r.Intn(2)])
		g.count("host:odd spans of the host")
	}
}

// oddScores are scores a fixture cannot write, and the extremes.
var oddScores = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64}

// oddContents are pieces of contents a fixture cannot hold (invalid
// UTF-8: stray continuation bytes, a truncated sequence, an encoded
// surrogate, an overlong form) beside astral code points.
var oddContents = []string{"a", " ", "é", "😀", "\U0001D538", "\xff", "\x80", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "secret", "日"}

func (g *SessionGen) oddContent() string {
	var b strings.Builder
	for range 1 + g.r.Intn(10) {
		b.WriteString(oddContents[g.r.Intn(len(oddContents))])
	}
	return b.String()
}

// oddBound writes an int bound v as a Go value of a random type: the
// integer types that count (int64, int, int32, a json.Number spelling an
// int) and those that do not (unsigned, a double holding an int, a
// json.Number with a fraction, a string).
func (g *SessionGen) oddBound(v int64) any {
	switch g.r.Intn(12) {
	case 0:
		return int(v)
	case 1:
		return int32(v)
	case 2:
		return json.Number(strconv.FormatInt(v, 10))
	case 3:
		g.count("span:uint bound")
		return uint(max(v, 0))
	case 4:
		g.count("span:double bound")
		return float64(v)
	case 5:
		g.count("span:json.Number with a fraction")
		return json.Number(strconv.FormatInt(v, 10) + ".0")
	case 6:
		return int8(v)
	}
	return v
}

// oddSpans are span entries over a content of n code points: overlapping
// and touching each other, negative, past the end, of extreme bounds, of
// odd Go types (oddBound), missing or nil.
func (g *SessionGen) oddSpans(n int) []map[string]any {
	out := []map[string]any{}
	prevEnd := int64(0)
	for range g.r.Intn(6) {
		var start, end int64
		switch g.r.Intn(7) {
		case 0: // touching the previous one
			start = prevEnd
			g.count("span:touching")
		case 1: // overlapping it
			start = max(prevEnd-1-int64(g.r.Intn(2)), -1)
			g.count("span:overlapping")
		case 2:
			start = -int64(g.r.Intn(3)) - 1
		case 3:
			start = int64(n + g.r.Intn(3))
		default:
			start = int64(g.r.Intn(n + 1))
		}
		end = start + int64(g.r.Intn(5)) - 1
		if g.chance(8) {
			end = int64(n) + 1
		}
		m := map[string]any{"start": g.oddBound(start), "end": g.oddBound(end)}
		switch g.r.Intn(12) {
		case 0:
			m["start"] = int64(math.MinInt64)
		case 1:
			m["end"] = int64(math.MaxInt64)
		case 2:
			m["end"] = nil
		case 3:
			delete(m, "start")
		}
		prevEnd = end
		out = append(out, m)
	}
	return out
}

// showSpans writes span entries with their Go types.
func showSpans(l []map[string]any) string {
	var parts []string
	for _, m := range l {
		var kv []string
		for _, k := range sortedKeys(m) {
			kv = append(kv, fmt.Sprintf("%s: %T(%v)", k, m[k], m[k]))
		}
		parts = append(parts, "{"+strings.Join(kv, ", ")+"}")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
