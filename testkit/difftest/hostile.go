// This file owns the hostile generator: expressions over the oarc-tier
// functions and facts the other generators never call (the URL functions
// of spec 5.11 on hostile URLs, local_hour and local_weekday on odd zones,
// calls_within and tool_calls_within on odd windows, content,
// batch_tools, tenant), macros whose bodies fail for some elements in
// either order, && and || absorbing errors from both sides, string
// functions on invalid UTF-8, int overflow, division by zero, equality of
// lists and maps mixing numeric types, `in` on maps keyed by every numeric
// type; and inputs whose tool_args hold host values outside the dyn
// representation (uint, int32, float32, []byte, typed slices, nil inside
// lists, NaN, -0.0, ints near 2^53 and 2^63).

package difftest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/oarc/oarc/testkit/wire"
)

// HostileGen generates expressions and inputs from a seeded source.
type HostileGen struct {
	r        *rand.Rand
	profiles map[string]bool
	tags     map[string]bool
	sessions int
}

// NewHostileGen returns a hostile generator with the given seed.
func NewHostileGen(seed int64) *HostileGen { return &HostileGen{r: rand.New(rand.NewSource(seed))} }

// NewHostileGenFrom returns a hostile generator drawing from r.
func NewHostileGenFrom(r *rand.Rand) *HostileGen { return &HostileGen{r: r} }

func (g *HostileGen) pick(l ...string) string { return l[g.r.Intn(len(l))] }
func (g *HostileGen) chance(n int) bool       { return g.r.Intn(n) == 0 }

// Tags returns the productions the last expression used, sorted.
func (g *HostileGen) Tags() []string { return slices.Sorted(maps.Keys(g.tags)) }

// When returns a bool expression and the profiles it reads.
func (g *HostileGen) When() (string, []string) {
	g.profiles = map[string]bool{}
	g.tags = map[string]bool{}
	e := g.bool(2)
	var ps []string
	for p := range g.profiles {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return e, ps
}

func (g *HostileGen) bool(d int) string {
	if d <= 0 || g.chance(3) {
		return g.atom()
	}
	a, b := g.bool(d-1), g.bool(d-1)
	switch g.r.Intn(6) {
	case 0:
		return "(" + a + " && " + b + ")"
	case 1:
		return "(" + a + " || " + b + ")"
	case 2:
		return "!(" + a + ")"
	case 3:
		return "(" + g.atom() + " ? " + a + " : " + b + ")"
	}
	g.tags["absorb"] = true
	return g.pick("(false && "+a+")", "(true || "+a+")", "("+a+" && false)", "("+a+" || true)", "("+a+" == "+b+")", "("+a+" != "+b+")")
}

var hostileAtoms = []struct {
	name string
	gen  func(g *HostileGen) string
}{
	{"url", (*HostileGen).url},
	{"url", (*HostileGen).url},
	{"time", (*HostileGen).timeAtom},
	{"content", (*HostileGen).content},
	{"batch", (*HostileGen).batch},
	{"tenant", (*HostileGen).tenant},
	{"macro-err", (*HostileGen).macroErr},
	{"overflow", (*HostileGen).overflow},
	{"numeq", (*HostileGen).numEq},
	{"mapin", (*HostileGen).mapIn},
	{"host", (*HostileGen).host},
	{"host", (*HostileGen).host},
	{"utf8", (*HostileGen).utf8},
	{"regex", (*HostileGen).regex},
	{"ternary-err", (*HostileGen).ternaryErr},
	{"strext", (*HostileGen).strExt},
}

// HostileTags are the hostile generator's productions.
var HostileTags = func() []string {
	var out []string
	seen := map[string]bool{"absorb": true}
	for _, a := range hostileAtoms {
		if !seen[a.name] {
			seen[a.name] = true
			out = append(out, a.name)
		}
	}
	return append(out, "absorb")
}()

func (g *HostileGen) atom() string {
	a := hostileAtoms[g.r.Intn(len(hostileAtoms))]
	g.tags[a.name] = true
	return "(" + a.gen(g) + ")"
}

// tool reads the tool fact (profile tool).
func (g *HostileGen) tool() string {
	g.profiles["tool"] = true
	return "tool"
}

// str is a string expression read from the input.
func (g *HostileGen) str() string {
	g.profiles["tool"] = true
	return g.pick("tool", `tool_arg_string("u")`, "string(tool_args.u)", `("HTTP://" + tool)`, "tool.trim()", "tool.lowerAscii()",
		`tool_arg_string("s")`, "tool_args.s")
}

func (g *HostileGen) url() string {
	arg := g.str()
	if g.chance(4) {
		arg = strconv.Quote(hostileURLs[g.r.Intn(len(hostileURLs))])
	}
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("url_host(%s) == %s", arg, g.pick(`"example.com"`, `""`, `"::1"`, `"a b"`, `"exa%mple.com"`, `"éxample.com"`, `"fe80::1%en0"`, "tool"))
	case 1:
		return fmt.Sprintf("url_scheme(%s) %s", arg, g.pick(`== "http"`, `== "https"`, `.startsWith("h")`, `== tool`))
	case 2:
		return fmt.Sprintf("url_port(%s) %s", arg, g.pick("== 80", "== 443", "> 65535", "== 0", "< 0", "+ 1 > 0"))
	case 3:
		return fmt.Sprintf("url_path(%s) %s", arg, g.pick(`== "/"`, `.contains("%")`, `== "/a%20b"`, `.startsWith("/")`, `== tool`))
	case 4:
		return fmt.Sprintf("size(url_host(%s)) %s size(url_path(%s))", arg, g.pick("<", "==", ">="), arg)
	}
	return fmt.Sprintf("url_host(%s) + url_path(%s) == %s", arg, arg, g.str())
}

