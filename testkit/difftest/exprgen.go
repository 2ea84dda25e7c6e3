// This file owns the random generator of differential testing: well-typed
// `when` expressions over part of the catalog, aimed at the places where
// generated code and cel-go could part ways (errors and their absorption,
// overflow, dyn values, strings, comprehensions), and fact values chosen
// from the edges (nil, empty, extreme ints, NaN, wrong dynamic types,
// invalid UTF-8).

package difftest

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/testkit/wire"
)

// Gen generates expressions and facts from a seeded source.
type Gen struct {
	r        *rand.Rand
	profiles map[string]bool
	vars     []genVar
	depth    int
	// Classic keeps to the first generator's distribution: none of the
	// biased productions (biased.go), in expressions or in facts.
	Classic bool
	// biased is set for the current expression when it may use the
	// biased productions; tags are the ones it used.
	biased bool
	tags   map[string]bool
}

type genVar struct{ name, typ string }

// NewGen returns a generator with the given seed.
func NewGen(seed int64) *Gen { return &Gen{r: rand.New(rand.NewSource(seed))} }

// NewGenFrom returns a generator drawing from r.
func NewGenFrom(r *rand.Rand) *Gen { return &Gen{r: r} }

func (g *Gen) pick(l ...string) string { return l[g.r.Intn(len(l))] }
func (g *Gen) chance(n int) bool       { return g.r.Intn(n) == 0 }

// When returns a bool expression and the profiles it reads.
// A third of the expressions keep to the first generator's distribution;
// the others may use the biased productions at any node, and one in a
// sixty is a long &&/|| chain.
func (g *Gen) When() (string, []string) {
	g.profiles = map[string]bool{}
	g.vars = nil
	g.depth = 0
	g.tags = map[string]bool{}
	g.biased = !g.Classic && !g.chance(3)
	var e string
	if g.biased && g.chance(60) {
		e = g.chain()
	} else {
		e = g.expr("bool", 4)
	}
	var ps []string
	for p := range g.profiles {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return e, ps
}

var genFacts = map[string][]struct{ name, profile string }{
	"int":          {{"lycaon.fruitless_search_run", ""}, {"lycaon.active_worker_count", ""}, {"content_length", "content-safety"}},
	"string":       {{"lycaon.last_assistant", ""}, {"lycaon.phase", ""}, {"tool", "tool"}},
	"bool":         {{"lycaon.workers_idle", ""}, {"lycaon.tool_is_state", ""}},
	"double":       {{"prompt_injection_score", "content-safety"}, {"jailbreak_score", "content-safety"}},
	"list(string)": {{"lycaon.turn_tools", ""}, {"principal_roles", "session"}},
}

var argKeys = []string{"a", "b", "n", "s", "l", "m"}

func (g *Gen) fact(t string) string {
	l := genFacts[t]
	f := l[g.r.Intn(len(l))]
	if f.profile != "" {
		g.profiles[f.profile] = true
	}
	return f.name
}

func (g *Gen) varOf(t string) string {
	var c []string
	for _, v := range g.vars {
		if v.typ == t {
			c = append(c, v.name)
		}
	}
	if len(c) == 0 {
		return ""
	}
	return c[g.r.Intn(len(c))]
}

func (g *Gen) toolArgs() string {
	g.profiles["tool"] = true
	return "tool_args"
}

// dynExpr is an expression of type dyn.
func (g *Gen) dynExpr(d int) string {
	if v := g.varOf("dyn"); v != "" && g.chance(2) {
		return v
	}
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("%s[%q]", g.toolArgs(), g.pick(argKeys...))
	case 1:
		if d > 0 {
			return fmt.Sprintf("%s.%s[%s]", g.toolArgs(), g.pick("l", "m", "a"), g.pick("0", "1", `"a"`, "-1", "0.0"))
		}
	case 2:
		g.profiles["content-safety"] = true
		return fmt.Sprintf("secret_matches[%s].%s", g.pick("0", "1"), g.pick("start", "end", "score"))
	}
	return fmt.Sprintf("%s.%s", g.toolArgs(), g.pick(argKeys...))
}

