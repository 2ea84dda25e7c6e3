package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// JSON tool arguments. Hosts that decode tool_args themselves with
// json.Decoder.UseNumber() may pass json.Number values anywhere: the
// runtime reads each as the number it spells (see the Dyn values comment in
// celdyn.go). DecodeToolArgs does the decoding for them.

// DecodeToolArgs decodes a JSON object of tool arguments into the values
// the runtime reads best: objects as map[string]any, arrays as []any,
// numbers as int64 when written without fraction or exponent and in the
// int64 range, else float64, and strings, bools and null as themselves.
// Arguments that are absent (empty input, or only white space) or JSON
// null are an empty map, as MCP has them (spec 11: "absent or null: an
// empty map"), so that a host may pass a call's raw arguments as they come.
// Anything else but a single JSON object (an array, a string, a number, a
// bool, trailing data after the object, invalid JSON, a number beyond the
// double range) is an error. Duplicate keys keep the last value, as
// encoding/json does.
func DecodeToolArgs(data []byte) (map[string]any, error) {
	// JSON's white space is exactly these four bytes.
	if t := bytes.Trim(data, " \t\r\n"); len(t) == 0 || string(t) == "null" {
		return map[string]any{}, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, errors.New("tool arguments: " + err.Error())
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("tool arguments: data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("tool arguments: not a JSON object")
	}
	if err := numbersIn(m); err != nil {
		return nil, err
	}
	return m, nil
}

// numbersIn replaces the json.Numbers inside v, without recursion (the
// decoder bounds nesting at 10,000 levels; an explicit stack keeps the Go
// stack flat whatever the nesting).
func numbersIn(v any) error {
	stack := []any{v}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := top.(type) {
		case []any:
			for i, e := range x {
				n, err := fromNumber(e)
				if err != nil {
					return err
				}
				x[i] = n
				stack = append(stack, n)
			}
		case map[string]any:
			for k, e := range x {
				n, err := fromNumber(e)
				if err != nil {
					return err
				}
				x[k] = n
				stack = append(stack, n)
			}
		}
	}
	return nil
}

func fromNumber(v any) (any, error) {
	n, ok := v.(json.Number)
	if !ok {
		return v, nil
	}
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, ok := parseInt(s); ok {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, errors.New("tool arguments: number " + s + " does not fit in a double")
	}
	return f, nil
}

func parseInt(s string) (int64, bool) {
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}
