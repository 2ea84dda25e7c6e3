// Package validators holds the validators oarc ships (spec 11, "Built-in
// validators"): oarc.secrets, which finds credentials, and oarc.pii, which
// finds e-mail addresses and payment card numbers. Any host may register
// them; the MCP guard (oarc guard) always does. It also gives hosts'
// own validators the conversion of Go's byte offsets into the code-point
// offsets that span facts carry ([CodePoints], [Spans]).
//
// A validator's Go type is generated per catalog, so this package offers
// the scans themselves, which a host wraps in its catalog's Validator type:
//
//	env.Validators = map[string]lycaon.Validator{
//		validators.SecretsID: func(_ context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
//			if validators.IsContentAnchor(occ.Anchor.String()) {
//				return validators.Secrets(occ.Content), nil
//			}
//			return validators.SecretsInArgs(occ.Facts.ToolArgs)
//		},
//	}
//
// At a content anchor the content is scanned and every match is answered as
// an entry of the span fact, in code points; elsewhere every string in
// tool_args is scanned and a match only sets the hit flag (spec 11: no
// entries for matches in arguments, whose spans would not refer to the
// content). docs/validators.md says exactly what each validator finds.
//
// The package links only the standard library and
// github.com/oarc/oarc/runtime, since it ships in hosts and in the guard.
package validators

import (
	"strings"

	"github.com/oarc/oarc/runtime"
)

// The ids of the built-in validators, as rules name them in `detector:`.
const (
	SecretsID = "oarc.secrets"
	PIIID     = "oarc.pii"
)

// Match is one match in a text: [Start, End) in code points (spec 5.6)
// and its kind (KindAWSAccessKeyID, ..., KindEmail, KindCard).
type Match struct {
	Start, End int64
	Kind       string
}

// AppendSecrets appends the credentials in text to dst, in order.
func AppendSecrets(dst []Match, text string) []Match {
	cp := CodePoints{text: text}
	for i := 0; ; {
		s, e, k, ok := nextSecret(text, i)
		if !ok {
			return dst
		}
		dst = append(dst, Match{cp.Floor(s), cp.Floor(e), k})
		i = e
	}
}

// AppendPII appends the e-mail addresses and card numbers in text to dst,
// in order.
func AppendPII(dst []Match, text string) []Match {
	cp := CodePoints{text: text}
	p := piiScanner{s: text}
	for i := 0; ; {
		s, e, k, ok := p.next(i)
		if !ok {
			return dst
		}
		dst = append(dst, Match{cp.Floor(s), cp.Floor(e), k})
		i = e
	}
}

// HasSecret reports whether text holds a credential; it stops at the first.
func HasSecret(text string) bool {
	_, _, _, ok := nextSecret(text, 0)
	return ok
}

// HasPII reports whether text holds an e-mail address or a card number; it
// stops at the first.
func HasPII(text string) bool {
	p := piiScanner{s: text}
	_, _, _, ok := p.next(0)
	return ok
}

// Secrets is oarc.secrets' answer for an occurrence's content: a hit when
// it holds a credential, with secret_matches, one entry per match (see
// [Entry]; score 1.0). Without a match the fact is supplied empty, so it
// replaces the host's (spec 5.5), and nothing is allocated.
func Secrets(content string) runtime.Detection {
	d := runtime.Detection{Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches}}
	cp := CodePoints{text: content}
	for i := 0; ; {
		s, e, k, ok := nextSecret(content, i)
		if !ok {
			break
		}
		d.Facts.SecretMatches = append(d.Facts.SecretMatches, entry(cp.Floor(s), cp.Floor(e), k))
		i = e
	}
	d.Hit = len(d.Facts.SecretMatches) > 0
	return d
}