func (g *Gen) lit(t string) string {
	switch t {
	case "int":
		return g.pick("0", "1", "-1", "2", "3", "7", "10", "100", "9223372036854775807", "-9223372036854775808", "4611686018427387904", "-2")
	case "double":
		return g.pick("0.0", "1.0", "0.5", "-1.5", "1e308", "-1e308", "3.0", "1e19", "2.5")
	case "string":
		return g.pick(`""`, `"a"`, `"abc"`, `"héllo"`, `"日本"`, `"ABC"`, `"a,b,c"`, `"  x "`, `"42"`, `"-7"`, `"1.5"`, `"1e3"`, `"true"`, `"b"`)
	case "bool":
		return g.pick("true", "false")
	case "list(string)":
		return g.pick(`[]`, `["a"]`, `["a", "b"]`, `["", "héllo"]`)
	}
	return "null"
}

func (g *Gen) expr(t string, d int) string {
	if newTypes[t] || g.biased && g.chance(2) {
		return g.newExpr(t, d)
	}
	if d <= 0 || g.chance(4) {
		return g.leaf(t)
	}
	d--
	switch t {
	case "bool":
		return g.boolExpr(d)
	case "int":
		switch g.r.Intn(11) {
		case 0, 1:
			return fmt.Sprintf("(%s %s %s)", g.expr("int", d), g.pick("+", "-", "*", "/", "%"), g.expr("int", d))
		case 2:
			return fmt.Sprintf("-(%s)", g.expr("int", d))
		case 3:
			return fmt.Sprintf("size(%s)", g.expr(g.pick("string", "list(string)"), d))
		case 4:
			return fmt.Sprintf("int(%s)", g.expr(g.pick("double", "string"), d))
		case 5:
			g.profiles["tool"] = true
			return fmt.Sprintf("tool_arg_int(%q)", g.pick(argKeys...))
		case 6:
			return fmt.Sprintf("(%s ? %s : %s)", g.expr("bool", d), g.expr("int", d), g.expr("int", d))
		case 7:
			return fmt.Sprintf("int(%s)", g.dynExpr(d))
		case 8:
			return fmt.Sprintf("%s.indexOf(%s)", g.expr("string", d), g.expr("string", d))
		case 9:
			return fmt.Sprintf("%s.indexOf(%s, %s)", g.expr("string", d), g.expr("string", d), g.expr("int", d))
		}
		return fmt.Sprintf("%s.size()", g.expr("string", d))
	case "double":
		switch g.r.Intn(5) {
		case 0, 1:
			return fmt.Sprintf("(%s %s %s)", g.expr("double", d), g.pick("+", "-", "*", "/"), g.expr("double", d))
		case 2:
			return fmt.Sprintf("double(%s)", g.expr(g.pick("int", "string"), d))
		case 3:
			return fmt.Sprintf("-(%s)", g.expr("double", d))
		}
		return fmt.Sprintf("double(%s)", g.dynExpr(d))
	case "string":
		switch g.r.Intn(10) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr("string", d), g.expr("string", d))
		case 1:
			return fmt.Sprintf("string(%s)", g.expr(g.pick("int", "double", "bool"), d))
		case 2:
			return fmt.Sprintf("%s.%s()", g.expr("string", d), g.pick("lowerAscii", "upperAscii", "trim"))
		case 3:
			return fmt.Sprintf("%s.replace(%s, %s)", g.expr("string", d), g.lit("string"), g.lit("string"))
		case 4:
			g.profiles["tool"] = true
			return fmt.Sprintf("tool_arg_string(%q)", g.pick(argKeys...))
		case 5:
			return fmt.Sprintf("(%s ? %s : %s)", g.expr("bool", d), g.expr("string", d), g.expr("string", d))
		case 6:
			return fmt.Sprintf("%s[%s]", g.expr("list(string)", d), g.expr("int", d))
		case 7:
			return fmt.Sprintf("%s.join(%s)", g.pick(`["a", "b"]`, `[]`, `["x"]`), g.lit("string"))
		case 8:
			return fmt.Sprintf("string(%s)", g.dynExpr(d))
		}
		return fmt.Sprintf("%s.replace(%s, %s, %s)", g.expr("string", d), g.lit("string"), g.lit("string"), g.pick("0", "1", "-1"))
	case "list(string)":
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprintf("%s.split(%s)", g.expr("string", d), g.pick(`","`, `""`, `"a"`))
		case 1:
			return fmt.Sprintf("(%s + %s)", g.expr("list(string)", d), g.lit("list(string)"))
		case 2:
			return fmt.Sprintf("[%s, %s]", g.expr("string", d), g.expr("string", d))
		}
		return g.leaf("list(string)")
	}
	return g.leaf(t)
}

