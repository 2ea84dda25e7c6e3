package compiler

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zone names check the same at load as at run time (spec 5.13)
)

// maxWindow is the largest window of calls_within and tool_calls_within,
// in seconds (spec 5.13), as the runtime's MaxWindow.
const maxWindow = 86400

// checkZone checks a constant time zone name of local_hour or
// local_weekday (spec 5.13) against the IANA database the binary embeds,
// as the runtime's LoadZone does: "" and "Local", which Go accepts, name
// no IANA zone, and the names only a system's zoneinfo directory has
// (systemOnlyZone) would load here and not on a host without one.
func checkZone(name string) error {
	if name == "" || name == "Local" || systemOnlyZone(name) {
		return fmt.Errorf("%q is not an IANA time zone name (write one such as \"UTC\" or \"Europe/Paris\")", name)
	}
	if _, err := time.LoadLocation(name); err != nil {
		return fmt.Errorf("unknown time zone %q (IANA names such as \"UTC\", \"Europe/Paris\", \"America/New_York\")", name)
	}
	return nil
}

// systemOnlyZone is runtime.SystemOnlyZone (the compiler does not import
// the runtime): "localtime", "posixrules", and the "right/" and "posix/"
// trees of a system's zoneinfo directory, which Go's embedded database
// does not have.
func systemOnlyZone(name string) bool {
	return name == "localtime" || name == "posixrules" ||
		strings.HasPrefix(name, "right/") || strings.HasPrefix(name, "posix/") ||
		!cleanZonePath(name)
}

// cleanZonePath is runtime's: name is a clean relative path, as every IANA
// zone name is (no empty, "." or ".." segment); a system's zoneinfo
// directory opens "Europe//Paris" or "./UTC" as a path, the embedded
// database does not.
func cleanZonePath(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
