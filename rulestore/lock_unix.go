//go:build unix

package rulestore

import (
	"errors"
	"os"
	"syscall"
)

// lockFile waits for an exclusive lock of f (flock(2)): one writer of the
// file at a time, among the stores that opened it, in any process.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlockFile releases the lock of lockFile.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
