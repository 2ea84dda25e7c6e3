//go:build unix

package rulestore

import (
	"errors"
	"os"
	"syscall"
)

// tryLockFile takes an exclusive lock of f (flock(2)) if no other
// writer holds it: one writer of the file at a time, among the stores
// that opened it, in any process. It never waits: the store waits
// between tries without holding its mutex (lockAndRead).
func tryLockFile(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// unlockFile releases the lock of tryLockFile.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
