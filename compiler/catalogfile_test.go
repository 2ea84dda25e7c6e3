package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogSizeLimit: a catalog file of exactly 1 MiB loads, one byte
// more is OAR_CATALOG at the file, with a message about catalog files (it
// named the limit of rule files).
func TestCatalogSizeLimit(t *testing.T) {
	dir := t.TempDir()
	text := "oar_catalog: '1.0'\nhost: acme\nanchors: [{id: tool.pre_invoke, planes: [block]}]\n"
	exact, big := filepath.Join(dir, "exact.yaml"), filepath.Join(dir, "big.yaml")
	os.WriteFile(exact, []byte(padTo(text, maxFileSize)), 0o644)
	os.WriteFile(big, []byte(padTo(text, maxFileSize+1)), 0o644)
	if _, diags := LoadCatalog(exact); diags.HasErrors() {
		t.Errorf("a catalog of exactly 1 MiB: %s", diags.Text())
	}
	_, diags := LoadCatalog(big)
	checkDiags(t, diags, []wantDiag{{big, CodeCatalog, "larger than the limit of 1 MiB (1048576 bytes) for catalog files"}})
	if strings.Contains(diags.Text(), "rule files") {
		t.Errorf("the catalog's size error names rule files: %s", diags.Text())
	}
}

// TestCatalogHostNamedLikeAMapFact: a host named tool_args would make
// tool_args.path read the host's fact path where rules mean the
// argument (cel-go resolves the longest declared name first): OAR_CATALOG
// at the host. A host named like a fact that is not a map (tool) is
// unambiguous (tool.x cannot select on a string) and stays accepted.
func TestCatalogHostNamedLikeAMapFact(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ host, want string }{
		{"tool_args", ":2:7: error: host \"tool_args\" is the name of a map fact: tool_args.x would read the host's fact x where a rule means the map's field x; choose another host name [OAR_CATALOG]"},
		{"tool", ""},
	} {
		file := filepath.Join(dir, tc.host+".yaml")
		text := "oar_catalog: '1.0'\nhost: " + tc.host + "\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n  - {name: path, type: string}\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, diags := LoadCatalog(file)
		switch got := diags.Text(); {
		case tc.want == "" && (cat == nil || got != ""):
			t.Errorf("host %s: %s", tc.host, got)
		case tc.want != "" && (cat != nil || got != file+tc.want+"\n"):
			t.Errorf("host %s:\n%s\nwant:\n%s%s", tc.host, got, file, tc.want)
		}
	}
}

// TestCatalogFunctionNamedLikeCELs: a host named strings with a function
// quote declares strings.quote, which is the strings extension's: of the
// same signature it failed in every pack as an "internal error" at the
// pack (the CEL environment could not merge the declarations), of
// another it became an overload beside CEL's, and the generated code
// called the host's provider where cel-go calls the extension. Either is
// OAR_CATALOG at the function's name. A host strings with other
// functions, or another host with a function quote, stays accepted.
func TestCatalogFunctionNamedLikeCELs(t *testing.T) {
	for _, tc := range []struct{ host, name, sig, want string }{
		{"strings", "quote", "(string) -> string", ":5:12: error: function quote: strings.quote is a function of CEL (its standard library or the strings extension), so a rule's call would not reach the host; rename the function or the host [OAR_CATALOG]"},
		{"strings", "quote", "(int) -> string", ":5:12: error: function quote: strings.quote is a function of CEL"},
		{"strings", "quoted", "(string) -> string", ""},
		{"acme", "quote", "(string) -> string", ""},
	} {
		text := "oar_catalog: '1.0'\nhost: " + tc.host + "\nanchors: [{id: tool.pre_invoke, planes: [block]}]\nfunctions:\n  - {name: " + tc.name + ", signature: '" + tc.sig + "'}\n"
		_, diags := ParseCatalog("c.yaml", []byte(text))
		got := diags.Text()
		if tc.want == "" {
			if got != "" {
				t.Errorf("%s.%s: %s", tc.host, tc.name, got)
			}
			continue
		}
		if !strings.HasPrefix(got, "c.yaml"+tc.want) {
			t.Errorf("%s.%s %s: got %q, want it to start %q", tc.host, tc.name, tc.sig, got, "c.yaml"+tc.want)
		}
	}
}

// TestCatalogHostLength: oarc gen writes a host catalog's package into a
// directory named after the host (<out>/<host>), and file systems allow
// names of at most 255 bytes: a longer host was accepted by check and
// failed gen with "file name too long". It is OAR_CATALOG at the host.
func TestCatalogHostLength(t *testing.T) {
	for n, want := range map[int]string{
		255: "",
		256: "c.yaml:2:7: error: host is 256 characters long; oarc gen writes the catalog package into a directory named after the host, and file systems allow at most 255 [OAR_CATALOG]\n",
	} {
		host := "h" + strings.Repeat("a", n-1)
		text := "oar_catalog: '1.0'\nhost: " + host + "\nanchors: [{id: tool.pre_invoke, planes: [block]}]\n"
		if _, diags := ParseCatalog("c.yaml", []byte(text)); diags.Text() != want {
			t.Errorf("host of %d characters: got %q, want %q", n, diags.Text(), want)
		}
	}
}