func (g *HostileGen) zone() string {
	if g.chance(8) {
		// Constants that are no literal: an unknown zone must be the
		// error at the call, as for a computed name.
		return g.pick(`true ? "Nowhere" : "UTC"`, `false ? "Nowhere" : "UTC"`, `dyn("Nowhere")`, `["UTC", "Nowhere"][1]`, `"utc".upperAscii()`, `"UTC".lowerAscii()`, `"Europe/" + ("Par" + "is")`, `"".trim()`)
	}
	if g.chance(3) {
		return strconv.Quote(g.pick("UTC", "Europe/Paris", "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Etc/GMT+12", "Etc/GMT-14",
			"America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "Africa/Casablanca"))
	}
	g.profiles["tool"] = true
	return g.pick("tool", `tool_arg_string("z")`, "tool_args.z", "tool.upperAscii()", `("Europe/" + tool)`)
}

func (g *HostileGen) window() string {
	if g.chance(8) {
		return g.pick("true ? 0 : 60", "false ? 0 : 60", "dyn(0)", "[0, 60][0]", "[0, 60][1]", `{"a": 86401}.a`, `int("86401")`, "int(1.5)", "int(0.5)", `size("")`)
	}
	if g.chance(3) {
		return g.pick("1", "2", "60", "3600", "86400")
	}
	g.profiles["tool"] = true
	return g.pick(`tool_arg_int("n")`, "tool_args.n", "size(tool)", "86400 + size(tool)", "int(tool_args.d)", "size(tool) - 1")
}

func (g *HostileGen) timeAtom() string {
	op := g.pick(">", "<=", "==", ">=", "!=")
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("calls_within(%s) %s %d", g.window(), op, g.r.Intn(4))
	case 1:
		return fmt.Sprintf("tool_calls_within(%s, %s) %s %d", g.pick(`"a"`, `"read"`, g.tool(), `""`), g.window(), op, g.r.Intn(3))
	case 2:
		return fmt.Sprintf("local_hour(%s) %s %d", g.zone(), op, g.r.Intn(24))
	}
	return fmt.Sprintf("local_weekday(%s) %s %d", g.zone(), op, g.r.Intn(7))
}

func (g *HostileGen) content() string {
	g.profiles["content-safety"] = true
	g.profiles["tool"] = true // some productions compare with tool
	switch g.r.Intn(10) {
	case 0:
		return fmt.Sprintf("content.matches(%s)", g.pick(`"(?i)secret"`, `"^.$"`, `"\\x{fffd}"`, `"[^a]"`, `"^$"`))
	case 1:
		return fmt.Sprintf("size(content) %s %d", g.pick(">", "=="), g.r.Intn(4))
	case 2:
		return fmt.Sprintf("content.indexOf(%s) %s %d", g.str(), g.pick(">", "==", "<"), g.r.Intn(3)-1)
	case 3:
		return fmt.Sprintf("content.split(%s).size() > %d", g.pick(`""`, `"a"`, "tool", `"\xff"`), g.r.Intn(3))
	case 4:
		return fmt.Sprintf("content.lowerAscii() == %s", g.pick("content.upperAscii()", "tool", `"é"`))
	case 5:
		return fmt.Sprintf("content.substring(%d) == %s", g.r.Intn(4)-1, g.pick(`""`, `"a"`, "tool"))
	case 6:
		return fmt.Sprintf("content.charAt(%s) == %s", g.pick("0", "1", "size(content)", "size(content) + 1", "-1"), g.pick(`""`, `"a"`, `"é"`))
	case 7:
		return fmt.Sprintf("content.lastIndexOf(%s, %s) >= 0", g.pick(`""`, `"a"`, "tool"), g.pick("0", "1", "size(content)", "-1", "100"))
	case 8:
		return fmt.Sprintf("content.replace(%s, %s) == content", g.pick(`""`, `"a"`, "tool"), g.pick(`"x"`, `""`))
	}
	return fmt.Sprintf("content.trim().startsWith(%s)", g.pick(`""`, `"a"`, "tool"))
}

func (g *HostileGen) batch() string {
	g.profiles["tool"] = true
	switch g.r.Intn(8) {
	case 0:
		return "tool in batch_tools"
	case 1:
		return fmt.Sprintf("batch_tools.exists(t, url_host(t) == %s)", g.pick(`"example.com"`, `""`))
	case 2:
		return "batch_tools.exists_one(t, t == tool)"
	case 3:
		return fmt.Sprintf("batch_tools[%s] == tool", g.pick("0", "1", "-1", "size(batch_tools) - 1", "size(tool)"))
	case 4:
		return fmt.Sprintf("size(batch_tools) > %d", g.r.Intn(3))
	case 5:
		return fmt.Sprintf("batch_tools.map(t, 10 / size(t)).exists(n, n > %d)", g.r.Intn(4))
	case 6:
		return fmt.Sprintf("batch_tools.filter(t, t.startsWith(%s)) == %s", g.pick(`"a"`, `""`), g.pick(`["a"]`, "[]", "batch_tools"))
	}
	return fmt.Sprintf("batch_tools.all(t, tool_calls_within(t, %s) < 2)", g.window())
}

func (g *HostileGen) tenant() string {
	g.profiles["session"] = true
	g.profiles["tool"] = true // some productions read tool or batch_tools
	switch g.r.Intn(4) {
	case 0:
		return "tenant == " + g.pick(`""`, `"t"`, g.tool())
	case 1:
		return fmt.Sprintf("size(tenant) > %d", g.r.Intn(2))
	case 2:
		return "tenant in " + g.pick(`["t", ""]`, "batch_tools")
	}
	return fmt.Sprintf("url_host(tenant) == %s", g.pick(`"t"`, `""`))
}

// dynList is a list expression of dyn elements, from the input or a
// literal that mixes types.
func (g *HostileGen) dynList() string {
	if g.chance(2) {
		g.profiles["tool"] = true
		return g.pick("tool_args.l", "tool_args.a", "tool_args.b")
	}
	return "dyn(" + g.pick("[0, 1]", "[1, 0]", `[1, "a"]`, `["a", 1]`, "[2, 0, 5]", "[1u, 0u]", "[0.0, 1.0]", `[null, 1]`, "[[1], 0]", "[1, 2.0, 3u]") + ")"
}

// macroErr is a macro whose body fails for some elements: the error must
// be absorbed or not exactly as cel-go does, in either order.
func (g *HostileGen) macroErr() string {
	l := g.dynList()
	body := g.pick("10 / x > 1", "10 / x == 5", "x > 0", "x == 1", "int(x) > 0", "size(x) > 0", "x.a == 1", "x[0] == 1", "x + 1 > 1", "x != null && 10 / x > 1")
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("%s.exists(x, %s)", l, body)
	case 1:
		return fmt.Sprintf("%s.all(x, %s)", l, body)
	case 2:
		return fmt.Sprintf("%s.exists_one(x, %s)", l, body)
	case 3:
		return fmt.Sprintf("%s.filter(x, %s).size() > 0", l, body)
	case 4:
		return fmt.Sprintf("%s.map(x, %s).exists(y, y)", l, body)
	}
	if l[0] == 't' {
		// The first element of a map's keys is cel-go's Go map order,
		// which is random: the oracle's answer would change from one
		// run to the next (docs/cel-semantics.md).
		l = fmt.Sprintf("(type(%s) == map ? dyn([]) : %s)", l, l)
	}
	return fmt.Sprintf("%s.map(x, 10 / x)[0] == %s", l, g.dynPick("10", "10u", "10.0", "1"))
}

