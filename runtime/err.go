package runtime

// ErrKind classifies an evaluation error. The CEL kinds follow cel-go's
// error classes, so that generated code and cel-go can be compared kind for
// kind; the others are oarc's (providers, validators, profiles, the
// context, the session store).
type ErrKind uint8

// The evaluation error kinds. ErrNone is the zero value: no error.
const (
	ErrNone            ErrKind = iota
	ErrNoSuchKey               // map lookup of an absent key: "no such key: k"
	ErrIndexOutOfRange         // list index outside [0, size): "index out of bounds: n" (cel-go's text)
	ErrDivideByZero            // "division by zero"
	ErrModulusByZero           // "modulus by zero"
	ErrIntOverflow             // "integer overflow"
	ErrNoSuchOverload          // operands of the wrong dynamic type: "no such overload"
	ErrConversion              // failed int()/double()/string()/bool() conversion, or range error
	ErrInvalidArgument         // bad argument to a function, e.g. an invalid regex at run time
	ErrNoProvider              // a provider-backed function with no provider registered
	ErrProvider                // a provider returned an error or panicked
	ErrProfile                 // a required profile was not supplied
	ErrDetector                // a validator failed (returned an error or panicked)
	ErrCanceled                // the context was cancelled or its deadline passed before a call
	ErrPanic                   // a panic was recovered at the entry point
	ErrUintOverflow            // "unsigned integer overflow"
	ErrStringIndex             // the strings extension's "index out of range: n"
	ErrNotRegistered           // a detector rule's validator is not registered
	ErrTimeout                 // a validator or provider was still running at the deadline
	ErrStore                   // the session store could not be reached or answered too late
	ErrProvenance              // a provenance fact read with an unrecorded input or an incomplete session
	ErrAnchor                  // the occurrence's anchor is not an anchor of the catalog
	ErrRuleStore               // a live rule of the rule store (spec 12) does not load
)

var errKindNames = [...]string{
	"none", "no_such_key", "index_out_of_range", "divide_by_zero", "modulus_by_zero", "int_overflow",
	"no_such_overload", "conversion", "invalid_argument", "no_provider", "provider", "profile",
	"detector", "canceled", "panic", "uint_overflow", "string_index", "not_registered", "timeout",
	"store", "provenance", "anchor", "rule_store",
}

// String is the kind's stable name, as decision records spell it.
func (k ErrKind) String() string {
	if int(k) < len(errKindNames) {
		return errKindNames[k]
	}
	return "unknown"
}

// Err is an evaluation error as a plain value, so that producing one does
// not allocate. The zero Err means "no error". S and N carry the details
// the message needs (a key, an index, a function or validator name); the
// message is built only when asked for.
type Err struct {
	Kind ErrKind
	S    string
	N    int64
}

// Ok reports whether e is the zero Err (no error).
func (e Err) Ok() bool { return e.Kind == ErrNone }

// Error returns the message cel-go gives for the same error (oarc's own
// messages for the other kinds).
func (e Err) Error() string {
	detail := func(prefix, alt string) string {
		if e.S == "" {
			return alt
		}
		return prefix + e.S
	}
	switch e.Kind {
	case ErrNone:
		return ""
	case ErrNoSuchKey:
		return "no such key: " + e.S
	case ErrIndexOutOfRange:
		// S is the key as cel-go prints it, when it is not an int (a
		// double "1e+10").
		return detail("index out of bounds: ", "index out of bounds: "+itoa(e.N))
	case ErrStringIndex:
		return "index out of range: " + itoa(e.N)
	case ErrDivideByZero:
		return "division by zero"
	case ErrModulusByZero:
		return "modulus by zero"
	case ErrIntOverflow:
		return "integer overflow"
	case ErrUintOverflow:
		return "unsigned integer overflow"
	case ErrNoSuchOverload:
		return detail("no such overload: ", "no such overload")
	case ErrConversion, ErrInvalidArgument:
		return detail("", "invalid argument")
	case ErrNoProvider:
		return "no provider registered for " + e.S
	case ErrProvider:
		return "provider " + e.S + " failed"
	case ErrProfile:
		return "profile not supplied: " + e.S
	case ErrDetector:
		return "validator " + e.S + " failed"
	case ErrNotRegistered:
		return "validator " + e.S + " is not registered"
	case ErrTimeout:
		return e.S + " did not answer before the deadline"
	case ErrCanceled:
		return detail("evaluation canceled: ", "evaluation canceled")
	case ErrPanic:
		return "panic: " + e.S
	case ErrStore:
		return detail("session store: ", "session store unavailable")
	case ErrProvenance:
		return detail("provenance: ", "provenance unknown")
	case ErrAnchor:
		return "unknown anchor " + itoa(e.N)
	case ErrRuleStore:
		return detail("rule store: ", "rule store: a rule does not load")
	}
	return "unknown error kind " + itoa(int64(e.Kind)) + ": " + e.S
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	u := uint64(n)
	if n < 0 {
		u = uint64(-n)
	}
	for u > 0 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	if n < 0 {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