func (g *Gen) leaf(t string) string {
	if v := g.varOf(t); v != "" && g.chance(2) {
		return v
	}
	if t == "bool" && g.chance(3) {
		g.profiles["tool"] = true
		if g.biased {
			// Parenthesised, for the biased productions' comparisons of
			// bools.
			return g.pick("has(tool_args.a)", `("n" in tool_args)`, "has(tool_args.m.a)")
		}
		return g.pick("has(tool_args.a)", `"n" in tool_args`, "has(tool_args.m.a)")
	}
	if g.chance(2) {
		return g.lit(t)
	}
	if t == "bool" || t == "int" || t == "string" || t == "double" || t == "list(string)" {
		return g.fact(t)
	}
	return g.lit(t)
}

func (g *Gen) boolExpr(d int) string {
	switch g.r.Intn(16) {
	case 0:
		return fmt.Sprintf("(%s && %s)", g.expr("bool", d), g.expr("bool", d))
	case 1:
		return fmt.Sprintf("(%s || %s)", g.expr("bool", d), g.expr("bool", d))
	case 2:
		return fmt.Sprintf("!(%s)", g.expr("bool", d))
	case 3:
		t := g.pick("int", "double", "string")
		return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.pick("==", "!=", "<", "<=", ">", ">="), g.expr(t, d))
	case 4:
		return fmt.Sprintf("(%s %s %s)", g.dynExpr(d), g.pick("==", "!=", "<", ">="), g.expr(g.pick("int", "double", "string", "bool"), d))
	case 5:
		return fmt.Sprintf("(%s == %s)", g.dynExpr(d), g.dynExpr(d))
	case 6:
		return fmt.Sprintf("%s.%s(%s)", g.expr("string", d), g.pick("contains", "startsWith", "endsWith"), g.expr("string", d))
	case 7:
		return fmt.Sprintf("%s.matches(%s)", g.expr("string", d), g.pick(`"^a"`, `"b+"`, `"[0-9]"`, `"\\p{L}"`, `"^$"`))
	case 8:
		return fmt.Sprintf("(%s in %s)", g.expr("string", d), g.expr("list(string)", d))
	case 9:
		return g.comprehension(d)
	case 10:
		return fmt.Sprintf("(%s ? %s : %s)", g.expr("bool", d), g.expr("bool", d), g.expr("bool", d))
	case 11:
		e := fmt.Sprintf("(%s %s %s)", g.dynExpr(d), g.pick("+", "-", "*", "/"), g.dynExpr(d))
		if g.biased {
			// cel-go types dyn op dyn as one overload's result, so that
			// a comparison with another type is often a type error; the
			// biased expressions wrap it.
			return "(dyn" + e + g.pick(" == 0", " > 1", " == 1.0", ` == "ab"`) + ")"
		}
		return e + g.pick(" == 0", " > 1", " == 1.0", ` == "ab"`)
	case 12:
		g.profiles["tool"] = true
		return fmt.Sprintf("tool_arg_bool(%q)", g.pick(argKeys...))
	case 13:
		g.profiles["tool"] = true
		return fmt.Sprintf("(%s in %s)", g.dynExpr(d), g.pick("[1, 2]", `["a", 1.0]`, `{"a": 1}`, "tool_args.l"))
	case 14:
		return fmt.Sprintf("(size(%s) > %s)", g.dynExpr(d), g.lit("int"))
	}
	return fmt.Sprintf("%s.matches(%s)", g.lit("string"), g.expr("string", d))
}

