package runtime

// ErrKind classifies an evaluation error. The kinds follow cel-go's error
// classes so that generated code and cel-go can be compared kind for kind.
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
	ErrProvider                // a provider returned an error
	ErrProfile                 // a required profile was not supplied
	ErrDetector                // validator not registered, failed or timed out
	ErrCanceled                // the context was cancelled or its deadline passed
	ErrPanic                   // a panic was recovered at the entry point
)

// Err is an evaluation error as a plain value, so that producing one does
// not allocate. The zero Err means "no error". S and N carry the details
// the message needs (a key, an index, a function name).
type Err struct {
	Kind ErrKind
	S    string
	N    int64
}

// Ok reports whether e is the zero Err (no error).
func (e Err) Ok() bool { return e.Kind == ErrNone }
