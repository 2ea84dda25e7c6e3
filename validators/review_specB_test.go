package validators

import (
	"fmt"
	"testing"
)

// Spec 11, "Built-in validators": the forms the spec names, with their
// spans in code points.
func TestReviewSpecBForms(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // "start-end:kind" of each match
	}{
		{"é AKIAIOSFODNN7EXAMPLE", "[{2 22 aws_access_key_id}]"},
		{"ASIAIOSFODNN7EXAMPLE", "[{0 20 aws_access_key_id}]"},
		{"t=ghp_0123456789abcdefghijABCDEFGHIJ012345", "[{2 42 github_token}]"},
		{"gho_0123456789abcdefghijABCDEFGHIJ012345 ghu_0123456789abcdefghijABCDEFGHIJ012345", "[{0 40 github_token} {41 81 github_token}]"},
		{"github_pat_11ABC_def_9 x", "[{0 22 github_token}]"},
		{"xoxb-123-abc-DEF x", "[{0 16 slack_token}]"},
		{"xoxs-1 xoxa-2 xoxr-3 xoxp-4", "[{0 6 slack_token} {7 13 slack_token} {14 20 slack_token} {21 27 slack_token}]"},
		{"sk_live_abcDEF123 more", "[{0 17 stripe_secret_key}]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter", "[{0 66 private_key}]"},
	} {
		if got := fmt.Sprint(AppendSecrets(nil, c.text)); got != c.want {
			t.Errorf("%q: %s, want %s", c.text, got, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want string
	}{
		{"mail a.b+c@example.co.uk now", "[{5 24 email}]"},
		{"card 4111 1111 1111 1111.", "[{5 24 card}]"},
		{"card 4111-1111-1111-1111", "[{5 24 card}]"},
		{"card 4111111111111111", "[{5 21 card}]"},
		{"card 4111 1111 1111 1112", "[]"},
		{"13 digits 4222222222222", "[{10 23 card}]"},
		{"12 digits 422222222222", "[]"},
	} {
		if got := fmt.Sprint(AppendPII(nil, c.text)); got != c.want {
			t.Errorf("%q: %s, want %s", c.text, got, c.want)
		}
	}
}