func (g *HostileGen) intExpr() string {
	g.profiles["tool"] = true
	return g.pick(`tool_arg_int("n")`, `tool_arg_int("a")`, "int(tool_args.n)", "size(tool)", "9223372036854775807", "-9223372036854775807 - 1", "int(tool_args.d)")
}

func (g *HostileGen) overflow() string {
	a, b := g.intExpr(), g.intExpr()
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("%s %s %s > 0", a, g.pick("+", "-", "*", "/", "%"), b)
	case 1:
		return fmt.Sprintf("-(%s) < 0", a)
	case 2:
		return fmt.Sprintf("%s / -1 != 0", a)
	case 3:
		return fmt.Sprintf("%s %% -1 == 0", a)
	case 4:
		return fmt.Sprintf("tool_args.n %s tool_args.%s == tool_args.n", g.pick("+", "-", "*", "/", "%"), g.pick("n", "a", "d", "b"))
	case 5:
		return fmt.Sprintf("uint(tool_args.%s) > 0u", g.pick("n", "a", "d"))
	case 6:
		return fmt.Sprintf("double(tool_args.%s) %s 9007199254740992.0", g.pick("n", "a", "d"), g.pick("==", "<", ">"))
	}
	return fmt.Sprintf("tool_args.d %s %s", g.pick("/", "*", "-"), g.pick("0.0 == 0.0", "tool_args.d > 0.0", "-0.0 < 0.0"))
}

