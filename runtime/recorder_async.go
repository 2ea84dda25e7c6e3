package runtime

// This file owns the asynchronous recorder: decision records written by a
// goroutine of their own, so that evaluation never waits for a disk.

import (
	"io"
	"sync"
)

// DefaultAsyncQueue is the number of records an [AsyncRecorder] holds
// before it drops, unless [AsyncQueue] says otherwise.
const DefaultAsyncQueue = 4096

// AsyncOption configures [NewAsyncRecorder].
type AsyncOption func(*asyncConfig)

type asyncConfig struct {
	queue int
}

// AsyncQueue sets how many records wait to be written at most (n < 1:
// one). A record that finds the queue full is dropped and counted.
func AsyncQueue(n int) AsyncOption {
	return func(c *asyncConfig) { c.queue = max(n, 1) }
}

// AsyncRecorder writes decision records as JSON Lines, as [JSONLRecorder]
// does, from a goroutine of its own. Record copies the record into a
// bounded queue and returns: it never waits for a write, and once the
// queue's slots have grown to the records' sizes it does not allocate. A
// record that finds the queue full, comes after a write error, or comes
// after Close is dropped and counted, never silently: Dropped and Err
// report them. The writer writes what is queued in one Write per batch.
//
// Close it when done: it writes what is queued and waits for the writer.
// Closing does not close the underlying writer, which stays the host's.
type AsyncRecorder struct {
	w io.Writer

	mu      sync.Mutex
	wake    sync.Cond // the writer waits on it for records or Close
	slots   []Record  // a ring: n records queued from slots[head]
	head, n int
	closed  bool
	err     error
	dropped uint64
	written uint64

	done chan struct{} // closed when the writer has returned
}

// NewAsyncRecorder returns a recorder writing to w from a goroutine it
// starts, which runs until Close.
func NewAsyncRecorder(w io.Writer, opts ...AsyncOption) *AsyncRecorder {
	c := asyncConfig{queue: DefaultAsyncQueue}
	for _, o := range opts {
		o(&c)
	}
	a := &AsyncRecorder{w: w, slots: make([]Record, c.queue), done: make(chan struct{})}
	a.wake.L = &a.mu
	go a.run()
	return a
}

// Record queues a copy of r, or counts it as dropped when it cannot.
func (a *AsyncRecorder) Record(r *Record) {
	a.mu.Lock()
	if a.closed || a.err != nil || a.n == len(a.slots) {
		a.dropped++
		a.mu.Unlock()
		return
	}
	i := a.head + a.n
	if i >= len(a.slots) {
		i -= len(a.slots)
	}
	copyRecord(&a.slots[i], r)
	a.n++
	if a.n == 1 {
		// The writer waits only on an empty queue.
		a.wake.Signal()
	}
	a.mu.Unlock()
}

// copyRecord copies src into dst, reusing dst's lists.
func copyRecord(dst, src *Record) {
	codes, mon, fc, errs, call := dst.Codes[:0], dst.Monitored[:0], dst.FailedClosed[:0], dst.Errors[:0], dst.Call[:0]
	*dst = *src
	dst.Codes = append(codes, src.Codes...)
	dst.Monitored = append(mon, src.Monitored...)
	dst.FailedClosed = append(fc, src.FailedClosed...)
	dst.Errors = append(errs, src.Errors...)
	dst.Call = append(call, src.Call...)
}

// run is the writer: it encodes the queued records outside the lock (the
// slots it reads stay counted in n, so Record does not reuse them), writes
// them in one Write, and frees their slots.
func (a *AsyncRecorder) run() {
	defer close(a.done)
	var buf []byte
	var ends []int
	a.mu.Lock()
	for {
		for a.n == 0 && !a.closed {
			a.wake.Wait()
		}
		if a.n == 0 {
			a.mu.Unlock()
			return
		}
		head, k, failed := a.head, a.n, a.err != nil
		a.mu.Unlock()

		written := 0
		var err error
		if !failed {
			buf, ends = buf[:0], ends[:0]
			for i := 0; i < k; i++ {
				j := head + i
				if j >= len(a.slots) {
					j -= len(a.slots)
				}
				buf = appendRecord(buf, &a.slots[j])
				ends = append(ends, len(buf))
			}
			var m int
			m, err = a.w.Write(buf)
			if err == nil && m < len(buf) {
				err = io.ErrShortWrite
			}
			if err != nil {
				// The lines that were written whole are records; the rest
				// are dropped.
				for written < k && ends[written] <= m {
					written++
				}
			} else {
				written = k
			}
		}

		a.mu.Lock()
		a.head = (head + k) % len(a.slots)
		a.n -= k
		a.written += uint64(written)
		a.dropped += uint64(k - written)
		if err != nil && a.err == nil {
			a.err = err
		}
	}
}

// Close writes what is queued, waits for the writer to finish, and returns
// the first write error. Records after Close are dropped and counted.
// Close may be called more than once; each call returns the same.
func (a *AsyncRecorder) Close() error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		a.wake.Signal()
	}
	a.mu.Unlock()
	<-a.done
	return a.Err()
}

// Err returns the first write error, if any. After it the recorder writes
// nothing more.
func (a *AsyncRecorder) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Dropped returns how many records were not written: those that found the
// queue full or came after Close or a write error, and those of a write
// that failed (a line written in part included).
func (a *AsyncRecorder) Dropped() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dropped
}

// Written returns how many records were written whole.
func (a *AsyncRecorder) Written() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.written
}
