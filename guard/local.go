package guard

// This file owns the guard's own tools: tools that the proxy or the
// middleware offers beside the server's (the rule store's tools of spec 12,
// docs/mcp.md), listed in tools/list and answered by the guard itself,
// never by the server.

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool is a tool the guard answers itself: a name, a description, the
// JSON Schema of its arguments and the handler. Its fields are those of
// rulestore.Tool, so that a host converts the store's tools with
// guard.Tool(t) (the guard does not import the store, which brings the
// compiler and cel-go).
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments (an object).
	Schema json.RawMessage
	// Call runs the tool with the arguments (a JSON object, or empty) and
	// returns the text for the model; an error is the host's (the store
	// could not be written), answered as an error result.
	Call func(ctx context.Context, args json.RawMessage) (string, error)
}

// FindTool returns the tool of tools named name, or nil.
func FindTool(tools []Tool, name string) *Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// AddTools puts the guard's own tools into a tools/list result (raw, a
// ListToolsResult): a server's tool of the same name as one of them is
// left out (the guard's wins: a call of that name is answered by the
// guard, so the listing must describe the guard's tool) and its name is
// returned in shadowed; the guard's tools are appended after the
// server's when first is true (the first page of a paginated listing:
// a later page only loses the shadowed names). A result that is not a
// ListToolsResult is an error, as for [Conn.FilterTools].
func AddTools(raw json.RawMessage, tools []Tool, first bool) (out json.RawMessage, shadowed []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, shadowed, err = nil, nil, fmt.Errorf("guard: internal error listing the guard's tools: %v", r)
		}
	}()
	if len(tools) == 0 {
		return raw, nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, nil, fmt.Errorf("tools/list result is not an object")
	}
	var listed []json.RawMessage
	if v, ok := top["tools"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &listed); err != nil {
			return nil, nil, fmt.Errorf("tools/list: tools: %v", err)
		}
	}
	kept := []json.RawMessage{}
	for i, t := range listed {
		name, ok, ambiguous := toolName(t)
		if !ok {
			return nil, nil, fmt.Errorf("tools/list: tools[%d] has no name", i)
		}
		if ambiguous {
			if FindTool(tools, name) != nil {
				shadowed = append(shadowed, name)
			}
			continue // left out: see toolName
		}
		if FindTool(tools, name) != nil {
			shadowed = append(shadowed, name)
			continue
		}
		kept = append(kept, t)
	}
	if first {
		for _, t := range tools {
			schema := t.Schema
			if len(schema) == 0 || !json.Valid(schema) {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			b, err := json.Marshal(struct {
				Name        string          `json:"name"`
				Description string          `json:"description,omitempty"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}{t.Name, t.Description, schema})
			if err != nil {
				return nil, nil, err
			}
			kept = append(kept, b)
		}
	}
	top["tools"], err = json.Marshal(kept)
	if err != nil {
		return nil, nil, err
	}
	out, err = json.Marshal(top)
	return out, shadowed, err
}

// CallTool runs one of the guard's own tools and returns its
// CallToolResult: the handler's text as one text content item; on the
// host's error (or a panic of the handler) a text saying so, with isError.
// The caller evaluates the call as any other, before ([Conn.Begin]: a
// blocked call never runs the handler) and after ([Call.Finish] with this
// result).
func CallTool(ctx context.Context, t *Tool, args json.RawMessage) (out json.RawMessage) {
	text, isErr := "", false
	func() {
		defer func() {
			if r := recover(); r != nil {
				text, isErr = fmt.Sprintf("%s failed: internal error: %v", t.Name, r), true
			}
		}()
		var err error
		if isNull(args) {
			args = nil
		}
		text, err = t.Call(ctx, args)
		if err != nil {
			text, isErr = fmt.Sprintf("%s failed: %v", t.Name, err), true
		}
	}()
	out, _ = json.Marshal(struct {
		Content []localText `json:"content"`
		IsError bool        `json:"isError,omitempty"`
	}{[]localText{{"text", text}}, isErr}) // strings and bools always marshal
	return out
}

type localText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
