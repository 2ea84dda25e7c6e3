// This file owns the provenance differential (spec 5.7): random rules
// reading the four provenance facts and provenance_nodes (5.11), evaluated over random graphs (chains,
// diamonds, wide fan-in, random DAGs, unrecorded inputs, incomplete
// sessions, nodes arriving over several steps) by the generated code, with
// the runtime's graph walk, and by the reference, with its own.

package difftest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// ProvenanceOptions configures a provenance differential run.
type ProvenanceOptions struct {
	Seed     int64
	Rules    int // generated rules, in one pack
	Sessions int // random sessions, each of one to three steps
}

// ProvGen generates provenance rules and graphs. Its values come from
// small alphabets so that rules and graphs meet: the same strings are
// tools, origins, tiers and labels, some of them empty, one not valid
// UTF-8, and they sort differently by bytes and by runes.
type ProvGen struct {
	r        *rand.Rand
	usesTool bool // the expression being generated reads tool
	// Shapes counts the graph shapes generated, by name.
	Shapes map[string]int
}

// NewProvGen returns a generator seeded with seed.
func NewProvGen(seed int64) *ProvGen {
	return &ProvGen{r: rand.New(rand.NewSource(seed)), Shapes: map[string]int{}}
}

var (
	provFacts  = []string{"provenance_tools", "provenance_origins", "provenance_trust_tiers", "provenance_labels"}
	provValues = []string{"read_document", "http_get", "web", "user", "trusted", "untrusted", "confidential", "pii", "a", "B", "é", "z", ""}
	provOdd    = []string{"\xff", "a\x00b", "ab", "A", "\u00e9t\u00e9"}
)

func (g *ProvGen) chance(n int) bool { return g.r.Intn(n) == 0 }

