// Package ir is oarc's typed intermediate representation.
package ir

// Expr is a typed expression node.
type Expr interface{ isExpr() }
