package impl

import (
	"syscall"
	"testing"
)

// pageEnd is a page of memory filled with 'q' whose next page cannot be
// read: a search that reads past a text at its end faults.
func pageEnd(t *testing.T) []byte {
	t.Helper()
	size := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 2*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	if err := syscall.Mprotect(m[size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	page := m[:size]
	for i := range page {
		page[i] = 'q'
	}
	return page
}