func (g *ProvGen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

func (g *ProvGen) value() string {
	if g.chance(12) {
		return g.pick(provOdd...)
	}
	return g.pick(provValues...)
}

func (g *ProvGen) lit(s string) string { return strconv.Quote(s) }

func (g *ProvGen) fact() string { return g.pick(provFacts...) }

// listLit is a list literal of values, in random (often unsorted) order.
func (g *ProvGen) listLit() string {
	n := g.r.Intn(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.lit(g.value())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// When returns a boolean expression over the provenance facts and tool,
// and the profiles it requires.
func (g *ProvGen) When() (string, []string) {
	g.usesTool = false
	w := g.boolExpr(2)
	if g.usesTool {
		return w, []string{"tool", "provenance"}
	}
	return w, []string{"provenance"}
}

func (g *ProvGen) boolExpr(d int) string {
	if d == 0 || g.chance(3) {
		return g.atom(d)
	}
	a, b := g.boolExpr(d-1), g.boolExpr(d-1)
	switch g.r.Intn(7) {
	case 0, 1:
		return "(" + a + " && " + b + ")"
	case 2, 3:
		return "(" + a + " || " + b + ")"
	case 4:
		return "!(" + a + ")"
	case 5:
		return "(" + a + " ? " + b + " : " + g.atom(0) + ")"
	default:
		// An error absorbed, or not, by a constant operand.
		return g.pick("(false && "+a+")", "(true || "+a+")", "("+a+" && false)", "("+a+" || true)")
	}
}

func (g *ProvGen) atom(d int) string {
	if g.chance(4) {
		return g.nodeAtom()
	}
	f, v := g.fact(), g.lit(g.value())
	switch g.r.Intn(19) {
	case 0, 1, 2:
		return v + " in " + f
	case 3:
		return fmt.Sprintf("%s.size() %s %d", f, g.pick("==", "!=", "<", ">=", ">"), g.r.Intn(5))
	case 4:
		return fmt.Sprintf("size(%s) == size(%s)", f, g.fact())
	case 5:
		return f + " == " + g.listLit()
	case 6:
		return f + " != " + g.fact()
	case 7:
		return fmt.Sprintf("%s.exists(x, x.startsWith(%s))", f, v)
	case 8:
		return fmt.Sprintf("%s.all(x, x %s %s)", f, g.pick("!=", "<", ">", "<="), v)
	case 9:
		// An index past the end is an error of its own.
		return fmt.Sprintf("%s[%d] == %s", f, g.r.Intn(3), v)
	case 10:
		return fmt.Sprintf("%s.filter(x, x %s %s).size() == %d", f, g.pick("<", ">", "!="), v, g.r.Intn(3))
	case 11:
		return fmt.Sprintf("%s.exists_one(x, x in %s)", f, g.listLit())
	case 12:
		return fmt.Sprintf("%s.exists(x, x in %s)", f, g.listLit())
	case 13:
		return fmt.Sprintf("%s.map(x, x == %s).exists(y, y)", f, v)
	case 14:
		return fmt.Sprintf("dyn(%s) == dyn(%s)", f, g.pick(g.fact(), g.listLit()))
	case 15:
		// Rules that read no provenance fact are not affected by an
		// unknown scope.
		g.usesTool = true
		return g.pick(`tool == "http_post"`, `tool != "x"`, "true", "false", `tool.startsWith("http")`)
	case 16:
		return fmt.Sprintf("(%s + %s).size() > %d", f, g.pick(g.fact(), g.listLit()), g.r.Intn(6))
	case 17:
		if g.chance(6) {
			// Over the cost limit more often than not: one list
			// against another.
			return fmt.Sprintf("%s.all(x, %s.exists(y, y <= x))", f, g.fact())
		}
		return fmt.Sprintf("%s.all(x, x.size() %s %d)", f, g.pick("<", ">", "=="), g.r.Intn(4))
	default:
		return fmt.Sprintf("%s in %s", g.lit(g.value()), g.listLit()) + " && " + v + " in " + f
	}
}

// nodeAtom reads provenance_nodes (spec 5.11): properties of one node
// correlated, inputs told from ancestors, a result's call arguments, the
// order of the list (inputs first, then recording order), and its errors.
func (g *ProvGen) nodeAtom() string {
	v, w := g.lit(g.value()), g.lit(g.value())
	switch g.r.Intn(12) {
	case 10:
		// The whole order of the list, past its first nodes: the ids
		// are n0, n1, ... in recording order.
		k := g.r.Intn(10)
		return fmt.Sprintf("provenance_nodes.size() > %d && provenance_nodes[%d].id == %s", k, k, g.lit("n"+strconv.Itoa(g.r.Intn(10))))
	case 11:
		// A node's labels as recorded, in order, duplicates kept.
		return fmt.Sprintf("provenance_nodes.exists(n, n.labels.size() > 1 && n.labels[%d] == %s)", g.r.Intn(2), v)
	case 0:
		return fmt.Sprintf("provenance_nodes.exists(n, n.tool == %s && %s in n.labels)", v, w)
	case 1:
		return fmt.Sprintf("provenance_nodes.exists(n, %s && n.origin == %s)", g.pick("n.input", "!n.input"), v)
	case 2:
		return fmt.Sprintf("provenance_nodes.size() %s %d", g.pick("==", "<", ">="), g.r.Intn(6))
	case 3:
		return fmt.Sprintf("provenance_nodes.all(n, n.kind == %s || n.trust_tier != %s)", g.lit(g.pick("message", "tool_result")), v)
	case 4:
		// An index past the end is an error of its own.
		return fmt.Sprintf("provenance_nodes[%d].%s == %s", g.r.Intn(3), g.pick("id", "tool", "origin", "kind"), v)
	case 5:
		return fmt.Sprintf("provenance_nodes.exists(n, %s in n.args && n.args[%s] == %s)", g.lit("path"), g.lit("path"), v)
	case 6:
		if g.chance(2) {
			// Arguments of host values, read every way.
			a := "n.args." + g.pick("n", "m", "path")
			return fmt.Sprintf("provenance_nodes.exists(n, %s)", g.pick(
				a+" == "+g.pick("1", "1u", "1.0", `"a"`, "null", "[]", "{}", "-0.0", "[1, 0]", `b"a"`),
				"type("+a+") == "+g.pick("int", "uint", "double", "bytes", "list", "map", "string", "null_type", "bool"),
				"string("+a+") == "+g.pick(`"1"`, `""`, `"a"`, `"-0"`, `"NaN"`),
				"size("+a+") > 0", a+"[0] == 1", a+`["a"] == 1`, a+" > 0", "int("+a+") == 1", "double("+a+") != double("+a+")",
				"1 in "+a, "has("+a+".a)", a+".exists(x, x == 1)"))
		}
		return fmt.Sprintf("provenance_nodes.exists(n, n.args.size() %s %d)", g.pick("==", ">"), g.r.Intn(3))
	case 7:
		// A missing key of a node's args is an error.
		return fmt.Sprintf("provenance_nodes.exists(n, n.kind == %s && n.args.path == %s)", g.lit("tool_result"), v)
	case 8:
		return fmt.Sprintf("provenance_nodes.filter(n, n.input).map(n, n.id) == %s", g.listLit())
	default:
		return fmt.Sprintf("provenance_nodes.exists_one(n, n.labels.size() > %d)", g.r.Intn(3))
	}
}

// Session is one random session: the steps evaluated in order on one
// session, each recording nodes and naming inputs.
func (g *ProvGen) Session(name string) []*wire.Request {
	nodes, shape := g.graph()
	g.Shapes[shape]++
	steps := 1 + g.r.Intn(3)
	var reqs []*wire.Request
	recorded := 0
	for s := 0; s < steps; s++ {
		upto := len(nodes)
		if s < steps-1 {
			upto = recorded + g.r.Intn(len(nodes)-recorded+1)
		}
		req := &wire.Request{Session: name, Anchor: "tool.pre_invoke", Nodes: nodes[recorded:upto],
			Facts: map[string]any{"tool": g.pick("http_post", "send_email", "x")}}
		recorded = upto
		req.Inputs = g.inputs(nodes[:recorded])
		if g.chance(14) {
			req.Incomplete = true
			g.Shapes["incomplete"]++
		}
		if g.chance(10) {
			// The provenance profile not supplied: rules requiring it
			// fail for that reason, whatever the graph.
			req.Profiles = runtime.ProfileTool
			g.Shapes["no profile"]++
		}
		reqs = append(reqs, req)
	}
	return reqs
}

func (g *ProvGen) inputs(nodes []runtime.Node) []string {
	var in []string
	switch {
	case g.chance(10):
		g.Shapes["no inputs"]++
		return nil
	case len(nodes) > 0 && g.chance(2):
		in = append(in, nodes[len(nodes)-1].ID)
	}
	for range g.r.Intn(3) {
		if len(nodes) > 0 {
			in = append(in, nodes[g.r.Intn(len(nodes))].ID)
		}
	}
	if len(in) > 0 && g.chance(4) {
		in = append(in, in[0]) // an input named twice
	}
	if g.chance(12) {
		g.Shapes["unrecorded input"]++
		in = append(in, g.pick("ghost", "", "n"+strconv.Itoa(len(nodes)+1)))
	}
	return in
}

func (g *ProvGen) node(id string, parents []string) runtime.Node {
	n := runtime.Node{ID: id, Kind: runtime.Message, Parents: parents}
	if g.chance(2) {
		n.Kind = runtime.ToolResult
	}
	if g.chance(4) || n.Kind == runtime.ToolResult && !g.chance(6) {
		n.Tool = g.value() // a message's tool is not a tool result's
	}
	if !g.chance(3) {
		n.Origin = g.value()
	}
	if !g.chance(3) {
		n.TrustTier = g.value()
	}
	for range g.r.Intn(4) {
		n.Labels = append(n.Labels, g.value())
	}
	if len(n.Labels) > 0 && g.chance(5) {
		n.Labels = append(n.Labels, n.Labels[0])
	}
	if n.Kind == runtime.ToolResult && g.chance(2) {
		// The arguments of the call that produced the result (spec
		// 5.11): strings only, from the plain values, so that both
		// engines receive the same JSON.
		n.Args = map[string]any{}
		for range g.r.Intn(3) {
			n.Args[g.pick("path", "url", "q")] = g.pick(provValues...)
		}
		if g.chance(3) {
			// A value of any host type, as a host records it: the
			// runtime keeps it as JSON and reads it back, the oracle
			// reads it as given. Arguments the runtime refuses to
			// record (Session.Record's error, the host's to handle)
			// are left out.
			k := g.pick("path", "n", "m")
			n.Args[k] = (&HostileGen{r: g.r}).hostValue(2)
			if _, err := runtime.NodeArgsJSON(n); err != nil {
				delete(n.Args, k)
				g.Shapes["args refused"]++
			} else {
				g.Shapes["args of host values"]++
			}
		}
	}
	return n
}

// graph returns nodes in recording order (parents first) and the shape's
// name.
func (g *ProvGen) graph() ([]runtime.Node, string) {
	var nodes []runtime.Node
	id := func() string { return "n" + strconv.Itoa(len(nodes)) }
	add := func(parents ...string) string {
		n := g.node(id(), parents)
		nodes = append(nodes, n)
		return n.ID
	}
	switch g.r.Intn(7) {
	case 0:
		return nil, "empty"
	case 1:
		prev := add()
		for range g.r.Intn(60) {
			prev = add(prev)
		}
		return nodes, "chain"
	case 2:
		// Diamonds stacked: every node reached by two paths.
		top := add()
		for range 1 + g.r.Intn(8) {
			a, b := add(top), add(top)
			top = add(a, b)
		}
		return nodes, "diamonds"
	case 3:
		var ps []string
		for range 1 + g.r.Intn(200) {
			ps = append(ps, add())
		}
		add(ps...)
		return nodes, "fan-in"
	case 4:
		// Fan-out then fan-in: a shared root under many branches.
		root := add()
		var ps []string
		for range 1 + g.r.Intn(30) {
			ps = append(ps, add(root))
		}
		add(ps...)
		return nodes, "fan-out-in"
	case 5:
		// Several disconnected pieces: inputs from one see none of the
		// others.
		for range 1 + g.r.Intn(5) {
			prev := add()
			for range g.r.Intn(5) {
				prev = add(prev)
			}
		}
		return nodes, "forest"
	default:
		for range 1 + g.r.Intn(40) {
			var ps []string
			for range g.r.Intn(4) {
				if len(nodes) > 0 {
					ps = append(ps, nodes[g.r.Intn(len(nodes))].ID)
				}
			}
			add(ps...)
		}
		return nodes, "dag"
	}
}

// ProvenancePack writes and loads a pack of n random provenance rules
// (warn, fail_open). Rules over the cost limit (the provenance lists have
// no size bound, so nested comprehensions over them are costly) are
// dropped and counted in rep; any other rejection is the generator's
// fault.
func ProvenancePack(g *ProvGen, n int, rep *DiffReport) (*DiffPack, error) {
	dir, err := os.MkdirTemp("", "oarc-prov-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		return nil, err
	}
	// Rules reading provenance_nodes cost about a million (1,024 nodes of
	// up to 1,024 labels, spec section 4): the pack admits them.
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\nname: prov\nmax_cost: 5000000\n"), 0o644); err != nil {
		return nil, err
	}
	whens := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("P%05d", i)
		when, profiles := g.When()
		whens[id] = when
		q, _ := json.Marshal(when)
		doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\non_error: fail_open\nrequires: {profiles: [%s]}\nwhen: %s\n", id, strings.Join(profiles, ", "), q)
		if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
			return nil, err
		}
	}
	p, diags := compiler.LoadPack(dir, compiler.Options{})
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity != compiler.Error {
				continue
			}
			if d.Code != compiler.CodeCost {
				return nil, fmt.Errorf("a generated provenance rule does not load:\n%s", diags.Text())
			}
			id := strings.TrimSuffix(filepath.Base(d.Pos.File), ".yaml")
			drop(dir, id, d.Code, nil, rep)
			delete(whens, id)
		}
		if p, diags = compiler.LoadPack(dir, compiler.Options{}); diags.HasErrors() {
			return nil, fmt.Errorf("generated provenance rules do not load after dropping the costly ones:\n%s", diags.Text())
		}
	}
	for _, w := range whens {
		if strings.Contains(w, "provenance_nodes") {
			g.Shapes["rules reading provenance_nodes"]++
		}
	}
	ref, err := reference.New(p)
	if err != nil {
		return nil, err
	}
	return &DiffPack{Pack: p, Whens: whens, ref: ref}, nil
}