func (g *HostileGen) numEq() string {
	g.profiles["tool"] = true
	lhs := g.pick("tool_args.l", "tool_args.a", "tool_args.m", "dyn([1, 2])", `dyn({"a": 1})`, "[tool_args.n]")
	rhs := g.dynPick("[1, 2.0]", "[1u, 2u]", "[1.0, 2]", `{"a": 1.0}`, `{"a": 1u}`, "[]", "{}", "[null]", "[9007199254740993]", "[9007199254740992.0]",
		"[-0.0]", "[0]", "[tool_args.d]", "tool_args.b", `[[1], {"a": 1}]`)
	op := g.pick("==", "!=")
	if g.chance(4) {
		return fmt.Sprintf("%s in [%s, %s]", lhs, rhs, g.pick("1", `"a"`, "[]"))
	}
	return fmt.Sprintf("%s %s %s", lhs, op, rhs)
}

func (g *HostileGen) mapIn() string {
	g.profiles["tool"] = true
	key := g.dynPick("tool_args.n", "tool_args.a", "tool_args.d", "tool_args.b", "1", "1u", "1.0", "-0.0", "9007199254740993", "18446744073709551615u", "2.5", `"1"`, "null", "true")
	m := g.pick(`{1: "a", 2u: "b", 3.0: "c"}`, `dyn({0: 1})`, `dyn({0.0: 1})`, `dyn({0u: 1})`, `{-1: 1, 1u: 2}`, `dyn({9007199254740992: 1})`, `{true: 1, "a": 2}`, "tool_args.m", "tool_args")
	switch g.r.Intn(3) {
	case 0:
		return fmt.Sprintf("%s in %s", key, m)
	case 1:
		return fmt.Sprintf("%s[%s] == %s", m, key, g.dynPick(`"a"`, "1", "2", "1.0", `"c"`))
	}
	return fmt.Sprintf("has(%s.a) == (%q in %s)", m, "a", m)
}

// dynPick is one of l, inside dyn() so that cel-go's checker takes any
// operand with it.
func (g *HostileGen) dynPick(l ...string) string {
	return "dyn(" + g.pick(l...) + ")"
}

// host reads tool_args values of any host type with every operation.
func (g *HostileGen) host() string {
	g.profiles["tool"] = true
	v := "tool_args." + g.pick("a", "b", "l", "m", "n", "d")
	switch g.r.Intn(16) {
	case 0:
		return v + " == " + g.pick("1", "1u", "1.0", `"a"`, "null", "[]", "{}", "true", "-0.0", "[1]")
	case 1:
		return v + g.pick(" < ", " >= ") + g.pick("1", "1u", "1.0", `"a"`)
	case 2:
		return fmt.Sprintf("size(%s) > %d", v, g.r.Intn(3))
	case 3:
		return fmt.Sprintf("%s[%s] == %s", v, g.pick("0", "1", "0u", "0.0", `"a"`, "-1"), g.pick("1", "null", `"a"`, "1.0"))
	case 4:
		return fmt.Sprintf("string(%s) == %s", v, g.pick(`"1"`, `""`, `"a"`, `"-0"`, `"NaN"`))
	case 5:
		return fmt.Sprintf("int(%s) == %s", v, g.pick("1", "0", "9007199254740993"))
	case 6:
		return fmt.Sprintf("%s in %s", g.pick("1", "1u", "1.0", `"a"`, "null"), v)
	case 7:
		return fmt.Sprintf("%s.exists(x, x == %s)", v, g.pick("1", "null", `"a"`, "1u"))
	case 8:
		return fmt.Sprintf("has(%s.a)", v)
	case 9:
		return fmt.Sprintf("tool_arg_int(%q) > 0", g.pick("a", "b", "l", "m", "n", "d"))
	case 10:
		return fmt.Sprintf("tool_arg_string(%q) == %s", g.pick("a", "b", "l", "m", "n", "d"), g.pick(`""`, `"a"`))
	case 11:
		return fmt.Sprintf("tool_arg_bool(%q)", g.pick("a", "b", "l", "m", "n", "d"))
	case 12:
		return fmt.Sprintf("double(%s) != double(%s)", v, v)
	case 13:
		return fmt.Sprintf("%s == %s", v, "tool_args."+g.pick("a", "b", "l", "m", "n", "d"))
	case 14:
		return fmt.Sprintf("type(%s) == %s", v, g.pick("int", "uint", "double", "bytes", "list", "map", "string", "null_type"))
	}
	if g.chance(2) {
		// Arithmetic of every numeric type on host values: uint and
		// double operands, and the int64 and uint64 ends.
		return fmt.Sprintf("%s %s %s %s %s", g.pick(v, "-"+v), g.pick("+", "-", "*", "/", "%"), g.pick("1u", "1.0", "0u", "0.0", "-1", "-1.0", "18446744073709551615u", "9223372036854775807", "-9223372036854775808", v),
			g.pick("==", "<", ">=", "!="), g.pick(v, "0", "0u", "0.0"))
	}
	return fmt.Sprintf("%s %s 1 == %s", v, g.pick("+", "-", "*", "/", "%"), v)
}

