package catalog

import (
	"go/token"
	"math/rand"
	"strings"
	"testing"
)

func TestExactGoName(t *testing.T) {
	for in, want := range map[string]string{
		"x1":              "X1_",
		"x_1":             "X_1_",
		"set":             "Set_",
		"tool.pre_invoke": "ToolPre_invoke_",
		"a.b_c":           "AB_c_",
		"a_b.c":           "A_bC_",
		"a.1":             "AZ1_",
		"a._b":            "AZ_b_",
		"a.z":             "AZZ_",
		"a.zz":            "AZZz_",
		"acme.has_field":  "AcmeHas_field_",
	} {
		if got := ExactGoName(in); got != want {
			t.Errorf("ExactGoName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExactGoNameInjective: distinct names never share an exact spelling,
// which is always an exported identifier ending in "_" (and so never a
// CamelCase form).
func TestExactGoNameInjective(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	seen := map[string]string{}
	for i := 0; i < 200000; i++ {
		b := []byte{"abz"[r.Intn(3)]}
		for n := r.Intn(8); n > 0; n-- {
			c := "az1_."[r.Intn(5)]
			if c == '.' && b[len(b)-1] == '.' {
				continue
			}
			b = append(b, c)
		}
		if b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
		s := string(b)
		g := ExactGoName(s)
		if !token.IsIdentifier(g) || !token.IsExported(g) || !strings.HasSuffix(g, "_") {
			t.Fatalf("ExactGoName(%q) = %q", s, g)
		}
		if prev, ok := seen[g]; ok && prev != s {
			t.Fatalf("ExactGoName(%q) = ExactGoName(%q) = %q", prev, s, g)
		}
		seen[g] = s
	}
}

// TestDefaultGoNames: the default catalog renames nothing; hosts use its
// names as they are.
func TestDefaultGoNames(t *testing.T) {
	c := Default()
	if c.HostField() != "Lycaon" || c.GoPackage() != "lycaon" {
		t.Errorf("host field %s, package %s", c.HostField(), c.GoPackage())
	}
	for _, a := range c.Anchors {
		if a.GoName != GoName(a.ID) {
			t.Errorf("anchor %s: %s", a.ID, a.GoName)
		}
	}
	for _, f := range c.Facts {
		if f.GoName != GoName(f.Name) {
			t.Errorf("fact %s: %s", f.CELName, f.GoName)
		}
	}
	for _, fn := range c.Functions {
		if fn.GoName != GoName(fn.CELName) {
			t.Errorf("function %s: %s", fn.CELName, fn.GoName)
		}
	}
	for cel, want := range map[string]string{"tool_args": "ToolArgs", "lycaon.repeat_count": "RepeatCount"} {
		if f := c.Fact(cel); f == nil || f.GoName != want {
			t.Errorf("%s: %+v", cel, f)
		}
	}
	if fn := c.Function("lycaon.source_includes"); fn == nil || fn.GoName != "LycaonSourceIncludes" {
		t.Errorf("lycaon.source_includes: %+v", fn)
	}
}

// TestGoNamesRenamed: what Go cannot use as it is gets its exact
// spelling, whatever the order of the catalog; the rest keeps its
// CamelCase form.
func TestGoNamesRenamed(t *testing.T) {
	type want struct {
		hostField, pkg string
		anchors        map[string]string
		facts, funcs   map[string]string // by CEL name
	}
	for _, tc := range []struct {
		name    string
		host    string
		anchors []string
		facts   []string
		funcs   []string
		want    want
	}{
		{"collisions", "acme", []string{"a.b_c", "a_b.c", "tool.pre_invoke", "facts", "env"}, []string{"x1", "x_1", "y", "set"}, []string{"f_1", "f1", "g"}, want{
			hostField: "Acme", pkg: "acme",
			anchors: map[string]string{"a.b_c": "AB_c_", "a_b.c": "A_bC_", "tool.pre_invoke": "ToolPreInvoke", "facts": "Facts_", "env": "Env_"},
			facts:   map[string]string{"acme.x1": "X1_", "acme.x_1": "X_1_", "acme.y": "Y", "acme.set": "Set"},
			funcs:   map[string]string{"acme.f_1": "AcmeF_1_", "acme.f1": "AcmeF1_", "acme.g": "AcmeG"},
		}},
		{"host like a standard fact", "tool", []string{"x"}, []string{"a"}, []string{"b"}, want{
			hostField: "Tool_", pkg: "tool",
			anchors: map[string]string{"x": "X"},
			facts:   map[string]string{"tool.a": "A"},
			funcs:   map[string]string{"tool.b": "ToolB"},
		}},
		{"host set, a standard provider", "path", []string{"x"}, nil, []string{"outside_scope"}, want{
			hostField: "Path", pkg: "path",
			anchors: map[string]string{"x": "X"},
			funcs:   map[string]string{"path.outside_scope": "PathOutside_scope_", "path_outside_scope": "PathOutsideScope"},
		}},
		{"host get", "get", []string{"x"}, nil, nil, want{hostField: "Get_", pkg: "get", anchors: map[string]string{"x": "X"}}},
		{"host main", "main", []string{"x"}, nil, nil, want{hostField: "Main", pkg: "main_", anchors: map[string]string{"x": "X"}}},
		{"host init", "init", []string{"x"}, nil, nil, want{hostField: "Init", pkg: "init_", anchors: map[string]string{"x": "X"}}},
		{"host keyword", "func", []string{"x"}, nil, nil, want{hostField: "Func", pkg: "func_", anchors: map[string]string{"x": "X"}}},
	} {
		for _, reverse := range []bool{false, true} {
			var anchors []*Anchor
			var facts []*Fact
			var funcs []*Function
			for _, id := range tc.anchors {
				anchors = append(anchors, &Anchor{ID: id, Planes: []string{"block"}})
			}
			for _, n := range tc.facts {
				facts = append(facts, &Fact{Name: n, Type: Int})
			}
			for _, n := range tc.funcs {
				funcs = append(funcs, &Function{Name: n, Params: []Type{String}, Result: Bool})
			}
			if reverse {
				for i, j := 0, len(anchors)-1; i < j; i, j = i+1, j-1 {
					anchors[i], anchors[j] = anchors[j], anchors[i]
				}
				for i, j := 0, len(facts)-1; i < j; i, j = i+1, j-1 {
					facts[i], facts[j] = facts[j], facts[i]
				}
				for i, j := 0, len(funcs)-1; i < j; i, j = i+1, j-1 {
					funcs[i], funcs[j] = funcs[j], funcs[i]
				}
			}
			c, err := New(tc.host, anchors, facts, funcs)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if c.HostField() != tc.want.hostField || c.GoPackage() != tc.want.pkg {
				t.Errorf("%s: host field %s, package %s; want %s, %s", tc.name, c.HostField(), c.GoPackage(), tc.want.hostField, tc.want.pkg)
			}
			for id, w := range tc.want.anchors {
				if a := c.Anchor(id); a == nil || a.GoName != w {
					t.Errorf("%s (reversed %v): anchor %s: %+v, want %s", tc.name, reverse, id, a, w)
				}
			}
			for n, w := range tc.want.facts {
				if f := c.Fact(n); f == nil || f.GoName != w {
					t.Errorf("%s (reversed %v): fact %s: %+v, want %s", tc.name, reverse, n, f, w)
				}
			}
			for n, w := range tc.want.funcs {
				if fn := c.Function(n); fn == nil || fn.GoName != w {
					t.Errorf("%s (reversed %v): function %s: %+v, want %s", tc.name, reverse, n, fn, w)
				}
			}
		}
	}
}
