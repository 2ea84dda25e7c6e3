package runtime

import (
	"reflect"
	"testing"
)

// fill sets every exported field reachable in v (a settable value) to a
// value that is not its zero: a slice of one element, a pointer to a
// filled value, true, 1, "x".
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Array:
		fill(v.Index(0))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.String:
		v.SetString("x")
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	}
}

// cleared reports the first exported field of v that Reset left set: a
// slice must be empty (its buffer may stay), anything else zero.
func cleared(path string, v reflect.Value) string {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				if p := cleared(path+"."+f.Name, v.Field(i)); p != "" {
					return p
				}
			}
		}
		return ""
	case reflect.Slice:
		if v.Len() != 0 {
			return path
		}
		return ""
	}
	if !v.IsZero() {
		return path
	}
	return ""
}

// TestResetEveryField fills every exported field of a Decision (the
// session facts, their history and its times too), resets it, and checks
// that nothing is left: Reset writes field by field, so a field added
// later and forgotten there would leak one occurrence's answer into the
// next.
func TestResetEveryField(t *testing.T) {
	var d Decision
	fill(reflect.ValueOf(&d).Elem())
	if p := cleared("Decision", reflect.ValueOf(&d).Elem()); p == "" {
		t.Fatal("fill left every field empty: the test checks nothing")
	}
	d.Reset()
	if p := cleared("Decision", reflect.ValueOf(&d).Elem()); p != "" {
		t.Errorf("Reset left %s set", p)
	}
	// Twice: a reset of an empty decision leaves it empty.
	d.Reset()
	if p := cleared("Decision", reflect.ValueOf(&d).Elem()); p != "" {
		t.Errorf("a second Reset left %s set", p)
	}
	// One field at a time, so that a check that skips a group of fields
	// when one of them is empty is caught too.
	var check func(path string, v reflect.Value)
	check = func(path string, v reflect.Value) {
		if v.Kind() == reflect.Struct {
			for i := 0; i < v.NumField(); i++ {
				if f := v.Type().Field(i); f.IsExported() {
					check(path+"."+f.Name, v.Field(i))
				}
			}
			return
		}
		d.Reset()
		fill(v)
		d.Reset()
		if p := cleared("Decision", reflect.ValueOf(&d).Elem()); p != "" {
			t.Errorf("Reset left %s set (only %s was set)", p, path)
		}
	}
	check("Decision", reflect.ValueOf(&d).Elem())
}
