package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestZoneSystemOnly: a constant zone name that only a system's zoneinfo
// directory has is OAR_VALUE (spec 5.13), as the runtime rejects it on
// every host. Before, local_hour("localtime") and local_hour("right/UTC")
// loaded on a machine with /usr/share/zoneinfo.
func TestZoneSystemOnly(t *testing.T) {
	for _, zone := range []string{"localtime", "posixrules", "right/UTC", "posix/Europe/Paris"} {
		dir := writePack(t, filepath.Join(t.TempDir(), "p"), "oar: '1.0'\nname: p\n", map[string]string{
			"R": "effect: block\nwhen: 'local_hour(\"" + zone + "\") == 1'\n",
		})
		_, diags := Load([]string{dir}, Options{})
		if text := diags.Text(); !strings.Contains(text, `is not an IANA time zone name`) || !strings.Contains(text, "[OAR_VALUE]") {
			t.Errorf("%s: want OAR_VALUE, got\n%s", zone, text)
		}
	}
}