func (g *HostileGen) utf8() string {
	s := g.str()
	switch g.r.Intn(10) {
	case 0:
		return fmt.Sprintf("%s.lowerAscii() == %s.upperAscii()", s, s)
	case 1:
		return fmt.Sprintf("%s.split(%s).size() > 1", s, g.pick(`""`, `"\xff"`, `"b"`, `"\ufffd"`))
	case 2:
		return fmt.Sprintf("%s.indexOf(%s) %s", s, g.pick(`""`, `"\ufffd"`, `"c"`, `"é"`), g.pick("> 0", "== 1", "< 0"))
	case 3:
		return fmt.Sprintf("size(%s) %s %d", s, g.pick("==", ">"), g.r.Intn(4))
	case 4:
		return fmt.Sprintf("%s.matches(%s)", s, g.pick(`"^.$"`, `"^..$"`, `"\\x{fffd}"`, `"^[^x]*$"`, `"."`))
	case 5:
		return fmt.Sprintf("%s.replace(%s, %s) == %s", s, g.pick(`""`, `"\ufffd"`, `"b"`), g.pick(`"x"`, `""`), g.pick(s, `"x"`, `"xbx"`))
	case 6:
		return fmt.Sprintf("%s.charAt(%d) == %s", s, g.r.Intn(4), g.pick(`"\ufffd"`, `"b"`, `""`))
	case 7:
		return fmt.Sprintf("%s.substring(%d, %d) == %s", s, g.r.Intn(3), g.r.Intn(4), g.pick(`"\ufffd"`, `"b"`, `""`))
	case 8:
		return fmt.Sprintf("[%s, %s].join(%s) == %s", s, g.pick(`"a"`, s), g.pick(`""`, `"\xff"`), g.pick(`"a"`, s))
	}
	return fmt.Sprintf("%s.lastIndexOf(%s) == %d", s, g.pick(`""`, `"\ufffd"`, `"b"`), g.r.Intn(4)-1)
}

// regexPatterns are constant patterns (compiled ahead of time: the
// runtime's DFA, literal plans, or regexp) at the edges of RE2: case
// folding with special folds (k K U+212A, s S U+017F), \b next to
// non-ASCII runes, (?m) with \r\n, $ before a trailing \n, invalid
// UTF-8 against . and classes, and empty-width assertions under repetition.
var regexPatterns = []string{`(?i)k`, `(?i)^k$`, `(?i)\x{212a}`, `(?i)^s$`, `(?i)\x{17f}`, `(?i)[k-s]`, `(?i)straße`, `(?i)^ss$`,
	`\bé`, `é\b`, `\Ba`, `\b`, `^\b$`, `(?m)^b$`, `(?m)a$`, `(?m)^$`, `a$`, `a\z`, `(?s)a.b`, `a.b`, `(?m)b\r$`, `\r\n$`,
	`^.$`, `^[^a]$`, `^\x{fffd}$`, `[\x{80}-\x{10ffff}]`, `(?:\b)*a`, `(?:^|$)+`, `(?:\B|a)+b`, `(?:$)*\n`, `^(?:a|)*$`,
	`(?U)a+?$`, `^\pL+$`, `[[:^alpha:]]`, `\W`, `(?i)[^k]`, `^\S*$`, `(?i)É`, `日|本`, `^(?:K|k)$`}

// regex matches input strings against constant and computed patterns.
func (g *HostileGen) regex() string {
	s := g.str()
	if g.chance(3) {
		s = g.pick("content", "string(tool_args.b)", "tool_args.l[0]")
		g.profiles["content-safety"] = true
	}
	if g.chance(6) {
		// A computed pattern: maybe not a valid one.
		return fmt.Sprintf("%s.matches(%s)", s, g.pick("tool", "tool_args.s", `"(?i)" + tool`, `tool + "$"`, "tool_args.a"))
	}
	if g.chance(6) {
		// A pattern of constants that is no literal (the compiler
		// checks literals and their concatenation): valid or not, it
		// must fail, if at all, as cel-go fails, never at init.
		return fmt.Sprintf("%s.matches(%s)", s, g.pick(`true ? "(" : "a"`, `false ? "(" : "a"`, `dyn("(")`, `["(", "a"][1]`, `["(", "a"][0]`,
			`{"k": "["}.k`, `"(".lowerAscii()`, `"A".lowerAscii()`, `string(1)`, `"" + "("`, `"a" + ("(" + ")")`, `["a", "("].join("")`, `"a)".substring(1)`, `"\\" + "Q"`))
	}
	p := strconv.Quote(regexPatterns[g.r.Intn(len(regexPatterns))])
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("!%s.matches(%s)", s, p)
	case 1:
		return fmt.Sprintf("%s.matches(%s) == %s.matches(%s)", s, p, g.str(), strconv.Quote(regexPatterns[g.r.Intn(len(regexPatterns))]))
	case 2:
		return fmt.Sprintf("matches(%s, %s)", s, p)
	}
	return fmt.Sprintf("%s.matches(%s)", s, p)
}

