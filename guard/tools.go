package guard

// This file owns tools/list narrowing (spec 11, "Tool lists").

import (
	"encoding/json"
	"fmt"
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
	var tools []json.RawMessage
	if v, ok := top["tools"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &tools); err != nil {
			return nil, fmt.Errorf("tools/list: tools: %v", err)
		}
	}
	server := c.Server().ID
	kept := []json.RawMessage{}
	for i, t := range tools {
		var tool struct {
			Name *string `json:"name"`
		}
		if err := json.Unmarshal(t, &tool); err != nil || tool.Name == nil {
			return nil, fmt.Errorf("tools/list: tools[%d] has no name", i)
		}
		if c.g.MayAllow(server, *tool.Name) {
			kept = append(kept, t)
		}
	}
	top["tools"], _ = json.Marshal(kept)
	return json.Marshal(top)
}
