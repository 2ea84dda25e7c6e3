package validators

import (
	"fmt"
	"testing"
)

// An OpenPGP secret key in ASCII armor (RFC 4880 section 6.2) is a
// private-key block whose label ends "PRIVATE KEY BLOCK": a credential as
// much as a PEM key, found from its BEGIN line through its END line.
func TestPGPPrivateKeyBlock(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\nafter", "[{0 87 private_key}]"},
		{"x -----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF", "[{2 46 private_key}]"},
		// The END marker's label need not repeat the BEGIN one, as for PEM.
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nk\n-----END PRIVATE KEY-----", "[{0 65 private_key}]"},
		// Public key blocks and signatures are not secrets.
		{"-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----", "[]"},
		{"-----BEGIN PGP SIGNATURE-----\niQIz\n-----END PGP SIGNATURE-----", "[]"},
		// Near misses: a label that goes on after BLOCK, lower case.
		{"-----BEGIN PGP PRIVATE KEY BLOCKS-----\nk", "[]"},
		{"-----BEGIN PGP PRIVATE KEY block-----\nk", "[]"},
	} {
		if got := fmt.Sprint(AppendSecrets(nil, c.text)); got != c.want {
			t.Errorf("%q: %s, want %s", c.text, got, c.want)
		}
		checkInvariants(t, c.text, AppendSecrets(nil, c.text))
	}
}
