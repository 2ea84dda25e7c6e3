package conformance

// Random host catalogs (spec 9), a generator of its own beside
// codegen/hostile_test.go's, biased elsewhere: the YAML a host writes
// (flow and block styles, every quoting style, block scalars, aliases,
// comments, types and signatures spelled with odd spacing and line
// breaks), descriptions, titles and the other free texts with quotes,
// backticks, comment delimiters, line breaks, control, bidirectional and
// non-ASCII characters, names that are Go keywords or predeclared
// identifiers or collide once CamelCased, very long names, functions of
// one to four arguments of every type; and catalogs one step outside the
// spec (a name differing only by case, a Unicode letter, a type the spec
// does not have, a function of no or five arguments, ...).
//
// Every catalog oarc rejects must be rejected with OAR_CATALOG at a
// position, never a panic. Every catalog it accepts, with a pack whose
// rules read every fact and call every function, goes through `oarc
// check` and `oarc gen`; the generated files must start with the
// generated-code header, be gofmt-clean, and build and vet in one module.
// The rules are then evaluated with random host values, inside and
// outside what the facts' types hold (NaN, infinities, -0, the int64
// extremes, invalid UTF-8, nil lists and maps, nils nested in dyn values,
// Go integer and float types the dyn representation does not have), and
// random provider answers (of the wrong type, nil, failing, panicking), by
// the generated code and by the interpreter: the decisions must agree.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/long"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// rcTypes are the types of spec 3, the only ones a catalog may declare.
var rcTypes = []string{"string", "int", "bool", "double", "list(string)", "map(string, dyn)", "list(map(string, dyn))"}

// rcBadTypes are types of CEL that spec 3 does not have.
var rcBadTypes = []string{"dyn", "bytes", "timestamp", "duration", "uint", "null", "list(int)", "list(list(string))",
	"map(int, dyn)", "map(bool, string)", "map(string, string)", "list(dyn)", "optional(string)", "string?", "List(string)", "STRING", "map(string dyn)", "list(string", ""}

var (
	rcGoWords = strings.Fields(`type func string len error nil iota break case chan const continue default defer else
		fallthrough for go goto if import interface map package range return select struct switch var
		any append bool byte cap clear close comparable complex copy delete false float64 imag int int64
		make max min new panic print real recover rune true uint uintptr`)
	rcPlain  = strings.Fields("a b x1 x_1 x__1 x1_ ab a_b a__b ab_ _ set get valid facts env anchor host_facts providers")
	rcLetter = "abcdefghijklmnopqrstuvwxyz0123456789_"
)

// rcCELFunctions are CEL's own function names (a host function host.f
// that is one of them is refused, docs/hosts.md).
var rcCELFunctions = func() map[string]bool {
	env, err := cel.NewEnv(ext.Strings())
	if err != nil {
		panic(err)
	}
	names := map[string]bool{}
	for name := range env.Functions() {
		names[name] = true
	}
	return names
}()

var (
	rcNameRE   = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	rcAnchorRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)
	rcCELWords = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields("as break const continue else false for function if import in let loop package namespace null return true var void while") {
		rcCELWords[w] = true
	}
}

type rcFact struct{ name, typ string }

type rcFunc struct {
	name   string
	params []string
	result string
}

type rcCatalog struct {
	host    string
	anchors []rcAnchor
	facts   []rcFact
	funcs   []rcFunc
	yaml    string
	// bad, when not "", is the one step outside the spec the catalog
	// takes: oarc must reject it.
	bad string
}

type rcAnchor struct {
	id     string
	planes []string
}

type rcGen struct {
	r *rand.Rand
	// aliases numbers the YAML anchors (&a1, ...) of the current catalog.
	aliases int
	// typeAlias maps a type to the YAML alias of an earlier spelling.
	typeAlias map[string]string
	// aliasing: the catalog uses YAML anchors and aliases, which oarc
	// refuses in every YAML file (docs/choices-frontend.md).
	aliasing bool
}

func (g *rcGen) pick(l []string) string { return l[g.r.Intn(len(l))] }
func (g *rcGen) chance(n int) bool      { return g.r.Intn(n) == 0 }

// name is a fact or function name spec 9's pattern allows, mostly from
// the pools.
func (g *rcGen) name() string {
	switch g.r.Intn(6) {
	case 0, 1:
		return g.pick(rcGoWords)
	case 2:
		return g.pick(rcPlain)
	case 3:
		// Very long.
		var b strings.Builder
		b.WriteByte(byte('a' + g.r.Intn(26)))
		for n := 60 + g.r.Intn(400); b.Len() < n; {
			b.WriteByte(rcLetter[g.r.Intn(len(rcLetter))])
		}
		return b.String()
	}
	b := []byte{byte('a' + g.r.Intn(26))}
	for n := g.r.Intn(8); len(b) < n; {
		b = append(b, rcLetter[g.r.Intn(len(rcLetter))])
	}
	return string(b)
}

// lookalike is a name that differs from s by an "_" or a digit only, so
// that both CamelCase alike or nearly.
func (g *rcGen) lookalike(s string) string {
	i := 1 + g.r.Intn(len(s))
	switch g.r.Intn(4) {
	case 0:
		return s[:i] + "_" + s[i:]
	case 1:
		return strings.Replace(s, "_", "", 1)
	case 2:
		return s + "_"
	}
	return strings.ReplaceAll(s, "_", "__")
}

func rcValidName(s string) bool {
	return rcNameRE.MatchString(s) && !rcCELWords[s] && !catalog.IsReserved(s)
}

