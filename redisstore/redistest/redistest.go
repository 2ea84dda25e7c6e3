// Package redistest is what the tests of the Redis store share: the server
// they run against (OARC_REDIS_ADDR, which .ci/run sets), clients, stores
// with keys of their own, and servers a test starts, stops and pauses
// itself (fault tests). Tests fail, never skip, when there is no server.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/harnessstore"
	"github.com/redis/go-redis/v9"
)

// HowToRun says how to give the tests a server.
const HowToRun = `these tests need a Redis server (7.0 or later): run .ci/run from the repository's root, or start one and name it, e.g.
	redis-server --port 6390 --save '' --appendonly no --daemonize yes
	cd redisstore && OARC_REDIS_ADDR=127.0.0.1:6390 go test ./...`

// Addr returns the server the tests run against, failing t when
// OARC_REDIS_ADDR is not set or the server does not answer.
func Addr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(harnessstore.EnvAddr)
	if addr == "" {
		t.Fatalf("%s is not set: %s", harnessstore.EnvAddr, HowToRun)
	}
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("%s=%s does not answer (%v): %s", harnessstore.EnvAddr, addr, err, HowToRun)
	}
	return addr
}

// Client returns a client of addr with redisstore.ClientOptions, closed
// when t ends.
func Client(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(redisstore.ClientOptions(addr))
	t.Cleanup(func() { c.Close() })
	return c
}

// Prefix returns a key prefix no other test uses; the keys under it are
// deleted through c when t ends (when the server is up).
func Prefix(t testing.TB, c redis.UniversalClient) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	p := "oarctest:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { DeleteKeys(c, p) })
	return p
}

// DeleteKeys deletes the keys under prefix.
func DeleteKeys(c redis.UniversalClient, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		c.Del(ctx, keys...)
	}
}

// Store returns a store on c with a prefix of its own (opts.Prefix is
// replaced).
func Store(t testing.TB, c redis.UniversalClient, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	opts.Prefix = Prefix(t, c)
	s, err := redisstore.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Server is a redis-server a test runs itself, on a loopback port, to stop,
// restart and pause it.
type Server struct {
	Addr    string
	bin     string
	dir     string
	port    int
	persist bool
	extra   []string
	cmd     *exec.Cmd
}

// StartServer starts a server of its own for t (stopped when t ends):
// redis-server from OARC_REDIS_SERVER, else from PATH. With persist it
// keeps an append-only file, fsynced on every write, so that a restart
// keeps the sessions; else a restart loses them. extra are more
// arguments (configuration: "--maxmemory", "4mb").
func StartServer(t testing.TB, persist bool, extra ...string) *Server {
	t.Helper()
	bin := os.Getenv("OARC_REDIS_SERVER")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("redis-server"); err != nil {
			t.Fatalf("no redis-server in PATH (and OARC_REDIS_SERVER is not set): the fault tests run a server of their own; apt-get install -y redis-server, or run .ci/run")
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), bin: bin, dir: t.TempDir(), port: port, persist: persist, extra: extra}
	s.Start(t)
	t.Cleanup(func() {
		if s.cmd != nil {
			s.cmd.Process.Signal(syscall.SIGCONT)
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	return s
}

// Start starts the server (again), on the same port and directory, and
// waits until it answers.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	aof := "no"
	if s.persist {
		aof = "yes"
	}
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", aof, "--appendfsync", "always", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "log")}
	s.cmd = exec.Command(s.bin, append(args, s.extra...)...)
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", s.bin, err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			t.Fatalf("redis-server on %s does not answer: %v\n%s", s.Addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server (a clean shutdown) and waits for it to exit.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// Pause stops the server's process (SIGSTOP): connections stay open and
// nothing answers, a server that answers too late.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// Resume resumes a paused server.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// String names the server.
func (s *Server) String() string { return fmt.Sprintf("redis-server %s (%s)", s.Addr, s.dir) }