func (g *Gen) comprehension(d int) string {
	name := fmt.Sprintf("v%d", len(g.vars))
	macro := g.pick("all", "exists", "exists_one")
	var rng, typ string
	switch g.r.Intn(4) {
	case 0:
		rng, typ = g.fact("list(string)"), "string"
	case 1:
		rng, typ = g.pick("tool_args.l", "tool_args", "tool_args.m", "tool_args.n"), "dyn"
		g.profiles["tool"] = true
	case 2:
		rng, typ = "secret_matches", "map"
		g.profiles["content-safety"] = true
	default:
		rng, typ = g.expr("list(string)", 1), "string"
	}
	g.vars = append(g.vars, genVar{name, typ})
	defer func() { g.vars = g.vars[:len(g.vars)-1] }()
	var body string
	if typ == "map" {
		body = fmt.Sprintf("%s.%s %s %s", name, g.pick("score", "start", "kind"), g.pick(">", "==", "<"), g.pick("0.5", "1", `"x"`))
	} else {
		body = g.expr("bool", min(d, 2))
	}
	if g.chance(4) {
		return fmt.Sprintf("(%s.filter(%s, %s).size() %s 1)", rng, name, body, g.pick(">=", "=="))
	}
	if g.chance(5) && typ != "map" {
		return fmt.Sprintf("(%s.map(%s, %s).size() == %s)", rng, name, body, g.pick("0", "1", "2"))
	}
	return fmt.Sprintf("%s.%s(%s, %s)", rng, macro, name, body)
}

// Input is one random occurrence: fact values and the host's providers.
type Input struct {
	Facts lycaon.Facts
	// Providers answer the provider-backed functions as
	// [wire.Request.Providers] does: a function not listed has no
	// provider, a listed one answers an argument it does not list with
	// the zero value.
	Providers map[string]map[string]any
	// Session names the occurrence's session in the runner ("": the one
	// session every input without a name shares there); the reference
	// starts afresh for each input, so an input that reads the session
	// (its history) names a session of its own.
	Session string
	// Time is the occurrence's time (zero: the clock's), History the
	// session's calls before it, Content its content, Tenant the
	// session's tenant. Batch, when not nil, makes the occurrence the
	// first action of a check (spec 5.11) whose other actions are alike
	// but for their tools, Batch's.
	Time    time.Time
	History []wire.HistoryCall
	Content string
	Batch   []string
	Tenant  string
}

// Input returns random facts and providers for the expressions. Each
// provider-backed function is absent, present without answers, or present
// with answers for some of the arguments the expressions pass.
func (g *Gen) Input() Input {
	in := Input{Facts: g.Facts()}
	if g.Classic {
		return in
	}
	in.Providers = map[string]map[string]any{}
	for _, f := range providerFns {
		switch g.r.Intn(4) {
		case 0:
			continue
		case 1:
			in.Providers[f.name] = map[string]any{}
			continue
		}
		answers := map[string]any{}
		for _, a := range append(append([]string{}, providerArgs...), g.str(), g.str()) {
			if g.chance(2) {
				continue
			}
			switch f.result {
			case "bool":
				answers[a] = g.chance(2)
			case "string":
				answers[a] = g.pick("x", "", "ok", "a", "-0")
			case "int":
				answers[a] = g.int()
			}
		}
		in.Providers[f.name] = answers
	}
	return in
}

