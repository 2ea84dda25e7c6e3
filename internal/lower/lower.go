// Package lower turns cel-go's checked AST of a rule's `when` into IR.
package lower

import (
	"cel.dev/cel-go/cel"

	"github.com/oarc/oarc/ir"
)

// Problem is something the lowering cannot compile, at a byte offset of the
// expression source.
type Problem struct {
	Offset  int
	Code    string // OAR_UNSUPPORTED, OAR_REF, OAR_CEL_TYPE
	Message string
}

// Options carries what the lowering needs beyond the AST.
type Options struct {
	// RuleIDs are the ids of the rules of the pack, for fire_count_of and
	// breaker_count_of references.
	RuleIDs map[string]bool
}

// When lowers a checked expression.
func When(checked *cel.Ast, opts Options) (ir.Expr, []Problem) {
	return nil, nil
}