func rcValidHost(s string) bool {
	return rcNameRE.MatchString(s) && !rcCELWords[s] && !catalog.IsMapFact(s) && len(s) <= 255
}

// typ is a type of spec 3, spelled as a host might (spaces, tabs, line
// breaks where the spelling allows them).
func (g *rcGen) spell(t string) string {
	switch g.r.Intn(5) {
	case 0:
		return strings.ReplaceAll(t, " ", "")
	case 1:
		t = strings.ReplaceAll(t, "(", "( ")
		return strings.ReplaceAll(t, ")", " )")
	case 2:
		return strings.ReplaceAll(strings.ReplaceAll(t, ", ", " ,\t"), "(", "(\n")
	}
	return t
}

// text is a free text (description, title, ...) biased to what breaks
// generated comments and strings.
func (g *rcGen) text() string {
	pieces := []string{"plain words", `"quoted"`, "it's", "`backtick`", "*/", "/*", "// not a comment", "\n", "\n\n", "\t", "é", "日本語",
		"\u202e", "\u2028", "\u200b", "\ufeff", "\x00", "\x7f", "\u0085", "%s %d", `\`, "}", "#", "- item", "  indented", "trailing  ", "🐺", "\r", "\u00a0", ":", "{a: b}", "&x", "*y", "'", `\n`}
	var b strings.Builder
	for n := g.r.Intn(6); n > 0; n-- {
		b.WriteString(g.pick(pieces))
	}
	return b.String()
}

// scalar renders s as a YAML scalar in a style that round-trips it:
// double-quoted with escapes always does; single-quoted when s has only
// printable characters and no line break; a literal block in block
// context when s is printable and has line breaks.
func (g *rcGen) scalar(s string, block bool, indent string) string {
	printable := true
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xfeff || r == 0x2028 || r == 0x2029 || r == '\r' || r == 0x202e || r == 0x200b {
			printable = false
		}
	}
	lead := s == "" || strings.TrimLeft(s, " \t\n") != s || strings.TrimRight(s, " \t\n") != s
	switch {
	case printable && !strings.Contains(s, "\n") && g.chance(2):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case printable && block && !lead && strings.Contains(s, "\n") && !strings.Contains(s, "\t") && g.chance(2):
		var b strings.Builder
		b.WriteString("|-\n")
		for _, l := range strings.Split(s, "\n") {
			if l == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(indent + l + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == 0:
			b.WriteString(`\0`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0xfeff || r == 0x2028 || r == 0x2029 || r == 0x202e || r == 0x200b:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// nameScalar renders a name: plain when YAML reads it as a string.
func (g *rcGen) nameScalar(s string) string {
	if rcNameRE.MatchString(s) && !slices.Contains([]string{"y", "n", "yes", "no", "on", "off", "null", "true", "false"}, s) && g.chance(2) {
		return s
	}
	return g.scalar(s, false, "")
}

// typeScalar renders a type, sometimes through a YAML alias of an
// earlier spelling of it.
func (g *rcGen) typeScalar(t string) string {
	if a, ok := g.typeAlias[t]; ok && g.aliasing {
		g.aliasing = false
		return "*" + a
	}
	s := g.scalar(g.spell(t), false, "")
	if g.aliasing {
		g.aliases++
		a := fmt.Sprintf("t%d", g.aliases)
		g.typeAlias[t] = a
		return "&" + a + " " + s
	}
	return s
}

// entry renders one list entry of fields, flow or block style.
func (g *rcGen) entry(b *strings.Builder, kv [][2]string) {
	if g.chance(2) {
		var parts []string
		for _, f := range kv {
			parts = append(parts, f[0]+": "+f[1])
		}
		b.WriteString("  - {" + strings.Join(parts, ", ") + "}\n")
		return
	}
	for i, f := range kv {
		pre := "    "
		if i == 0 {
			pre = "  - "
		}
		b.WriteString(pre + f[0] + ": " + f[1] + "\n")
	}
}

func (g *rcGen) comment(b *strings.Builder) {
	if g.chance(4) {
		b.WriteString("  # " + yamlPrintable(g.text()) + "\n")
	}
}

// yamlPrintable keeps of s what a YAML comment may hold on one line.
func yamlPrintable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff {
			return -1
		}
		return r
	}, s)
}

// catalog draws a catalog; with bad, one step outside the spec.
func (g *rcGen) catalog(bad bool) rcCatalog {
	g.aliases, g.typeAlias, g.aliasing = 0, map[string]string{}, false
	c := rcCatalog{}
	for c.host == "" || !rcValidHost(c.host) {
		c.host = g.pick(append([]string{"acme", "type", "func", "string", "len", "error", "nil", "iota", "main", "init", "runtime", "context", "fmt"}, rcGoWords...))
		if g.chance(4) {
			c.host = g.name()
		}
	}
	planes := []string{"block", "inform", "transform"}
	ids := map[string]bool{}
	for n := 1 + g.r.Intn(4); len(c.anchors) < n; {
		id := g.name()
		for g.chance(2) {
			id += "." + g.pick([]string{"pre", "1", "_x", "z", g.name()})
		}
		if ids[id] || !rcAnchorRE.MatchString(id) {
			continue
		}
		ids[id] = true
		a := rcAnchor{id: id}
		for _, i := range g.r.Perm(3)[:1+g.r.Intn(3)] {
			a.planes = append(a.planes, planes[i])
		}
		c.anchors = append(c.anchors, a)
	}
	taken := map[string]bool{}
	var last string
	draw := func(fn bool) string {
		for tries := 0; tries < 100; tries++ {
			s := g.name()
			if last != "" && g.chance(2) {
				s = g.lookalike(last)
			}
			if !rcValidName(s) || taken[s] || fn && rcCELFunctions[c.host+"."+s] {
				continue
			}
			if _, kept := catalog.KeptByName[s]; kept {
				continue
			}
			taken[s], last = true, s
			return s
		}
		return ""
	}
	for n := g.r.Intn(9); n > 0; n-- {
		if s := draw(false); s != "" {
			c.facts = append(c.facts, rcFact{s, g.pick(rcTypes)})
		}
	}
	for n := g.r.Intn(5); n > 0; n-- {
		if s := draw(true); s != "" {
			fn := rcFunc{name: s, result: g.pick(rcTypes)}
			for k := 1 + g.r.Intn(4); k > 0; k-- {
				fn.params = append(fn.params, g.pick(rcTypes))
			}
			c.funcs = append(c.funcs, fn)
		}
	}
	var mutate func(kind string, kv [][2]string, i int) [][2]string
	if bad {
		c.bad = g.pick([]string{"upper", "unicode", "badtype", "badsig", "noargs", "fiveargs", "dup", "reserved", "celword", "unknownfield", "badplane", "badanchor", "emptyplanes", "dupanchor", "hostcase", "nofield", "alias"})
		if c.bad == "alias" {
			g.aliasing = true
			if len(c.facts) == 0 {
				c.facts = append(c.facts, rcFact{"f", "string"})
			}
		}
		if c.bad == "dupanchor" && len(c.anchors) < 2 {
			c.bad = "badanchor"
		}
		if (c.bad == "upper" || c.bad == "unicode" || c.bad == "badtype" || c.bad == "dup" || c.bad == "reserved" || c.bad == "celword" || c.bad == "nofield") && len(c.facts) == 0 {
			c.facts = append(c.facts, rcFact{"f", "string"})
		}
		if (c.bad == "badsig" || c.bad == "noargs" || c.bad == "fiveargs") && len(c.funcs) == 0 {
			c.funcs = append(c.funcs, rcFunc{"g", []string{"string"}, "bool"})
		}
		target := 0
		switch c.bad {
		case "upper", "unicode", "badtype", "dup", "reserved", "celword", "nofield":
			target = g.r.Intn(max(len(c.facts), 1))
		case "badsig", "noargs", "fiveargs":
			target = g.r.Intn(len(c.funcs))
		default:
			target = g.r.Intn(len(c.anchors))
		}
		mutate = func(kind string, kv [][2]string, i int) [][2]string {
			if i != target {
				return kv
			}
			set := func(k, v string) {
				for j := range kv {
					if kv[j][0] == k {
						kv[j][1] = v
					}
				}
			}
			switch {
			case kind == "fact" && c.bad == "upper":
				// Differs from a valid name by case only.
				set("name", g.scalar(strings.ToUpper(c.facts[i].name[:1])+c.facts[i].name[1:], false, ""))
			case kind == "fact" && c.bad == "unicode":
				set("name", g.scalar(g.pick([]string{"é", "ñame", "naïve", "日本", "x\u0301", "ǅ", "ſ", "K"}), false, ""))
			case kind == "fact" && c.bad == "badtype":
				set("type", g.scalar(g.pick(rcBadTypes), false, ""))
			case kind == "fact" && c.bad == "dup" && len(c.funcs) > 0 && g.chance(2):
				set("name", g.scalar(c.funcs[0].name, false, ""))
			case kind == "fact" && c.bad == "dup":
				kv = append(kv[:0:0], kv...)
				kv = append(kv, [2]string{"#dup", ""})
			case kind == "fact" && c.bad == "reserved":
				set("name", g.pick([]string{"tool", "tool_args", "anchor", "fire_count", "path_outside_scope", "content_length"}))
			case kind == "fact" && c.bad == "celword":
				set("name", g.pick([]string{"in", "as", "package", "namespace", "while", "'null'", "'true'"}))
			case kind == "fact" && c.bad == "nofield":
				kv = kv[:1]
			case kind == "function" && c.bad == "badsig":
				set("signature", g.scalar(g.pick([]string{"(string) => bool", "string -> bool", "(string, ) -> bool", "(string) ->", "(bytes) -> bool", "(string) -> dyn", "(string) -> bool -> int", "((string)) -> bool", "(string)"}), false, ""))
			case kind == "function" && c.bad == "noargs":
				set("signature", g.scalar(g.pick([]string{"() -> bool", "( ) -> int", "()->string"}), false, ""))
			case kind == "function" && c.bad == "fiveargs":
				set("signature", g.scalar("(string, int, bool, double, list(string)) -> bool", false, ""))
			case kind == "anchor" && c.bad == "unknownfield":
				kv = append(kv, [2]string{g.pick([]string{"profiles", "Title", "descriptin", "type"}), "x"})
			case kind == "anchor" && c.bad == "badplane":
				set("planes", "[block, "+g.pick([]string{"Block", "ask", "allow", "warn", "'block '", "\"\""})+"]")
			case kind == "anchor" && c.bad == "badanchor":
				set("id", g.scalar(g.pick([]string{"Tool.pre", "1tool", "tool..pre", "tool.", ".tool", "tool-pre", "tööl", "tool.Pre", ""}), false, ""))
			case kind == "anchor" && c.bad == "emptyplanes":
				set("planes", "[]")
			case kind == "anchor" && c.bad == "dupanchor":
				set("id", g.scalar(c.anchors[(i+1)%len(c.anchors)].id, false, ""))
			case kind == "anchor" && c.bad == "hostcase":
				// Handled on the host line.
			}
			return kv
		}
	}
	var b strings.Builder
	b.WriteString("# " + yamlPrintable(g.text()) + "\n")
	b.WriteString("oar_catalog: '1.0'\n")
	host := g.nameScalar(c.host)
	if c.bad == "hostcase" {
		host = g.scalar(strings.ToUpper(c.host[:1])+c.host[1:], false, "")
	}
	b.WriteString("host: " + host + "\n")
	b.WriteString("anchors:\n")
	for i, a := range c.anchors {
		g.comment(&b)
		kv := [][2]string{{"id", g.nameScalar(a.id)}, {"planes", "[" + strings.Join(a.planes, ", ") + "]"}}
		for _, k := range []string{"trigger_class", "surface", "title", "fires_when"} {
			if g.chance(2) {
				kv = append(kv, [2]string{k, g.scalar(g.text(), false, "")})
			}
		}
		g.r.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
		if mutate != nil {
			kv = mutate("anchor", kv, i)
		}
		g.entry(&b, kv)
	}
	block := func(kv [][2]string) [][2]string {
		// A description in block style may be a literal block scalar.
		return kv
	}
	if len(c.facts) > 0 || g.chance(2) {
		b.WriteString("facts:")
		if len(c.facts) == 0 {
			b.WriteString(" []")
		}
		b.WriteString("\n")
	}
	for i, f := range c.facts {
		g.comment(&b)
		kv := [][2]string{{"name", g.nameScalar(f.name)}, {"type", g.typeScalar(f.typ)}}
		desc := ""
		if g.chance(3) {
			desc = g.text()
		}
		if mutate != nil {
			kv = mutate("fact", kv, i)
		}
		if len(kv) > 0 && kv[len(kv)-1][0] == "#dup" {
			// The same name twice: the later one is the error.
			kv = kv[:len(kv)-1]
			g.entry(&b, block(kv))
		}
		g.writeWithDesc(&b, kv, desc)
	}
	if len(c.funcs) > 0 || g.chance(2) {
		b.WriteString("functions:")
		if len(c.funcs) == 0 {
			b.WriteString(" []")
		}
		b.WriteString("\n")
	}
	for i, fn := range c.funcs {
		g.comment(&b)
		var ps []string
		for _, p := range fn.params {
			ps = append(ps, g.spell(p))
		}
		sep := g.pick([]string{", ", ",", " , ", ",\n", ",\t"})
		arrow := g.pick([]string{" -> ", "->", " ->\n", "\t->\t"})
		sig := "(" + strings.Join(ps, sep) + ")" + arrow + g.spell(fn.result)
		kv := [][2]string{{"name", g.nameScalar(fn.name)}, {"signature", g.scalar(sig, false, "")}}
		desc := ""
		if g.chance(3) {
			desc = g.text()
		}
		if mutate != nil {
			kv = mutate("function", kv, i)
		}
		g.writeWithDesc(&b, kv, desc)
	}
	c.yaml = b.String()
	return c
}

// writeWithDesc writes an entry with its description, when there is one:
// in block style the description may be a literal block scalar.
func (g *rcGen) writeWithDesc(b *strings.Builder, kv [][2]string, desc string) {
	if desc == "" {
		g.entry(b, kv)
		return
	}
	if g.chance(2) {
		g.entry(b, append(kv, [2]string{"description", g.scalar(desc, false, "")}))
		return
	}
	for i, f := range kv {
		pre := "    "
		if i == 0 {
			pre = "  - "
		}
		b.WriteString(pre + f[0] + ": " + f[1] + "\n")
	}
	b.WriteString("    description: " + g.scalar(desc, true, "      ") + "\n")
}

// rcTerm is a CEL condition on the value v of type t, chosen to meet the
// edges of the values: overflow, NaN, conversions, indexes out of range,
// dyn values of any type.
func (g *rcGen) term(v, t string) string {
	switch t {
	case "string":
		return g.pick([]string{v + ` == "é"`, "size(" + v + ") > 1", v + `.startsWith("a")`, v + `.contains("\xff")`, v + `.matches("^[a-z]*$")`,
			`int(` + v + `) > 0`, v + ` + "!" == "a!"`, v + ` in ["a", "", "NaN"]`, v + `.lowerAscii() != ` + v, `double(` + v + `) > 0.0`})
	case "int":
		return g.pick([]string{v + " > 0", v + " + 1 > " + v, v + " * 2 < 0", "-" + v + " < 0", "100 / " + v + " > 1", v + " % 7 == 3",
			"double(" + v + ") > 1e18", `string(` + v + `) == "1"`, "uint(" + v + ") > 1u", v + " == 9223372036854775807"})
	case "bool":
		return g.pick([]string{v, "!" + v, v + " == true", v + ` ? 1 / 0 == 0 : true`})
	case "double":
		return g.pick([]string{v + " > 0.5", v + " == " + v, v + " != " + v, "int(" + v + ") > 0", v + " * 2.0 > 1e308", `string(` + v + `) == "NaN"`,
			"uint(" + v + ") == 0u", v + " < -0.0", v + " == 0.0", "1.0 / " + v + " < 0.0"})
	case "list(string)":
		return g.pick([]string{`"a" in ` + v, "size(" + v + ") > 0", v + `.exists(e, e.startsWith("a"))`, v + `[0] == "a"`, v + `.all(e, size(e) < 5)`,
			v + ` + ["b"] == ["a", "b"]`, v + `.exists_one(e, e == "")`, v + `.filter(e, e != "").size() == 1`})
	case "map(string, dyn)":
		return g.pick([]string{`"k" in ` + v, "has(" + v + ".k)", v + ".k == 1", v + ".k > 0", v + `["k"] == "a"`, "size(" + v + ") > 0",
			v + ".exists(k, " + v + "[k] == null)", v + ".k.n == 1", "type(" + v + ".k) == int", "string(" + v + `.k) == "1"`,
			v + `.k in [1, 2.0, "a", null]`, v + ".all(k, k.size() > 0)", "size(" + v + ".k) > 0", v + ".k == " + v + ".k", "int(" + v + ".k) > 0",
			v + ".k[0] == 1", "1 in " + v + ".k", "dyn(" + v + ") == {}"})
	}
	return g.pick([]string{v + `.exists(m, "k" in m)`, "size(" + v + ") > 0 && " + v + "[0].k == 1", v + ".exists(m, m.k == 1)", v + ".all(m, size(m) > 0)",
		v + ".exists(m, has(m.k) && m.k == null)", v + `.map(m, m.k).exists(x, x == "a")`})
}

// rcLiteral is a CEL literal of type t.
var rcLiteral = map[string]string{"string": `"a"`, "int": "1", "bool": "true", "double": "1.5",
	"list(string)": `["a"]`, "map(string, dyn)": `{"k": 1}`, "list(map(string, dyn))": `[{"k": 1}]`}

// rcOffType are arguments of each parameter type that the checker lets
// through (dyn) but that are not of the type when the rule runs, some only
// past their first element or entry, which is all cel-go's runtime guard
// looks at.
var rcOffType = map[string][]string{
	"string": {`dyn(1)`, `dyn(null)`, `dyn(["a"])`},
	"int":    {`dyn(1.0)`, `dyn("1")`, `dyn(1u)`},
	"bool":   {`dyn("true")`, `dyn(0)`},
	"double": {`dyn(1)`, `dyn("1.5")`},
	"list(string)": {`dyn(["a", 1])`, `dyn([1, "a"])`, `["a", dyn(1)]`, `[dyn(null)]`, `dyn(["a", ["b"]])`, `dyn({"a": "b"})`,
		`dyn("a")`},
	"map(string, dyn)": {`dyn({"a": 1, 2: "b"})`, `{dyn(2): "b"}`, `{"a": 1, dyn(true): 2}`, `dyn(["a"])`, `dyn({1: {"a": 1}})`},
	"list(map(string, dyn))": {`dyn([{"k": 1}, 2])`, `[{dyn(2): 1}]`, `dyn([{"k": 1}, {1: 2}])`, `[{"k": 1}, dyn("m")]`,
		`dyn([[{"k": 1}]])`, `dyn({"k": 1})`},
}

// rcArgKey is the wire key of the literal arguments (wire.Answer).
var rcArgValue = map[string]any{"string": "a", "int": int64(1), "bool": true, "double": 1.5,
	"list(string)": []string{"a"}, "map(string, dyn)": map[string]any{"k": int64(1)}, "list(map(string, dyn))": []map[string]any{{"k": int64(1)}}}

// rcRule is a rule of the pack and where it fires.
type rcRule struct {
	id, anchor, effect, when string
}

// pack writes a pack whose rules, at the anchors that can have one,
// together read every fact and call every function (CEL's receiver
// macros aside: a call host.all(x, p) is the macro).
func (g *rcGen) pack(t testing.TB, c rcCatalog, dir string) []rcRule {
	var terms []string
	for _, f := range c.facts {
		for n := 1 + g.r.Intn(2); n > 0; n-- {
			terms = append(terms, g.term(c.host+"."+f.name, f.typ))
		}
	}
	for _, fn := range c.funcs {
		macro := map[string][]int{"all": {2}, "exists": {2}, "exists_one": {2}, "filter": {2}, "map": {2, 3}}[fn.name]
		if slices.Contains(macro, len(fn.params)) {
			continue
		}
		var args []string
		for _, p := range fn.params {
			arg := rcLiteral[p]
			// A fact of the argument's type, sometimes: the answer is then
			// looked up under its value.
			for _, f := range c.facts {
				if f.typ == p && g.chance(3) {
					arg = c.host + "." + f.name
				}
			}
			if g.chance(4) {
				// Through dyn: the argument's type is known only when the
				// rule runs.
				arg = "dyn(" + arg + ")"
			}
			if off := rcOffType[p]; len(off) > 0 && g.chance(5) {
				// Not of the parameter's type all through (the first
				// element may be): no_such_overload in both engines.
				arg = g.pick(off)
			}
			args = append(args, arg)
		}
		terms = append(terms, g.term(c.host+"."+fn.name+"("+strings.Join(args, ", ")+")", fn.result))
	}
	var usable []rcAnchor
	for _, a := range c.anchors {
		if slices.Contains(a.planes, "block") || slices.Contains(a.planes, "inform") {
			usable = append(usable, a)
		}
	}
	if len(usable) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pack.yaml", "oar: '1.0'\nname: randcat\n")
	var rules []rcRule
	g.r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
	for i := 0; i == 0 || len(terms) > 0; i++ {
		a := usable[g.r.Intn(len(usable))]
		r := rcRule{id: fmt.Sprintf("R%d", i), anchor: a.id, effect: "block"}
		if !slices.Contains(a.planes, "block") {
			r.effect = g.pick([]string{"warn", "nudge"})
		}
		n := min(len(terms), 1+g.r.Intn(3))
		var when []string
		for _, tm := range terms[:n] {
			when = append(when, "("+tm+")")
		}
		terms = terms[n:]
		r.when = "true"
		if len(when) > 0 {
			r.when = strings.Join(when, g.pick([]string{" || ", " && "}))
		}
		doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: %s\neffect: %s\nwhen: %s\n", r.id, g.scalar(r.anchor, false, ""), r.effect, g.scalar(r.when, false, ""))
		if g.chance(3) {
			doc += "on_error: " + g.pick([]string{"fail_closed", "fail_open"}) + "\n"
		}
		// A selector (spec 5.2) on facts of the selectable types, with
		// values at their edges, a scalar or a list of them.
		var clauses []string
		for _, f := range c.facts {
			vals := map[string][]string{"string": {`""`, `"a"`, `"é"`, `"NaN"`, `"1"`, `"A"`}, "int": {"0", "1", "-1", "7", "9223372036854775807", "-9223372036854775808"},
				"bool": {"true", "false"}, "list(string)": {`"a"`, `""`, `"b"`, `"é"`}}[f.typ]
			if vals == nil || !g.chance(4) {
				continue
			}
			v := g.pick(vals)
			if g.chance(2) {
				v = "[" + v + ", " + g.pick(vals) + "]"
			}
			clauses = append(clauses, g.scalar(c.host+"."+f.name, false, "")+": "+v)
		}
		if len(clauses) > 0 {
			doc += "selector: {" + strings.Join(clauses, ", ") + "}\n"
		}
		write("policy/"+r.id+".yaml", doc)
		rules = append(rules, r)
	}
	return rules
}

// rcValue is a host value for a fact of type t: of its Go type, at the
// edges of it. With dyn inside (maps), any Go value the runner protocol
// carries.
func (g *rcGen) value(t string) any {
	switch t {
	case "string":
		return g.pick([]string{"", "a", "é", "\xff", "a\x00b", "NaN", "1", "\u202e", strings.Repeat("ab", 500), "\xed\xa0\x80", "A"})
	case "int":
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1<<53 + 1, 7}[g.r.Intn(7)]
	case "bool":
		return g.chance(2)
	case "double":
		return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0.5, 1e308, 9.3e18, math.MaxFloat64, 5e-324, -1.5, 1}[g.r.Intn(12)]
	case "list(string)":
		return [][]string{nil, {}, {"a"}, {"\xff"}, {"", "a", "é"}, {"b", "b"}}[g.r.Intn(6)]
	case "map(string, dyn)":
		switch g.r.Intn(5) {
		case 0:
			return map[string]any(nil)
		case 1:
			return map[string]any{}
		}
		m := map[string]any{"k": g.dyn(2)}
		if g.chance(2) {
			m["\xff"] = g.dyn(1)
		}
		if g.chance(3) {
			m["n"] = nil
		}
		return m
	}
	switch g.r.Intn(4) {
	case 0:
		return []map[string]any(nil)
	case 1:
		return []map[string]any{nil}
	case 2:
		return []map[string]any{{}, {"k": nil}}
	}
	return []map[string]any{{"k": g.dyn(2)}, {"k": g.dyn(1), "n": g.dyn(1)}}
}

// dyn is a value of a dyn field, inside and outside CEL's representation
// (the runtime reads Go values by the rule of docs/cel-semantics.md).
func (g *rcGen) dyn(d int) any {
	if d > 0 && g.chance(3) {
		switch g.r.Intn(4) {
		case 0:
			return []any{nil, g.dyn(d - 1)}
		case 1:
			return map[string]any{"n": g.dyn(d - 1), "k": nil}
		case 2:
			return map[int64]any{1: g.dyn(d - 1)}
		}
		return []map[string]any{nil, {"k": g.dyn(d - 1)}}
	}
	vals := []any{nil, int64(1), int64(math.MaxInt64), int64(math.MinInt64), 1, int32(1), uint64(math.MaxUint64), uint(1), uint8(1),
		float32(math.NaN()), math.NaN(), math.Copysign(0, -1), 1.0, 2.0, float32(1.5), "a", "\xff", "1", "", []byte("ab"), true,
		[]string{"a", "\xff"}, []string(nil), map[string]string{"n": "1"}, map[string]int64{"n": 1}, map[float64]any{1: "a", math.NaN(): "b"},
		json.Number("1"), json.Number("1e400"), []any{}, map[string]any(nil), []int{1}, []float64{math.NaN()}}
	return vals[g.r.Intn(len(vals))]
}

// answers are canned provider answers for fn (nil: no provider).
func (g *rcGen) answers(c rcCatalog, fn rcFunc) map[string]any {
	if g.chance(6) {
		return nil
	}
	var args []any
	for _, p := range fn.params {
		args = append(args, rcArgValue[p])
	}
	key := ""
	if s, ok := args[0].(string); ok && len(args) == 1 {
		key = s
	} else {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		key = string(b)
	}
	// An answer of the result's Go type, at its edges (a typed provider
	// can return nothing else; Providers.Set refuses another type), nil
	// (the zero value) or a failure.
	var v any
	switch g.r.Intn(6) {
	case 0:
		v = nil
	case 1:
		v = wire.ProviderFailure(g.pick([]string{"boom", "timeout", "panic"}))
	default:
		v = g.value(fn.result)
	}
	return map[string]any{key: v}
}

// rcAccepted reports whether oarc accepted c as it must: a catalog
// without a step outside the spec is accepted, one with such a step
// rejected, every problem OAR_CATALOG (or a field-type code) at a line
// and column of the file.
func rcAccepted(t testing.TB, c rcCatalog, file string, diags compiler.Diagnostics) bool {
	t.Helper()
	if !diags.HasErrors() {
		if c.bad != "" {
			t.Errorf("a catalog one step outside spec 9 (%s) is accepted:\n%s", c.bad, c.yaml)
		}
		return c.bad == ""
	}
	if c.bad == "" {
		t.Errorf("spec 9 allows this catalog, oarc rejects it:\n%s\n%s", diags.Text(), c.yaml)
		return false
	}
	for _, d := range diags {
		if d.Pos.File != file || d.Pos.Line < 1 || d.Pos.Col < 1 {
			t.Errorf("catalog (%s): a diagnostic without a line and column: %+v\n%s", c.bad, d, c.yaml)
		}
	}
	return false
}

// rcCheckSource checks one generated Go file: the header, gofmt.
func rcCheckSource(t testing.TB, what string, src []byte) {
	t.Helper()
	if !bytes.HasPrefix(src, []byte("// Code generated by oarc")) {
		t.Errorf("%s does not start with the generated-code header:\n%.200s", what, src)
	}
	formatted, err := format.Source(src)
	if err != nil {
		t.Errorf("%s does not parse: %v", what, err)
	} else if !bytes.Equal(formatted, src) {
		t.Errorf("%s is not gofmt-clean", what)
	}
}

// rcModule is a temporary module beside this repository's.
func rcModule(t testing.TB) string {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).Find(gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), fmt.Appendf(nil, "module example.com/randcat\n\n%s\n\nrequire github.com/oarc/oarc v0.0.0-00010101000000-000000000000\n\nreplace github.com/oarc/oarc => %s\n", goLine, root), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return mod
}

// rcSet is one accepted catalog with its loaded pack.
type rcSet struct {
	cat   rcCatalog
	rules []rcRule
	set   *compiler.Set
}

func TestRandomCatalogsSpecE(t *testing.T) {
	n := long.N(6, 30)
	seed := int64(1)
	if s := os.Getenv("OARC_RANDCAT_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (OARC_RANDCAT_SEED), %d catalogs", seed, n)
	g := &rcGen{r: rand.New(rand.NewSource(seed))}
	mod := rcModule(t)
	var sets []rcSet
	accepted, rejected := 0, 0
	for i := 0; i < n || accepted < n/2; i++ {
		c := g.catalog(i%4 == 3)
		dir := filepath.Join(mod, fmt.Sprintf("c%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "cat.catalog.yaml")
		if err := os.WriteFile(file, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, diags := compiler.ParseCatalog(file, []byte(c.yaml))
		if err := os.MkdirAll(filepath.Join(dir, "pack", "policy"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pack", "pack.yaml"), []byte("oar: '1.0'\nname: randcat\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The command, on the same file: a positioned OAR_CATALOG, never a
		// panic.
		var stdout, stderr strings.Builder
		code := cli.Run([]string{"check", "-catalog", file, filepath.Join(dir, "pack")}, nil, &stdout, &stderr)
		if strings.Contains(stderr.String(), "internal error") {
			t.Fatalf("oarc check panics on the catalog:\n%s\n%s", stderr.String(), c.yaml)
		}
		if !rcAccepted(t, c, file, diags) {
			rejected++
			if c.bad != "" && (code == cli.ExitOK || !regexp.MustCompile(regexp.QuoteMeta(file)+`:[0-9]+:[0-9]+`).MatchString(stdout.String()+stderr.String())) {
				t.Errorf("oarc check of a catalog outside spec 9 (%s): exit %d, no file:line:col:\n%s%s\n%s", c.bad, code, stdout.String(), stderr.String(), c.yaml)
			}
			continue
		}
		accepted++
		rules := g.pack(t, c, filepath.Join(dir, "pack"))
		if rules == nil {
			continue
		}
		stdout.Reset()
		stderr.Reset()
		if code := cli.Run([]string{"check", "-catalog", file, filepath.Join(dir, "pack")}, nil, &stdout, &stderr); code != cli.ExitOK {
			t.Errorf("oarc check: exit %d\n%s%s\ncatalog:\n%s", code, stdout.String(), stderr.String(), c.yaml)
			continue
		}
		args := []string{"gen", "-catalog", file, "-pack", filepath.Join(dir, "pack"), "-out", filepath.Join(dir, "rules")}
		if g.chance(2) {
			args = append(args, "-guard")
		}
		// Some host facts read through Env.Lazy (oarc gen -lazy): the
		// generated code reads them another way.
		var lazy []string
		for _, f := range c.facts {
			if g.chance(3) {
				lazy = append(lazy, c.host+"."+f.name)
			}
		}
		if len(lazy) > 0 {
			args = append(args, "-lazy", strings.Join(lazy, ","))
		}
		if code := cli.Run(args, nil, &stdout, &stderr); code != cli.ExitOK {
			t.Errorf("oarc gen: exit %d\n%s%s\ncatalog:\n%s", code, stdout.String(), stderr.String(), c.yaml)
			continue
		}
		set, diags := compiler.LoadPack(filepath.Join(dir, "pack"), compiler.Options{Catalog: cat})
		if diags.HasErrors() {
			t.Fatalf("the pack checked by oarc check does not load: %s", diags.Text())
		}
		sets = append(sets, rcSet{c, rules, set})
	}
	t.Logf("%d catalogs accepted, %d rejected, %d sets generated", accepted, rejected, len(sets))
	if len(sets) == 0 {
		t.Fatal("no catalog made it to oarc gen")
	}
	// Every generated file: the header, gofmt.
	nfiles := 0
	err := filepath.WalkDir(mod, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		nfiles++
		rcCheckSource(t, path, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if nfiles < 2*len(sets) {
		t.Fatalf("%d generated files for %d sets", nfiles, len(sets))
	}
	if t.Failed() {
		return
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	rcDifferential(t, g, sets, long.N(40, 150))
}

// rcDifferential evaluates every set with random host values by the
// generated code and by the interpreter.
func rcDifferential(t *testing.T, g *rcGen, sets []rcSet, inputs int) {
	irs := make([]*ir.Set, len(sets))
	refs := make([]*reference.Engine, len(sets))
	for i, s := range sets {
		irs[i] = compiler.Build(s.set)
		ref, err := reference.New(s.set)
		if err != nil {
			t.Fatal(err)
		}
		refs[i] = ref
	}
	runner, err := harness.Build(irs)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	// What the inputs made the rules do, so that a generator that drifts
	// into rules that never fire, or never fail, is seen.
	mismatches, fired, errs, quiet := 0, 0, 0, 0
	for i, s := range sets {
		for k := 0; k < inputs; k++ {
			r := s.rules[g.r.Intn(len(s.rules))]
			req := &wire.Request{Set: i, Anchor: r.anchor, Facts: map[string]any{}, Providers: map[string]map[string]any{}}
			for _, f := range s.cat.facts {
				if !g.chance(5) {
					req.Facts[s.cat.host+"."+f.name] = g.value(f.typ)
				}
			}
			for _, fn := range s.cat.funcs {
				if a := g.answers(s.cat, fn); a != nil {
					req.Providers[s.cat.host+"."+fn.name] = a
				}
			}
			gen, err := runner.Do(req)
			if err != nil {
				t.Fatalf("runner: %v\ncatalog:\n%s", err, s.cat.yaml)
			}
			ref := refs[i].Evaluate(req, nil)
			fired += len(ref.Codes) + len(ref.Monitored)
			errs += len(ref.Errors)
			if len(ref.Codes) == 0 {
				quiet++
			}
			if a, b := rcOutcome(ref), rcOutcome(gen); a != b {
				mismatches++
				if mismatches <= 10 {
					var whens []string
					for _, r := range s.rules {
						whens = append(whens, r.id+" @"+r.anchor+": "+r.when)
					}
					t.Errorf("the generated code and the interpreter disagree\nrules:\n%s\nfacts: %s\nproviders: %s\ninterp:    %s\ngenerated: %s\ncatalog:\n%s",
						strings.Join(whens, "\n"), rcShow(req.Facts), rcShow(req.Providers), a, b, s.cat.yaml)
				}
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d mismatches", mismatches)
	}
	t.Logf("%d evaluations: %d firings, %d evaluation errors, %d without a firing", len(sets)*inputs, fired, errs, quiet)
	if fired == 0 || errs == 0 || quiet == 0 {
		t.Errorf("the random inputs never made a rule fire, fail, or not fire: %d, %d, %d", fired, errs, quiet)
	}
}

// rcOutcome is a decision without messages: effect, codes, failed-closed
// and monitored rules, errors by rule and kind.
func rcOutcome(r wire.Response) string {
	var errs []string
	for _, e := range r.Errors {
		errs = append(errs, e.Rule+":"+e.Kind)
	}
	sort.Strings(errs)
	return fmt.Sprintf("%s %s codes=%v failed=%v monitored=%v errors=%v", r.Effect, r.Code, r.Codes, r.FailedClosed, r.Monitored, errs)
}

func rcShow(v any) string { return fmt.Sprintf("%#v", v) }

// FuzzRandomCatalogSpecE draws a catalog from the fuzzer's seed and runs
// what needs no Go toolchain: oarc accepts what the spec allows and
// rejects, at a position, what it does not; the catalog package and the
// set package generate, gofmt-clean, with the header.
func FuzzRandomCatalogSpecE(f *testing.F) {
	for i := int64(0); i < 8; i++ {
		f.Add(i, i%3 == 2)
	}
	f.Fuzz(func(t *testing.T, seed int64, bad bool) {
		g := &rcGen{r: rand.New(rand.NewSource(seed))}
		c := g.catalog(bad)
		cat, diags := compiler.ParseCatalog("cat.catalog.yaml", []byte(c.yaml))
		if !rcAccepted(t, c, "cat.catalog.yaml", diags) {
			return
		}
		dir := t.TempDir()
		if g.pack(t, c, dir) == nil {
			return
		}
		set, diags := compiler.LoadPack(dir, compiler.Options{Catalog: cat})
		if diags.HasErrors() {
			t.Fatalf("the rules over the catalog do not load:\n%s\n%s", diags.Text(), c.yaml)
		}
		p := compiler.Build(set)
		catSrc, err := codegen.GenerateCatalog(p.Catalog, codegen.CatalogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rcCheckSource(t, "the catalog package", catSrc)
		setSrc, err := codegen.Generate(p, codegen.Options{Package: "rules", CatalogImport: "example.com/randcat/cat"})
		if err != nil {
			t.Fatal(err)
		}
		rcCheckSource(t, "the set package", setSrc)
	})
}