// strExt calls the strings extension's functions in their other forms
// (an offset, a count, a range) with arguments at and past the ends, on
// strings of every kind, invalid UTF-8 included: offsets count code points.
func (g *HostileGen) strExt() string {
	s, t := g.str(), g.pick(`""`, `"a"`, `"b"`, `"\ufffd"`, `"é"`, "tool", `"\xff"`)
	i := g.pick("0", "1", "2", "-1", "size(tool)", "size(tool) + 1", "size(tool) - 1", `tool_arg_int("n")`, "100")
	j := g.pick("0", "1", "3", "-1", "size(tool)", "size(tool) + 1", "9223372036854775807")
	switch g.r.Intn(9) {
	case 0:
		return fmt.Sprintf("%s.indexOf(%s, %s) %s %d", s, t, i, g.pick("==", ">=", "<"), g.r.Intn(3)-1)
	case 1:
		return fmt.Sprintf("%s.lastIndexOf(%s, %s) %s %d", s, t, i, g.pick("==", ">=", "<"), g.r.Intn(3)-1)
	case 2:
		return fmt.Sprintf("%s.split(%s, %s).size() %s %d", s, t, j, g.pick("==", ">"), g.r.Intn(3))
	case 3:
		return fmt.Sprintf("%s.replace(%s, %s, %s) == %s", s, t, g.pick(`"x"`, `""`, `"\xff"`), j, g.pick(s, `"x"`, `""`, "tool"))
	case 4:
		return fmt.Sprintf("%s.substring(%s, %s) == %s", s, i, j, g.pick(`""`, `"a"`, `"\ufffd"`, "tool"))
	case 5:
		return fmt.Sprintf("%s.substring(%s) == %s", s, i, g.pick(`""`, `"a"`, "tool"))
	case 6:
		return fmt.Sprintf("%s.split(%s, %s)[%s] == %s", s, t, j, g.pick("0", "1", "-1"), g.pick(`""`, `"a"`, "tool"))
	case 7:
		return fmt.Sprintf("%s.join(%s) == %s", g.pick(`[tool, ""]`, "[]", `[""]`, `tool.split("")`, `batch_tools`, `[tool_arg_string("s")]`), t, g.pick(`""`, "tool", `"a"`))
	}
	return fmt.Sprintf("%s.trim() %s %s.trim()", s, g.pick("==", "!="), g.str())
}

// ternaryErr is a conditional whose condition or branches fail: only the
// branch taken may fail the whole.
func (g *HostileGen) ternaryErr() string {
	g.profiles["tool"] = true
	cond := g.pick("10 / size(tool) > 1", "tool_args.n > 0", "int(tool_args.d) == 0", "tool_args.m.a == 1", "tool.matches(tool)", `url_port(tool) == 80`, "tool_args.l[1] == 1", "true", "false")
	br := func() string {
		return g.pick("10 / size(tool) > 1", "tool_args.n + 1 > 0", "tool_args.b == 1", "[1][size(tool)] == 1", "true", "false", `{"a": 1}[tool] == 1`, `local_hour(tool) > 3`)
	}
	switch g.r.Intn(3) {
	case 0:
		return fmt.Sprintf("(%s) ? (%s) : (%s)", cond, br(), br())
	case 1:
		return fmt.Sprintf("((%s) ? %s : %s) == %s", cond, g.pick("1", "tool_args.n", "size(tool)", "1.0", `"a"`), g.pick("2", "tool_args.a", "10 / size(tool)", "1u"), g.pick("1", "2", "tool_args.n"))
	}
	return fmt.Sprintf("[(%s) ? %s : %s, %s].exists(x, x)", cond, br(), br(), br())
}

// hostileURLs are URL strings at the edges of net/url and of the spec's
// reading of it.
var hostileURLs = []string{
	"http://example.com", "HTTPS://EXAMPLE.COM:443/A", "http://[::1]:8080/p", "http://[::1]/", "http://[fe80::1%25en0]:80/x",
	"http://user:pw@example.com/", "http://user@[::1]:1/", "http://example.com:99999999999999999999/", "http://example.com:65536",
	"http://example.com:/", "http://example.com:0/", "http://exa%20mple.com/", "http://ex%41mple.com/", "http://example.com/a%20b?q#f",
	"http://example.com/a b", "http://example.com/%zz", "mailto:a@example.com", "http:example.com", "http:///path", "//example.com/",
	"example.com", "", " http://example.com", "http://example.com\t", "http://exa\x00mple.com/", "http://\u00e9xample.com/É",
	"http://[::1", "http://example.com:-1/", "http://example.com:+80/", "ht tp://example.com", "HTTP://EXAMPLE.COM", "http://@/",
	"http://:80/", "file:///etc/passwd", "http://example.com:080/", "http://127.0.0.1:8080", "http://%5B::1%5D/", "http://a\xffb/",
	"http://example.com/\xff", "http://example.com/%2F..%2F", "ws://Example.Com:9223372036854775807/", "http://example.com:9223372036854775808/",
	"http://xn--e1afmkfd.xn--p1ai/", "http://EXAMPLE.com./", "http://[::ffff:127.0.0.1]/", "http://user:p@ss@host/", "http://host:8080:90/",
	"http://a\\b/", "http:\\\\example.com\\x", "HTTP://example.com:0443/", "http://example.com:65535", "http://[2001:db8::1]:65536/",
	"http://%31%32%37.0.0.1/", "https://example.com:443", "https://:443/", "http://ex ample.com", "http://example.com#frag", "http://example.com?q",
	"javascript:alert(1)", "data:text/plain,hi", "http://[::1]:/", "http://[v1.x]/", "http://例え.jp/", "http://ÉXAMPLE.COM/", "http://EXAMPLE.COM%2F/",
	"https://example.com:00000000000000000000443/", "http://example.com:٣/", "http://0x7f.1/", "HtTpS://ExAmPlE.cOm", "http://example.com/%", "http://[::1]x/",
	"http://user%40x@example.com/", "http://example.com/a?b=%zz", "git+ssh://git@example.com:22/x", "http://example.com:-0/", "http://example.com:1e2/",
}

