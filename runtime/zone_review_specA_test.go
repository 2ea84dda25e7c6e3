package runtime

import "testing"

// TestLoadZoneSystemOnly: a zone name that only a system's zoneinfo
// directory has is an error on every host (spec 5.13: an unknown name is
// an evaluation error; the embedded database decides). Before,
// "localtime" (the machine's own zone) and "right/UTC" (leap seconds
// counted) loaded where /usr/share/zoneinfo has them and failed elsewhere.
func TestLoadZoneSystemOnly(t *testing.T) {
	for _, name := range []string{"localtime", "posixrules", "right/UTC", "posix/Europe/Paris"} {
		if l, err := LoadZone(name); err == nil {
			t.Errorf("LoadZone(%q) = %v, want an error", name, l)
		}
	}
	for _, name := range []string{"UTC", "Europe/Paris", "Factory", "Etc/GMT+5"} {
		if _, err := LoadZone(name); err != nil {
			t.Errorf("LoadZone(%q): %v", name, err)
		}
	}
}
