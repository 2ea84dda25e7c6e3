//go:build unix

package cli

import (
	"os"
	"syscall"
)

// linkCount is the number of hard links of the file st describes.
func linkCount(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// keepOwner gives f the owner and group of the file st describes, when
// they are not already f's (a file oarc fmt -w replaces keeps them).
func keepOwner(f *os.File, st os.FileInfo) error {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fst, err := f.Stat()
	if err != nil {
		return err
	}
	if t, ok := fst.Sys().(*syscall.Stat_t); ok && t.Uid == s.Uid && t.Gid == s.Gid {
		return nil
	}
	return f.Chown(int(s.Uid), int(s.Gid))
}