var hostileZones = []string{"UTC", "utc", "", "Local", "Europe/Paris", "Europe/paris", "Paris", "Etc/GMT+12", "Etc/GMT-14", "Asia/Kathmandu",
	"Pacific/Chatham", "America/St_Johns", "../UTC", "/etc/localtime", "UTC ", "EST5EDT", "Factory", "\xff", "Europe/Paris\x00",
	"America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "Africa/Casablanca", "Asia/Kolkata", "America/Sao_Paulo", "GMT", "Etc/UTC"}

var hostileStrings = []string{"", "a", "b", "é", "\xff", "b\xffc", "\xc3", "\ufffd", "a\u0000b", "ÉCOLE", " a ", "日本", "😀", "\xed\xa0\x80", "aaa",
	"K", "\u212a", "\u017f", "S", "a\r\nb", "a\n", "b\r\n", "\n", "éa", "straße", "STRASSE", "ß"}

// hostValue is a tool_args value of any host type, the dyn representation
// and beyond it.
func (g *HostileGen) hostValue(d int) any {
	switch g.r.Intn(25) {
	case 0:
		return nil
	case 1:
		return uint64([]uint64{0, 1, 2, 10, math.MaxUint64, 1 << 63, 1 << 53}[g.r.Intn(7)])
	case 2:
		return int32([]int32{0, 1, -1, math.MaxInt32, math.MinInt32}[g.r.Intn(5)])
	case 3:
		return float32([]float32{0, 1, 1.5, -0.5, float32(math.Inf(1)), float32(math.NaN()), 16777217}[g.r.Intn(7)])
	case 4:
		return []byte(g.pick("", "a", "\xff"))
	case 5:
		return []int64{1, 0}
	case 6:
		return []string{g.pick(hostileStrings...), "a"}
	case 7:
		return []any{nil, int64(1)}
	case 8:
		return math.NaN()
	case 9:
		return math.Copysign(0, -1)
	case 10:
		return []int64{1<<53 + 1, 1 << 53, math.MaxInt64, math.MinInt64, -(1 << 53) - 1}[g.r.Intn(5)]
	case 11:
		return []float64{9007199254740992, 9223372036854775807, 1.8446744073709552e19, 1e300, math.Inf(-1), 1.0, 0.5}[g.r.Intn(7)]
	case 12:
		return g.pick(hostileStrings...)
	case 13:
		return int64(g.r.Intn(4) - 1)
	case 14:
		return g.chance(2)
	case 15:
		if d > 0 {
			return map[string]any{"a": g.hostValue(d - 1), "b": g.hostValue(d - 1)}
		}
	case 16:
		if d > 0 {
			return []any{g.hostValue(d - 1), g.hostValue(d - 1)}
		}
	case 17:
		return []any{int64(1), 2.0, uint64(3)}
	case 18:
		return int(g.r.Intn(3))
	case 19:
		return uint32(g.r.Intn(3))
	case 20:
		return int8(-1)
	case 21:
		return []uint64{0, math.MaxUint64}
	case 22:
		return []float64{math.NaN(), 1}
	case 23:
		switch g.r.Intn(7) {
		case 0:
			return json.Number(g.pick("1", "-0", "1.5", "9007199254740993", "18446744073709551615", "1e2"))
		case 1:
			return map[string]string{"a": g.pick(hostileStrings...)}
		case 2:
			return map[string]int64{"a": 1, "b": math.MinInt64}
		case 3:
			return map[int64]string{1: "a", 0: "b"}
		case 4:
			return map[string]float64{"a": math.NaN(), "b": math.Copysign(0, -1)}
		case 5:
			return map[int64]any{1: g.hostValue(0), -1: nil}
		}
		return map[float64]any{1.5: "a", 1: int64(1), math.Copysign(0, -1): true}
	}
	return float64(g.r.Intn(3))
}

// Input returns a hostile input: the tool a hostile URL, zone or string,
// tool_args of host values, content, a time, a batch, a tenant, and a
// session of its own with a history of calls.
func (g *HostileGen) Input() Input {
	var in Input
	switch g.r.Intn(3) {
	case 0:
		in.Facts.Tool = hostileURLs[g.r.Intn(len(hostileURLs))]
	case 1:
		in.Facts.Tool = hostileZones[g.r.Intn(len(hostileZones))]
	default:
		in.Facts.Tool = g.pick(hostileStrings...)
	}
	if !g.chance(8) {
		args := map[string]any{}
		for _, k := range []string{"a", "b", "l", "m", "n", "d", "s", "u", "z"} {
			if g.chance(4) {
				continue
			}
			var v any
			switch k {
			case "u":
				v = hostileURLs[g.r.Intn(len(hostileURLs))]
			case "z":
				v = hostileZones[g.r.Intn(len(hostileZones))]
			case "s":
				v = g.pick(hostileStrings...)
			case "n":
				v = []int64{0, 1, -1, 86400, 86401, math.MaxInt64, math.MinInt64, 1 << 53}[g.r.Intn(8)]
			case "l":
				v = []any{int64(g.r.Intn(3) - 1), g.hostValue(1)}
			case "m":
				v = map[string]any{"a": g.hostValue(1)}
			default:
				v = g.hostValue(2)
			}
			if g.chance(5) {
				v = g.hostValue(2)
			}
			args[k] = v
		}
		in.Facts.ToolArgs = args
	}
	g.sessions++
	in.Session = fmt.Sprintf("hostile%d", g.sessions)
	base := time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC).Add(time.Duration(g.r.Intn(48*3600)) * time.Second)
	if g.chance(4) {
		base = g.edgeTime()
	}
	in.Time = base
	for i := g.r.Intn(6); i > 0; i-- {
		// Calls at the windows' edges (t - N < time <= t), a nanosecond
		// either side, after the occurrence, and without a time.
		ago := time.Duration(g.r.Intn(90000)) * time.Second
		if g.chance(2) {
			ago = time.Duration([]int{0, 1, 2, 60, 3600, 86400, 86401, -1}[g.r.Intn(8)]) * time.Second
			ago += time.Duration(g.r.Intn(3)-1) * time.Duration([]int64{1, int64(time.Millisecond)}[g.r.Intn(2)])
		}
		h := wire.HistoryCall{Tool: g.pick("a", "read", in.Facts.Tool, ""), Time: base.Add(-ago)}
		if g.chance(6) {
			h.Time = time.Time{}
		}
		in.History = append(in.History, h)
	}
	if g.chance(40) {
		// Past the record's bound: the oldest calls are dropped.
		for i := 0; i < 4100; i++ {
			in.History = append(in.History, wire.HistoryCall{Tool: g.pick("a", "read"), Time: base.Add(-time.Duration(4100-i) * time.Second)})
		}
	}
	if !g.chance(4) {
		// Mostly in order; otherwise as a host with a skewed clock gives
		// them.
		sort.SliceStable(in.History, func(i, j int) bool { return in.History[i].Time.Before(in.History[j].Time) })
	}
	in.Content = g.pick(hostileStrings...) + g.pick(hostileStrings...)
	if g.chance(2) {
		in.Batch = []string{g.pick(hostileURLs...)}
		if g.chance(2) {
			in.Batch = append(in.Batch, g.pick(hostileStrings...))
		}
	}
	if g.chance(2) {
		in.Tenant = g.pick("t", "T", "http://t/", "\xff")
	}
	return in
}

