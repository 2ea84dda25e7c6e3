//go:build !unix

package rulestore

import "os"

// tryLockFile does nothing where flock(2) is not available: writers of
// one file then each count from what they read (docs/store.md, "Who may
// append").
func tryLockFile(*os.File) (bool, error) { return true, nil }

// unlockFile releases the lock of tryLockFile.
func unlockFile(*os.File) error { return nil }
