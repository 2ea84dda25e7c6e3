// This file owns the diagnostic data type: positions, severities, stable
// codes, sorting and the text and JSON renderings.

package compiler

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// characters (Unicode code points), like the YAML parser's marks. The zero
// Pos means "no position".
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String renders p as file:line:col, the form spec 7 gives every load
// problem: a problem of a whole file (unreadable, too large, a directory)
// or of a whole line is at its first line or column, so that a reader of
// the form finds every diagnostic. Without a file it is empty.
func (p Pos) String() string {
	line, col := p.Line, p.Col
	switch {
	case p.File == "" && line == 0:
		return ""
	case line == 0:
		line, col = 1, 1
	case col == 0:
		col = 1
	}
	return fmt.Sprintf("%s:%d:%d", p.File, line, col)
}

// Severity says whether a [Diagnostic] fails the load.
type Severity int

// The severities. Only errors make [Diagnostics.HasErrors] true.
const (
	Error Severity = iota
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalJSON renders the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// The stable diagnostic codes of the OAR 1.0 spec, section 7. They are part
// of the interface: tools and fixtures branch on them.
const (
	CodeYAML         = "OAR_YAML"
	CodeVersion      = "OAR_VERSION"
	CodeUnknownField = "OAR_UNKNOWN_FIELD"
	CodeMissingField = "OAR_MISSING_FIELD"
	CodeFieldType    = "OAR_FIELD_TYPE"
	CodeID           = "OAR_ID"
	CodeKind         = "OAR_KIND"
	CodeAnchor       = "OAR_ANCHOR"
	CodeEffect       = "OAR_EFFECT"
	CodePlane        = "OAR_PLANE"
	CodeValue        = "OAR_VALUE"
	CodeSelector     = "OAR_SELECTOR"
	CodeRequires     = "OAR_REQUIRES"
	CodeCELSyntax    = "OAR_CEL_SYNTAX"
	CodeUnknownFact  = "OAR_UNKNOWN_FACT"
	CodeCELType      = "OAR_CEL_TYPE"
	CodeUnsupported  = "OAR_UNSUPPORTED"
	CodeRef          = "OAR_REF"
	CodeFlow         = "OAR_FLOW"
	CodeDetector     = "OAR_DETECTOR"
	CodeTransform    = "OAR_TRANSFORM"
	CodeCost         = "OAR_COST"
	CodeCatalog      = "OAR_CATALOG"
	CodeDuplicate    = "OAR_DUPLICATE"
)

// The stable codes of `oarc vet` (docs/vet.md): warnings about rules that
// load but cannot do what their author meant. Like the load codes they are
// part of the interface.
const (
	// CodeVetNever: the rule's condition can never hold.
	CodeVetNever = "OAR_VET_NEVER"
	// CodeVetUnreachable: an earlier enforced block at the same anchor
	// fires whenever the rule would.
	CodeVetUnreachable = "OAR_VET_UNREACHABLE"
	// CodeVetDynCompare: an ordering comparison of a dyn value that fails
	// for every value it can hold.
	CodeVetDynCompare = "OAR_VET_DYN_COMPARE"
	// CodeVetNoTitle: an enforced block or warn without copy.title.
	CodeVetNoTitle = "OAR_VET_NO_TITLE"
	// CodeVetMissingArg: tool_args.x, unguarded, in a rule that fails
	// closed: it fires on every call without x.
	CodeVetMissingArg = "OAR_VET_MISSING_ARG"
	// CodeVetArgInt: a comparison of tool_arg_int that a number with a
	// fraction (read as 0) gets past.
	CodeVetArgInt = "OAR_VET_ARG_INT"
	// CodeVetArgString: tool_arg_string compared with a number written as
	// a string (a JSON number reads as "").
	CodeVetArgString = "OAR_VET_ARG_STRING"
	// CodeVetURLPrefix: a URL matched as text (startsWith, contains,
	// matches), which admits other hosts; url_host says which host.
	CodeVetURLPrefix = "OAR_VET_URL_PREFIX"
	// CodeVetNodeField: a read of a field no provenance node has (spec
	// 5.11), an error on every node.
	CodeVetNodeField = "OAR_VET_NODE_FIELD"
)

// VetCodes lists the codes of `oarc vet`.
var VetCodes = []string{CodeVetNever, CodeVetUnreachable, CodeVetDynCompare, CodeVetNoTitle,
	CodeVetMissingArg, CodeVetArgInt, CodeVetArgString, CodeVetURLPrefix, CodeVetNodeField}

// Codes lists every stable code of loading: the spec's, in its order,
// then oarc's own (OAR_DUPLICATE, a warning).
var Codes = []string{
	CodeYAML, CodeVersion, CodeUnknownField, CodeMissingField, CodeFieldType,
	CodeID, CodeKind, CodeAnchor, CodeEffect, CodePlane, CodeValue,
	CodeSelector, CodeRequires, CodeCELSyntax, CodeUnknownFact, CodeCELType,
	CodeUnsupported, CodeRef, CodeFlow, CodeDetector, CodeTransform, CodeCost, CodeCatalog,
	CodeDuplicate,
}

// Diagnostic is one problem found while loading a pack.
type Diagnostic struct {
	Pos      Pos      `json:"pos"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// Source is the line of the file Pos points into, for the caret
	// display; empty when unknown.
	Source string `json:"source,omitempty"`
}

// String renders d as "path:line:col: error: message [CODE]". The path
// and the message are shown with [visible]: a message may quote what the
// rule file holds (cel-go's lexer quotes a character it does not know, a
// regular expression's error its pattern, both decoded from escapes), a
// path what a directory holds, and neither may reach a terminal as an
// escape sequence, a line break or an invisible character.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", visible(d.Pos.String()), d.Severity, visible(d.Message), d.Code)
}

// visible returns s with every character a terminal would act on, or a
// reader would not see, written as an escape: control characters (the
// line breaks included; a tab stays, it only moves the cursor to the
// right, and a message may quote a line with tabs for the author to
// copy) as \xNN, and a C1 control or an
// invisible character (HiddenRune: Unicode Cf such as a bidirectional
// override or a zero-width space, variation selectors out of place) as
// \uNNNN or \UNNNNNNNN; a byte of invalid UTF-8 as \xNN.
func visible(s string) string {
	var b strings.Builder
	visibleTo(&b, s)
	return b.String()
}

// Visible is [visible] for the other commands' text output: what a file
// holds, shown, is never acted on by the terminal.
func Visible(s string) string { return visible(s) }

// visibleTo writes s to b as [visible] does; it returns, per rune of s,
// the number of runes written for it.
func visibleTo(b *strings.Builder, s string) []int {
	var widths []int
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\t':
		case r < 0x20 || r == 0x7f:
			esc = fmt.Sprintf(`\x%02x`, r)
		case r == 0x85 || r == '\u2028' || r == '\u2029' || hiddenAfter(prev, r):
			if r > 0xFFFF {
				esc = fmt.Sprintf(`\U%08x`, r)
			} else {
				esc = fmt.Sprintf(`\u%04x`, r)
			}
		}
		if esc == "" {
			b.WriteString(s[i : i+size])
			widths = append(widths, 1)
		} else {
			b.WriteString(esc)
			widths = append(widths, len(esc))
		}
		prev = r
		i += size
	}
	return widths
}

// Diagnostics is a list of problems. Loaders collect every problem of every
// file rather than stopping at the first.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error (warnings do not
// fail a load).
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Codes returns the codes of the diagnostics, in order.
func (ds Diagnostics) Codes() []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// Sort orders the diagnostics by file, line, column, then code and message,
// so that output is deterministic.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

// Text renders the diagnostics one per line; a diagnostic with a source
// line is followed by that line and a caret under the column.
func (ds Diagnostics) Text() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
		if d.Source != "" && d.Pos.Col > 0 {
			src, col := sourceWindow(d.Source, d.Pos.Col)
			b.WriteString("   | ")
			// The line as the file holds it, but for the characters
			// [visible] escapes (a bidirectional override written raw in
			// the file would reorder what the terminal shows); tabs are
			// kept so the caret lines up with the source line.
			widths := visibleTo(&b, src)
			b.WriteString("\n   | ")
			n := 0
			for _, r := range src {
				if n >= col-1 {
					break
				}
				if r == '\t' {
					b.WriteByte('\t')
				} else {
					b.WriteString(strings.Repeat(" ", widths[n]))
				}
				n++
			}
			b.WriteString("^\n")
		}
	}
	return b.String()
}

// maxSourceWidth is the number of characters of a source line shown under
// a diagnostic; a longer line (a `when` of a megabyte on one line) is cut
// to a window around the column.
const maxSourceWidth = 120

// sourceWindow returns the part of line shown under a diagnostic at column
// col, and the column in it.
func sourceWindow(line string, col int) (string, int) {
	if utf8.RuneCountInString(line) <= maxSourceWidth {
		return line, col
	}
	r := []rune(line)
	start := max(0, min(col-1-maxSourceWidth/2, len(r)-maxSourceWidth))
	end := start + maxSourceWidth
	out := string(r[start:end])
	col -= start
	if start > 0 {
		out = "..." + out
		col += 3
	}
	if end < len(r) {
		out += "..."
	}
	return out, col
}

// JSON renders the diagnostics as a JSON array (never null).
func (ds Diagnostics) JSON() []byte {
	if ds == nil {
		ds = Diagnostics{}
	}
	out, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		// Diagnostics hold only strings and ints; this cannot fail.
		return []byte("[]")
	}
	return append(out, '\n')
}
