package guard

// This file owns tools/list narrowing (spec 11, "Tool lists").

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/oarc/oarc/guard/internal/jsonscan"
)

// FilterTools narrows a tools/list result of the connection's server: when
// the guard [Guard.Narrows], every tool no allow rule can allow is left
// out ([Guard.MayAllow]); otherwise the result is returned as it came. A
// result that is not a ListToolsResult is an error: the caller withholds
// it. Tools are only hidden: a call to one is still evaluated, and
// blocked.
func (c *Conn) FilterTools(raw json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("guard: internal error narrowing tools/list: %v", r)
		}
	}()
	if !c.g.Narrows() {
		return raw, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, fmt.Errorf("tools/list result is not an object")
	}
	if a, b, ok := sameFold(maps.Keys(top)); ok {
		// A client in Go reads the last of them as the tools.
		return nil, fmt.Errorf("tools/list result has the names %+q and %+q, which differ only by case: a client may read either", a, b)
	}
	var tools []json.RawMessage
	if v, ok := top["tools"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &tools); err != nil {
			return nil, fmt.Errorf("tools/list: tools: %v", err)
		}
	}
	server := c.Server().ID
	kept := []json.RawMessage{}
	for i, t := range tools {
		name, ok, ambiguous := toolName(t)
		if !ok {
			return nil, fmt.Errorf("tools/list: tools[%d] has no name", i)
		}
		if !ambiguous && c.g.MayAllow(server, name) {
			kept = append(kept, t)
		}
	}
	top["tools"], _ = json.Marshal(kept)
	return json.Marshal(top)
}

// toolName is the name of a tool of a tools/list result: its member
// "name", spelt exactly so (encoding/json would also read "Name" or
// "NAME", which a client does not), a string; ok is false when it has
// none. A tool that gives "name" twice, or two names that differ only by
// case ("name" and "NAME", which a client in Go decoding with
// encoding/json reads as one, the last), is ambiguous (a client may read
// either): it is left out of the listing, never read otherwise than the
// client reads it. Its name is the member "name" still, when it has one
// (a name of the guard's own tools it shadows).
func toolName(raw json.RawMessage) (name string, ok, ambiguous bool) {
	m, dups, err := jsonscan.MembersDup(raw)
	if err != nil {
		return "", false, false
	}
	if slices.Contains(dups, "name") {
		return "", true, true
	}
	_, _, folded := sameFold(maps.Keys(m))
	v, ok := m["name"]
	if !ok || isNull(v) || json.Unmarshal(v, &name) != nil {
		return "", folded, folded
	}
	return name, true, folded
}
