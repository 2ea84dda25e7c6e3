package validators_test

import (
	"context"
	"fmt"
	"regexp"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/validators"
)

// A host registers the built-in validators in its catalog's Env: the
// content at a content anchor, tool_args elsewhere.
func ExampleByID() {
	env := lycaon.Env{Validators: map[string]lycaon.Validator{}}
	for _, id := range validators.IDs() {
		v, _ := validators.ByID(id)
		env.Validators[id] = func(_ context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			return v.Detect(validators.IsContentAnchor(occ.Anchor.String()), occ.Content, occ.Facts.ToolArgs)
		}
	}

	result := &lycaon.Occurrence{Anchor: lycaon.ContentToolResult, Content: "日本 key=AKIAIOSFODNN7EXAMPLE"}
	d, _ := env.Validators[validators.SecretsID](context.Background(), result)
	fmt.Println(d.Hit, d.Facts.SecretMatches)

	call := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	call.Facts.ToolArgs = map[string]any{"to": []any{"jane@example.com"}}
	d, _ = env.Validators[validators.PIIID](context.Background(), call)
	fmt.Println(d.Hit, len(d.Facts.PiiEntities))
	// Output:
	// true [map[end:27 kind:aws_access_key_id score:1 start:7]]
	// true 0
}

// A host's own validator finds matches with regexp, in bytes, and answers
// spans in code points.
func ExampleCodePoints() {
	content := "über token=abc123"
	cp := validators.NewCodePoints(content)
	var d runtime.Detection
	for _, m := range regexp.MustCompile(`token=\w+`).FindAllStringIndex(content, -1) {
		start, end := cp.Span(m[0], m[1])
		d.Facts.SecretMatches = append(d.Facts.SecretMatches, validators.Entry(start, end, "token", 0.9))
	}
	fmt.Println(d.Facts.SecretMatches)
	// Output: [map[end:17 kind:token score:0.9 start:5]]
}
