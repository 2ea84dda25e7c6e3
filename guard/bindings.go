package guard

// This file owns result bindings (spec 11): a successful result is
// validated against the bindings of its server and tool, and the guard
// answers mcp_has_field and the mcp_field_* functions from the result the
// first validating binding matched; it also answers mcp_server_*_for for
// a host that has no registry of its own (the proxy).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

type callKey struct{}

// bind validates the result against the call's bindings.
func (k *Call) bind(r *result) {
	var match []compiled
	for _, b := range k.c.g.bindings {
		if (b.Server == "" || b.Server == k.server.ID) && (b.Tool == "" || b.Tool == k.occ.ToolName) {
			match = append(match, b)
		}
	}
	if len(match) == 0 {
		return
	}
	raw := r.structured
	if raw == nil {
		for i := range r.items {
			if r.items[i].kind == "text" && r.items[i].hasTx {
				raw = json.RawMessage(r.items[i].text)
				break
			}
		}
	}
	if raw == nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return
	}
	if _, err := d.Token(); err == nil {
		return // more than one JSON value: not a JSON document
	}
	for _, b := range match {
		if b.valid(v) {
			k.occ.SchemaMatched = true
			if !k.matched {
				k.matched = true
				k.match, _ = v.(map[string]any)
			}
		}
	}
}

// errNoGuard is the error of the guard's providers called outside an
// evaluation of the guard.
var errNoGuard = errors.New("answered by the MCP guard only: this occurrence is not one of an MCP call")

func callOf(ctx context.Context) (*Call, error) {
	k, _ := ctx.Value(callKey{}).(*Call)
	if k == nil {
		return nil, errNoGuard
	}
	return k, nil
}

// HasField answers mcp_has_field: whether the result the first validating
// binding matched has the top-level field name (not null). Without a
// match it is false.
func HasField(ctx context.Context, name string) (bool, error) {
	k, err := callOf(ctx)
	if err != nil {
		return false, err
	}
	v, ok := k.match[name]
	return ok && v != nil, nil
}

// FieldBool answers mcp_field_bool: the field if it is a bool, else false.
func FieldBool(ctx context.Context, name string) (bool, error) {
	k, err := callOf(ctx)
	if err != nil {
		return false, err
	}
	b, _ := k.match[name].(bool)
	return b, nil
}

// FieldString answers mcp_field_string: the field if it is a string, else "".
func FieldString(ctx context.Context, name string) (string, error) {
	k, err := callOf(ctx)
	if err != nil {
		return "", err
	}
	s, _ := k.match[name].(string)
	return s, nil
}

// FieldInt answers mcp_field_int: the field if it is a JSON number written
// as an integer (no fraction, no exponent) in the int64 range, else 0.
func FieldInt(ctx context.Context, name string) (int64, error) {
	k, err := callOf(ctx)
	if err != nil {
		return 0, err
	}
	n, ok := k.match[name].(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, nil
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, nil
	}
	return i, nil
}

// ServerConfiguredFor answers mcp_server_configured_for for a host
// without a registry of servers (the proxy, which knows one): whether
// name is the call's server and it is configured.
func ServerConfiguredFor(ctx context.Context, name string) (bool, error) {
	k, err := callOf(ctx)
	if err != nil {
		return false, err
	}
	return name == k.server.ID && k.server.Configured, nil
}

// ServerEnabledFor answers mcp_server_enabled_for as
// [ServerConfiguredFor] does: the call's server, configured and enabled.
func ServerEnabledFor(ctx context.Context, name string) (bool, error) {
	k, err := callOf(ctx)
	if err != nil {
		return false, err
	}
	return name == k.server.ID && k.server.Configured && k.server.Enabled, nil
}