// PII is oarc.pii's answer for an occurrence's content: a hit when it
// holds an e-mail address or a card number, with pii_entities, one entry
// per match (kind "email" or "card", score 1.0).
func PII(content string) runtime.Detection {
	d := runtime.Detection{Facts: runtime.DetectorFacts{Has: runtime.HasPiiEntities}}
	cp := CodePoints{text: content}
	p := piiScanner{s: content}
	for i := 0; ; {
		s, e, k, ok := p.next(i)
		if !ok {
			break
		}
		d.Facts.PiiEntities = append(d.Facts.PiiEntities, entry(cp.Floor(s), cp.Floor(e), k))
		i = e
	}
	d.Hit = len(d.Facts.PiiEntities) > 0
	return d
}

// entry is [Entry] with score 1.0 and a kind boxed once for all: the
// entry allocates its map and its offsets, not its kind.
func entry(start, end int64, kind string) map[string]any {
	return map[string]any{"start": start, "end": end, "kind": boxedKind(kind), "score": 1.0}
}

// boxedKind returns the kind as an interface value without allocating
// (a constant converted to an interface is static data).
func boxedKind(kind string) any {
	switch kind {
	case KindAWSAccessKeyID:
		return KindAWSAccessKeyID
	case KindGitHubToken:
		return KindGitHubToken
	case KindPrivateKey:
		return KindPrivateKey
	case KindSlackToken:
		return KindSlackToken
	case KindStripeSecretKey:
		return KindStripeSecretKey
	case KindEmail:
		return KindEmail
	case KindCard:
		return KindCard
	}
	return kind
}

// SecretsInArgs is oarc.secrets' answer away from content: a hit when a
// string anywhere in args (a value or a map key, at any depth) holds a
// credential. secret_matches is supplied empty: spans in arguments would
// not refer to the content. Arguments that cannot be read whole are
// [ErrUnreadableArgs], unless a string that was read already hit.
func SecretsInArgs(args map[string]any) (runtime.Detection, error) {
	hit, err := argsHit(args, HasSecret)
	if err != nil {
		return runtime.Detection{}, err
	}
	return runtime.Detection{Hit: hit, Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches}}, nil
}

// PIIInArgs is oarc.pii's answer away from content, as [SecretsInArgs].
func PIIInArgs(args map[string]any) (runtime.Detection, error) {
	hit, err := argsHit(args, HasPII)
	if err != nil {
		return runtime.Detection{}, err
	}
	return runtime.Detection{Hit: hit, Facts: runtime.DetectorFacts{Has: runtime.HasPiiEntities}}, nil
}

// IsContentAnchor reports whether an anchor id names a content anchor,
// where the validators scan the content rather than tool_args: the ids
// under "content." (content.input, content.output, content.tool_result in
// the default catalog). A host whose catalog names its content anchors
// otherwise decides for itself.
func IsContentAnchor(anchor string) bool {
	return strings.HasPrefix(anchor, "content.")
}

// Validator is a built-in validator: its id, the span fact it answers,
// and its two scans.
type Validator struct {
	ID string
	// SpanFact is the detector fact its content answer supplies
	// (secret_matches, pii_entities), the only one it supplies.
	SpanFact string
	// Content answers for the content at a content anchor.
	Content func(content string) runtime.Detection
	// Args answers for tool_args elsewhere.
	Args func(args map[string]any) (runtime.Detection, error)
}

// Detect answers for one occurrence: the content at a content anchor,
// else the arguments.
func (v Validator) Detect(contentAnchor bool, content string, args map[string]any) (runtime.Detection, error) {
	if contentAnchor {
		return v.Content(content), nil
	}
	return v.Args(args)
}

var builtins = [...]Validator{
	{ID: PIIID, SpanFact: "pii_entities", Content: PII, Args: PIIInArgs},
	{ID: SecretsID, SpanFact: "secret_matches", Content: Secrets, Args: SecretsInArgs},
}

// IDs are the ids of the built-in validators, sorted.
func IDs() []string {
	ids := make([]string, len(builtins))
	for i, v := range builtins {
		ids[i] = v.ID
	}
	return ids
}

// ByID returns the built-in validator with the given id.
func ByID(id string) (Validator, bool) {
	for _, v := range builtins {
		if v.ID == id {
			return v, true
		}
	}
	return Validator{}, false
}
