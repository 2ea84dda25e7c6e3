// This file owns reading the files of a pack from disk: only regular files
// (a symlink to one is fine), never more than a bounded size, and never in
// a way that blocks on a FIFO or reads a device without end.

package compiler

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// maxFileSize bounds a rule file and pack.yaml (docs/choices-frontend.md).
const maxFileSize = 1 << 20

// ReadRuleFile reads a rule file or pack.yaml the way the loader does:
// [ReadRegularFile] with the 1 MiB limit of rule files. Tools that read
// those files outside a load (oarc fmt) use it, so that they refuse what
// the loader refuses, with the same words.
func ReadRuleFile(path string) ([]byte, error) { return readRegular(path) }

// readRegular reads a rule file or pack.yaml: [ReadRegularFile] with the
// limit of maxFileSize.
func readRegular(path string) ([]byte, error) {
	data, err := ReadRegularFile(path, maxFileSize)
	if errors.Is(err, errFileTooLarge) {
		return nil, errTooLarge
	}
	return data, err
}

// ReadRegularFile reads the regular file at path, following symlinks. Anything
// else (a directory, a FIFO, a device, a socket) and a file above
// limit bytes are errors whose text does not repeat the path. A FIFO is
// never opened in a way that blocks: the mode is checked before opening,
// the file is opened non-blocking, and the mode is checked again on the
// open file before reading at most limit+1 bytes. The tools read every
// file a user names with it: rule files, pack.yaml, catalogs and
// fixtures.
func ReadRegularFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, plainError(err)
	}
	if err := checkRegular(st, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, plainError(err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, plainError(err)
	}
	if err := checkRegular(st, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, plainError(err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

// errFileTooLarge is wrapped by the error of a file above its limit.
var errFileTooLarge = errors.New("the file is too large")

type tooLargeError struct{ limit int64 }

func (e tooLargeError) Error() string {
	return fmt.Sprintf("the file is larger than the limit of %d bytes", e.limit)
}

func (e tooLargeError) Unwrap() error { return errFileTooLarge }

func tooLarge(limit int64) error { return tooLargeError{limit} }

var errTooLarge = fmt.Errorf("the file is larger than the limit of 1 MiB (%d bytes) for rule files and pack.yaml", maxFileSize)

// checkRegular reports a file that is not regular, or above limit bytes.
func checkRegular(st fs.FileInfo, limit int64) error {
	m := st.Mode()
	var what string
	switch {
	case m.IsRegular():
		if st.Size() > limit {
			return tooLarge(limit)
		}
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	default:
		return errors.New("is not a regular file")
	}
	return fmt.Errorf("is %s, not a regular file", what)
}

// plainError drops the operation and path from an *fs.PathError: the
// diagnostic is already at the path.
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// exists reports whether something (even a dangling symlink) is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// isSymlink reports whether path is a symlink (dangling or not).
func isSymlink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}