// ProvenanceDifferential runs a seeded provenance differential test and
// returns the report and the shapes the sessions had.
func ProvenanceDifferential(o ProvenanceOptions) (*DiffReport, map[string]int, error) {
	g := NewProvGen(o.Seed)
	rep := NewReport()
	p, err := ProvenancePack(g, o.Rules, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.Rules = len(p.Pack.Rules)
	runner, err := BuildRunner([]*DiffPack{p}, rep)
	if err != nil {
		return nil, nil, err
	}
	defer runner.Close()
	for k := range o.Sessions {
		if err := CompareSession(runner, 0, p, g.Session(fmt.Sprintf("s%d", k)), rep); err != nil {
			return rep, g.Shapes, err
		}
	}
	return rep, g.Shapes, nil
}

// CompareSession evaluates the steps of one session with both engines,
// each keeping its own session across the steps, and adds the per-rule
// outcomes to rep.
func CompareSession(runner *harness.Runner, index int, p *DiffPack, steps []*wire.Request, rep *DiffReport) error {
	refSession := reference.NewSession()
	for i, req := range steps {
		req.Set = index
		gen, err := runner.Do(req)
		if err != nil {
			return err
		}
		if gen.Fatal != "" {
			return fmt.Errorf("step %d: %s", i, gen.Fatal)
		}
		upTo := steps[:i+1]
		rep.tally(p, p.ref.Evaluate(req, refSession), gen, func() string { return showSession(upTo) },
			func(kind string) bool { return strings.HasPrefix(kind, "error:provenance") })
	}
	return nil
}

// showSession prints the steps up to the mismatch: each step's nodes,
// inputs and flags.
func showSession(steps []*wire.Request) string {
	var b strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&b, "step %d: tool=%q inputs=%q incomplete=%v profiles=%d nodes:", i, s.Facts["tool"], s.Inputs, s.Incomplete, s.Profiles)
		for _, n := range s.Nodes {
			fmt.Fprintf(&b, " {%s %d tool=%q origin=%q tier=%q labels=%q parents=%q}", n.ID, n.Kind, n.Tool, n.Origin, n.TrustTier, n.Labels, n.Parents)
		}
		b.WriteString("\n")
	}
	return b.String()
}