// edgeTimes are occurrence times at the edges: of Unix nanoseconds (the
// int64 range ends in 1677 and 2262), of the Unix epoch (0 ns), of years
// (0001, 9999), at the DST changes of zones other than Europe's, and in
// a location that is not UTC.
var edgeTimes = []time.Time{
	time.Unix(0, 0).UTC(), time.Unix(0, 1).UTC(), time.Unix(0, -1).UTC(), time.Unix(1, 0).UTC(),
	time.Unix(0, math.MaxInt64).UTC(), time.Unix(0, math.MinInt64).UTC(),
	time.Unix(0, math.MaxInt64).Add(time.Second).UTC(), time.Unix(0, math.MinInt64).Add(-time.Second).UTC(),
	time.Date(2300, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(1600, 6, 1, 3, 0, 0, 0, time.UTC),
	time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 6, 59, 59, 999999999, time.UTC),
	time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), time.Date(2026, 4, 4, 15, 0, 0, 0, time.UTC),
	time.Date(2026, 10, 4, 2, 0, 0, 0, time.FixedZone("X", 10*3600+1800)), time.Date(2026, 12, 31, 23, 59, 59, 0, time.FixedZone("Y", -12*3600)),
	time.Date(2038, 1, 19, 3, 14, 8, 0, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 500000000, time.UTC),
}

func (g *HostileGen) edgeTime() time.Time { return edgeTimes[g.r.Intn(len(edgeTimes))] }

// HostileOptions configures a hostile differential run.
type HostileOptions struct {
	Seed        int64
	Expressions int
	PackSize    int
	Inputs      int
}

// HostileDifferential runs a seeded differential test of the hostile
// generator's expressions and inputs.
func HostileDifferential(o HostileOptions) (*DiffReport, error) {
	return runDifferential(NewHostileGen(o.Seed), o.Expressions, o.PackSize, o.Inputs, true)
}
