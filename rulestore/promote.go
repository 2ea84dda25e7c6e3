// This file owns what the store's commands read and write without a
// compilation set: the latest records of a store file (oarc store), and
// an active rule as a rule file of a pack (oarc promote), so that the
// next go generate compiles it.

package rulestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler"
)

// ReadRecords reads a store's records and returns the latest of each id,
// in order of each id's first record, and the lines that are not records
// (reported as FILE:LINE: error: ..., name being FILE). A torn last line
// is one of them: the rest is read all the same.
func ReadRecords(name string, r io.Reader) ([]Record, []Problem, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var order []string
	latest := map[string]Record{}
	var problems []Problem
	line := 0
	for len(data) > 0 {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line++
		if line == 1 {
			l = trimBOM(l)
		}
		rec, err := parseRecord(bytes.TrimSuffix(l, []byte("\r")))
		if err != nil {
			msg := err.Error()
			if data == nil {
				msg = "a torn last line (no line break at its end): " + msg
			}
			problems = append(problems, Problem{File: name, Line: line, Msg: msg})
			continue
		}
		if _, ok := latest[rec.ID]; !ok {
			order = append(order, rec.ID)
		}
		latest[rec.ID] = rec
	}
	out := make([]Record, 0, len(order))
	for _, id := range order {
		out = append(out, latest[id])
	}
	return out, problems, nil
}

// RuleFile returns an active rule of the store as a rule file, as oarc
// promote writes it into a pack: its document with `enforcement:
// enforce`, laid out as oarc fmt lays rule files out, under a comment
// with its rationale and source.
func RuleFile(rec Record) ([]byte, error) {
	doc, err := decodeDoc(rec.Rule)
	if err != nil {
		return nil, fmt.Errorf("rule %s: %v", rec.ID, err)
	}
	// What Add refuses (a character a reader cannot see, outside the
	// copy) is not written into a pack either: a record appended by hand
	// or by another program loads all the same, and the person who
	// promotes it would not see what it says.
	if ds := hiddenDiags(doc); len(ds) > 0 {
		return nil, fmt.Errorf("rule %s: %s", rec.ID, ds[0].Message)
	}
	plainStyles(doc)
	if e := member(doc, "enforcement"); e != nil {
		e.Value, e.Tag, e.Style = "enforce", "!!str", 0
	} else {
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "enforcement"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "enforce"})
	}
	if w := member(doc, "when"); w != nil && strings.Contains(w.Value, "\n") {
		w.Style = yaml.LiteralStyle
	}
	var head []string
	head = append(head, "Written by the agent (rule store), promoted by oarc promote.")
	// Sanitised again: a record not written by Add (edited by hand) may
	// hold a line break, which would end the comment.
	if r := Sanitize(rec.Rationale); r != "" {
		head = append(head, "Rationale: "+r)
	}
	if src := Sanitize(rec.Source); src != "" {
		head = append(head, "Source: "+src)
	}
	doc.HeadComment = strings.Join(head, "\n")
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("rule %s: %v", rec.ID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out, err := compiler.Format(rec.ID+".yaml", buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rule %s: %v", rec.ID, err)
	}
	if err := readsBack(rec, out); err != nil {
		return nil, fmt.Errorf("rule %s: the rule file would not read back as the rule of the store: %v", rec.ID, err)
	}
	return out, nil
}

// readsBack checks that the rule file text holds the rule of rec, with
// enforcement: enforce, and nothing else: every member, every value (a
// string a layout changed, a number read as another type) as the record
// has it, read as a YAML reader reads the file.
func readsBack(rec Record, text []byte) error {
	want, err := decodeDoc(rec.Rule)
	if err != nil {
		return err
	}
	if e := member(want, "enforcement"); e != nil {
		*e = *strNode("enforce")
	} else {
		want.Content = append(want.Content, strNode("enforcement"), strNode("enforce"))
	}
	var file yaml.Node
	if err := yaml.Unmarshal(text, &file); err != nil {
		return err
	}
	if file.Kind != yaml.DocumentNode || len(file.Content) != 1 || file.Content[0].Kind != yaml.MappingNode {
		return errors.New("not one mapping")
	}
	got := file.Content[0]
	if len(got.Content) != len(want.Content) {
		return fmt.Errorf("%d members, the record's rule has %d", len(got.Content)/2, len(want.Content)/2)
	}
	var wv, gv any
	if err := want.Decode(&wv); err != nil {
		return err
	}
	if err := got.Decode(&gv); err != nil {
		return err
	}
	if reflect.DeepEqual(wv, gv) {
		return nil
	}
	for i := 0; i+1 < len(want.Content); i += 2 {
		k := want.Content[i].Value
		g := member(got, k)
		if g == nil {
			return fmt.Errorf("member %q is missing", k)
		}
		var wv, gv any
		if err := want.Content[i+1].Decode(&wv); err != nil {
			return fmt.Errorf("member %q: %v", k, err)
		}
		if err := g.Decode(&gv); err != nil {
			return fmt.Errorf("member %q: %v", k, err)
		}
		if !reflect.DeepEqual(wv, gv) {
			return fmt.Errorf("member %q reads %#v, the record's rule has %#v", k, gv, wv)
		}
	}
	return fmt.Errorf("it reads %#v, the record's rule is %#v", gv, wv)
}

// plainStyles lets the YAML encoder choose each scalar's style (plain
// where it reads the same), as a person would write the file.
func plainStyles(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		n.Style = 0
		if strings.ContainsAny(n.Value, yamlBreaks) {
			// Double-quoted, the one style that writes them as escapes
			// (\N, \L, \P): raw, YAML reads a line break, and oarc fmt
			// refuses the file.
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	for _, c := range n.Content {
		plainStyles(c)
	}
}

// AnchorEffect returns the anchor and the effect of a record's rule ("" for
// a field its document does not have).
func AnchorEffect(rec Record) (anchor, effect string) {
	doc := ruleDoc(rec)
	if a := member(doc, "anchor"); a != nil {
		anchor = a.Value
	}
	if e := member(doc, "effect"); e != nil {
		effect = e.Value
	}
	return anchor, effect
}