// Facts returns random fact values for the facts the expressions read.
func (g *Gen) Facts() lycaon.Facts {
	var f lycaon.Facts
	if !g.chance(8) {
		f.Lycaon.FruitlessSearchRun = g.int()
	}
	f.Lycaon.ActiveWorkerCount = g.int()
	f.ContentLength = g.int()
	f.Lycaon.LastAssistant = g.str()
	f.Lycaon.Phase = g.str()
	f.Tool = g.str()
	f.Lycaon.WorkersIdle = g.chance(2)
	f.Lycaon.ToolIsState = g.chance(2)
	f.PromptInjectionScore = g.double()
	f.JailbreakScore = g.double()
	f.Lycaon.TurnTools = g.strs()
	f.PrincipalRoles = g.strs()
	if !g.chance(6) {
		f.ToolArgs = map[string]any{}
		for _, k := range argKeys {
			if g.chance(3) {
				continue
			}
			f.ToolArgs[k] = g.dyn(2)
		}
		if !g.Classic && g.chance(2) {
			for _, k := range argKeys {
				if g.chance(3) {
					f.ToolArgs[k] = g.newDyn(2)
				}
			}
		}
	}
	if !g.chance(4) {
		n := g.r.Intn(3)
		for i := 0; i < n; i++ {
			m := map[string]any{}
			for _, k := range []string{"start", "end", "score", "kind"} {
				if !g.chance(4) {
					m[k] = g.dyn(0)
				}
			}
			f.SecretMatches = append(f.SecretMatches, m)
		}
	}
	return f
}

func (g *Gen) int() int64 {
	switch g.r.Intn(6) {
	case 0:
		return []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, -(1 << 62)}[g.r.Intn(6)]
	case 1:
		return g.r.Int63() - g.r.Int63()
	}
	return int64(g.r.Intn(7) - 2)
}

func (g *Gen) double() float64 {
	l := []float64{0, math.Copysign(0, -1), 0.5, 1, 1.5, 3, -2.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e19, -1e19, 9.2e18, 0.93, 1e308}
	return l[g.r.Intn(len(l))]
}

func (g *Gen) str() string {
	l := []string{"", "a", "abc", "héllo", "日本", "ABC", "a,b,c", "  x ", "42", "-7", "1.5", "1e3", "(", "\xff\xfe", "b\xffc", "true", "aaa", "b", "9223372036854775808", "NaN", "-0", "😀x", "\t"}
	return l[g.r.Intn(len(l))]
}

func (g *Gen) strs() []string {
	if g.chance(4) {
		return nil
	}
	n := g.r.Intn(4)
	out := make([]string, n)
	for i := range out {
		out[i] = g.str()
	}
	return out
}

// newDyn is a dyn value of the shapes the biased productions look at:
// lists that mix strings with bools (a non-bool macro predicate), empty
// and nested maps, maps with the fields a macro variable named lycaon
// selects, mixed numbers and negative zero.
func (g *Gen) newDyn(d int) any {
	switch g.r.Intn(12) {
	case 0:
		return []any{"a", true}
	case 1:
		return []any{"a", false}
	case 2:
		return map[string]any{}
	case 3:
		return map[string]any{"a": map[string]any{"b": int64(1)}}
	case 4:
		return map[string]any{"x": g.dyn(1), "phase": g.pick("p", "")}
	case 5:
		return []any{map[string]any{"x": int64(1)}, map[string]any{"x": "a", "y": map[string]any{}}}
	case 6:
		return []any{int64(1), 2.0, true}
	case 7:
		return math.Copysign(0, -1)
	case 8:
		return []any{true, true}
	case 9:
		if d > 0 {
			return []any{g.newDyn(d - 1), g.dyn(d - 1)}
		}
	case 10:
		return []any{}
	}
	return map[string]any{"a": true, "b": []any{"a", true}}
}

func (g *Gen) dyn(d int) any {
	switch g.r.Intn(12) {
	case 0:
		return nil
	case 1:
		return g.chance(2)
	case 2, 3:
		return g.int()
	case 4:
		return g.double()
	case 5, 6:
		return g.str()
	case 7:
		if d > 0 {
			n := g.r.Intn(4)
			l := make([]any, n)
			for i := range l {
				l[i] = g.dyn(d - 1)
			}
			return l
		}
	case 8:
		if d > 0 {
			m := map[string]any{}
			for _, k := range []string{"a", "b"} {
				if g.chance(2) {
					m[k] = g.dyn(d - 1)
				}
			}
			return m
		}
	case 9:
		return float64(g.r.Intn(5))
	case 10:
		return strconv.Itoa(g.r.Intn(10))
	}
	return strings.Repeat("a", g.r.Intn(3))
}
