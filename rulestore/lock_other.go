//go:build !unix

package rulestore

import "os"

// lockFile does nothing where flock(2) is not available: writers of one
// file then each count from what they read (docs/store.md, "Who may
// append").
func lockFile(*os.File) error { return nil }

// unlockFile releases the lock of lockFile.
func unlockFile(*os.File) error { return nil }
