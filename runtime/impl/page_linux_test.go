package impl

import (
	"syscall"
	"testing"
)

// guardedPage is a page of memory between two pages that cannot be read,
// filled with fill: a text at its start or at its end as a string (not a
// copy, which string(b) would make) faults on a read before or after it.
func guardedPage(t testing.TB, fill byte) []byte {
	t.Helper()
	size := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 3*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	if err := syscall.Mprotect(m[:size], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(m[2*size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	page := m[size : 2*size : 2*size]
	for i := range page {
		page[i] = fill
	}
	return page
}

// pageEnd is a page of memory filled with 'q' whose next page cannot be
// read: a search that reads past a text at its end faults.
func pageEnd(t *testing.T) []byte {
	t.Helper()
	return guardedPage(t, 'q')
}
