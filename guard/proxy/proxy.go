// Package proxy is the stdio MCP proxy of spec 11, the program `oarc
// guard` builds for a compilation set: it starts the upstream MCP server
// as a child process, serves one client on its own stdin and stdout, and
// relays MCP's newline-delimited JSON-RPC 2.0 between them through the
// guard (package guard). Every frame is parsed and classified strictly
// before anything is forwarded, and what is forwarded is re-encoded from
// what was parsed, so that no parser downstream reads a frame otherwise
// than the guard did (duplicate keys, a frame that is both a request and a
// response). tools/call is evaluated and tools/list narrowed; everything
// else (resources, prompts, notifications, progress, cancellation, the
// server's own requests) passes through. With -rules (Config.Rules, a
// proxy built with `oarc guard -rulestore`) a rule store's rules are in
// force and its tools are the proxy's own (docs/mcp.md). The proxy
// imports only the standard library, the runtime and the guard, so that
// `oarc guard` builds it from oarc's embedded source, offline.
package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/jsonscan"
	"github.com/oarc/oarc/runtime"
)

// Config is what the generated main of a proxy gives Main.
type Config struct {
	// Set binds the compilation set with the evaluator options.
	Set func(opts ...runtime.Option) (guard.Set, error)
	// Store, when not nil, opens the Redis session store at addr (the
	// proxy was built with Redis support: oarc guard -redisstore).
	Store func(addr string, ttl time.Duration) (runtime.Store, error)
	// Rules, when not nil, opens the rule store of -rules (spec 12: a
	// JSON Lines file, created when absent) for the proxy's compilation
	// set, its problems written to warn: the proxy was built with rule
	// store support (oarc guard -rulestore). The store's rules are put in
	// force with its Option and its tools offered as the proxy's own.
	Rules func(path string, warn io.Writer) (*RuleStore, error)
	// Version is the oarc version that built the proxy.
	Version string
	// ServerIDs are the server ids the set's selectors name
	// (codegen.GuardServerIDs). When the proxy's server id, given with
	// -server-id or learnt from serverInfo.name, is not one of them, it
	// says so on stderr: the rules that name a server apply to none of
	// its calls, a block no call meets.
	ServerIDs []string
}

// RuleStore is an open rule store as the proxy uses it (the proxy does
// not import package rulestore, which brings the compiler and cel-go: the
// main that oarc guard -rulestore generates adapts it).
type RuleStore struct {
	// Option puts the store's rules in force in the evaluator
	// (runtime.WithRuleStore).
	Option runtime.Option
	// Tools are the store's tools for the agent (rulestore.Store.Tools),
	// listed beside the upstream's and answered by the proxy.
	Tools []guard.Tool
	// Close closes the store (nil: nothing to close).
	Close func() error
}

// Defaults of the flags.
const (
	DefaultTimeout    = 5 * time.Minute
	DefaultAskTimeout = 5 * time.Minute
	DefaultMaxMessage = 32 << 20
	DefaultRedisTTL   = 24 * time.Hour
)

// ConnProfiles are the profiles the proxy supplies on its connection, on
// top of the guard's own ([guard.Profiles]): the session (its counters
// and record) and provenance. A rule requiring another is an evaluation
// error at every call it selects; oarc guard names such rules.
const ConnProfiles = runtime.ProfileSession | runtime.ProfileProvenance

// The JSON-RPC error codes the proxy answers with.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeUpstream is the proxy's own error: the upstream did not answer
	// in time, died, or sent what the guard cannot read (MCP's SDKs use
	// -32001 for a request timeout).
	codeUpstream = -32001
)

const usage = `usage: %[1]s [flags] -- COMMAND [ARG...]

An MCP guard built by oarc guard for the compilation set %[2]q. It starts
COMMAND as the upstream MCP server over stdio and serves one MCP client on
its own stdin and stdout: every tools/call is evaluated by the compiled
rules (blocked, forwarded with a banner and notes, its result redacted or
withheld), tools/list shows only the tools an allow rule can allow (when
the set denies by default), and everything else passes through. Use it as
the "command" of an MCP client's server configuration.

Flags:
`

// Main runs the proxy with the command line args (without the program
// name) and returns the exit status: 0 when the client closed its input,
// 1 when the upstream could not start or died, 2 on bad usage.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, cfg Config) int {
	name := "oarc-guard"
	if len(os.Args) > 0 {
		name = filepath.Base(os.Args[0])
	}
	setName := ""
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{}
	fs.StringVar(&o.serverID, "server-id", "", "the server id S of the upstream (mcp_server_id; tools are mcp_S_T); default: the serverInfo.name it reports when initialised, lowercased, each run of characters other than a-z and 0-9 as one _")
	fs.StringVar(&o.origin, "origin", "", "the origin of the upstream's results in the provenance graph (default: the server id)")
	fs.StringVar(&o.trust, "trust", "", "the trust tier of the upstream's results in the provenance graph, e.g. trusted or untrusted (default: none)")
	fs.Func("label", "a label of the upstream's results in the provenance graph, e.g. confidential (repeatable)", func(s string) error {
		o.labels = append(o.labels, s)
		return nil
	})
	fs.StringVar(&o.session, "session", "", "the oarc session id (default: a fresh random id); with -redis, proxies given the same id share the session")
	fs.StringVar(&o.records, "records", "", "append a decision record (JSON Lines, spec 10) per occurrence to this file, creating it; each record's call is the JSON-RPC request id")
	fs.StringVar(&o.redis, "redis", "", "keep the session in the Redis server at host:port (spec 5.9), shared by every proxy given the same -session")
	fs.DurationVar(&o.redisTTL, "redis-ttl", DefaultRedisTTL, "with -redis: a session expires after this long without use")
	fs.DurationVar(&o.timeout, "timeout", DefaultTimeout, "the client gets an error for a request the upstream has not answered after this long, and the upstream a cancellation (progress notifications restart the wait); an upstream that does not read a message sent to it for this long is stopped; 0: no limit")
	fs.IntVar(&o.maxMessage, "max-message", DefaultMaxMessage, "the largest JSON-RPC message, in bytes, from either side; a larger result is withheld and the client gets an error, never a truncated result")
	fs.DurationVar(&o.askTimeout, "ask-timeout", DefaultAskTimeout, "how long a person has to answer the elicitation of an ask rule (spec 5.12), or a 2026-07-28 client to retry the call with the answer to the question sent back in its result; no answer in time blocks the call")
	fs.BoolVar(&o.notes, "notes", true, "append the notes of nudge firings to the result as a text item (the agent's only channel through a proxy)")
	fs.StringVar(&o.rules, "rules", "", "the rule store (spec 12, a JSON Lines file, created when absent): its rules are in force (candidates monitored, active ones enforced) and its tools (rules_list, rules_search, rule_add, rule_retire, rule_status) are offered beside the upstream's, answered by the proxy and evaluated like any call (needs a proxy built with oarc guard -rulestore)")
	fs.BoolVar(&o.quiet, "quiet", false, "do not log what the proxy drops or refuses to stderr")
	version := fs.Bool("version", false, "print the version and the compilation set, and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, name, setName)
		fs.PrintDefaults()
	}
	var set guard.Set
	var bindErr error
	if cfg.Set != nil {
		set, bindErr = cfg.Set()
		if set != nil {
			setName = set.Info().Name
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "oarc guard %s, set %s (%s)\n", cfg.Version, setName, digestOf(set))
		return 0
	}
	cmdArgs := fs.Args()
	if len(cmdArgs) == 0 {
		fmt.Fprintln(stderr, name+": no upstream command: give it after --")
		fs.Usage()
		return 2
	}
	if o.maxMessage < 1024 {
		fmt.Fprintln(stderr, name+": -max-message is below 1024 bytes")
		return 2
	}
	if o.redis != "" && cfg.Store == nil {
		fmt.Fprintln(stderr, name+": -redis: this proxy was built without Redis support (oarc guard -redisstore DIR)")
		return 2
	}
	if o.rules != "" && cfg.Rules == nil {
		fmt.Fprintln(stderr, name+": -rules: this proxy was built without rule store support (oarc guard -rulestore DIR)")
		return 2
	}
	if set == nil {
		fmt.Fprintf(stderr, "%s: cannot bind the rules: %v\n", name, bindErr)
		return 1
	}
	p, err := newProxy(o, cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	defer p.close()
	if bindErr != nil {
		// A missing host provider: the rules that call it have an error
		// (their on_error applies); oarc guard listed them at build time.
		p.logf("%v", bindErr)
	}
	return p.run(cmdArgs, stdin)
}

func digestOf(s guard.Set) string {
	if s == nil {
		return ""
	}
	return s.Info().Digest
}

type options struct {
	serverID, origin, trust string
	labels                  []string
	session, records, redis string
	rules                   string
	redisTTL, timeout       time.Duration
	askTimeout              time.Duration
	maxMessage              int
	notes, quiet            bool
}

// proxy is one running proxy: one client, one upstream, one session.
type proxy struct {
	// expiring counts the expire calls under way: one may hold an answer
	// owed to the client while its cancellation waits for the upstream,
	// and the proxy's exit when the upstream ends waits for it (see run).
	expiring atomic.Int32
	// workers are the goroutines that evaluate a call or its result off
	// the readers (they may wait for a person's answer): run waits for
	// them when the proxy ends, so that none outlives it.
	workers sync.WaitGroup
	o       options
	cfg     Config
	g       *guard.Guard
	conn    *guard.Conn
	rec     *runtime.AsyncRecorder
	recF    *os.File
	stderr  io.Writer
	// rules is the rule store of -rules (nil without it); tools are its
	// tools, the proxy's own.
	rules *RuleStore
	tools []guard.Tool

	// Writes to the client and to the upstream, one frame at a time.
	outMu sync.Mutex
	out   *bufio.Writer
	upMu  sync.Mutex
	up    io.WriteCloser
	cmd   *exec.Cmd // the upstream

	mu sync.Mutex
	// pending are the client's requests not answered yet, by the key of
	// the client's id; upstream are those forwarded, by the key of the
	// id the proxy gave them upstream (upSeq numbers them). A client may
	// use an id again once its request is answered, cancelled or timed
	// out, and the upstream may answer the first request after that: with
	// the client's ids upstream, that late answer (a tool result no rule
	// evaluated) was taken for the answer to the second request. An id
	// of the proxy's own is never used twice, so a late answer matches
	// nothing and is dropped.
	pending  map[string]*pending
	upstream map[string]*pending
	upSeq    int64
	// elicit says that the client declared the elicitation capability
	// when it initialised: an ask decision (spec 5.12) is put to it with
	// elicitation/create; otherwise no one can be asked.
	elicit bool
	// asks are the proxy's own elicitation requests the client has not
	// answered and the proxy still waits for, by id; ids of its own that
	// are not there (withdrawn, answered) are known by their tag
	// (ownAskID), so that their late answers are dropped without an entry
	// kept for each. askSeq numbers the questions sent back in results.
	asks   map[string]chan *frame
	askSeq int64
	// asked are the questions sent back to a client of modernVersion or
	// later in a call's result (multi round-trip requests), by their
	// requestState, until the retried call brings the answer, they
	// expire, or maxAsked newer ones push them out (see inputRequired).
	asked map[string]*askedCall
	// serverKnown is set once the server id is known (-server-id, or the
	// initialize result).
	serverKnown bool
	closed      bool
	// protocol is the protocol version of the upstream's initialize
	// result (the one the session agreed).
	protocol string
	// command is the upstream's command (for the hints on stderr).
	command string
}

// pending is a client request the upstream has not answered.
type pending struct {
	id  json.RawMessage
	key string // idKey(id)
	// upID is the id the request was forwarded under (the proxy's own,
	// see proxy.upstream), upKey its key; empty until it is forwarded.
	upID   json.RawMessage
	upKey  string
	method string
	call   *guard.Call // tools/call
	timer  *time.Timer
	token  string // params._meta.progressToken, compacted
	// first says that a tools/list request asked for the first page (no
	// cursor): the proxy's own tools are listed there.
	first bool
	// ctx is the request's context while it is pending: stop cancels it
	// when the request is answered, expires, is cancelled or fails (a
	// person asked about a call the client no longer waits for is told,
	// see ask).
	ctx  context.Context
	stop context.CancelFunc
	// modern says that a tools/call is of MCP 2026-07-28 or later (its
	// _meta names the version): see typed. round is then the call's
	// round of a multi round-trip request (see proxy.inputRequired).
	modern bool
	round  *round
	// sent says that the request was forwarded to the upstream: until
	// then its id is only reserved (a tools/call being evaluated, perhaps
	// waiting for a person's answer), so that a second request with the
	// id is refused, and an answer from the upstream for it is dropped.
	sent bool
}

func newProxy(o options, cfg Config, stdout, stderr io.Writer) (*proxy, error) {
	p := &proxy{o: o, cfg: cfg, stderr: stderr, out: bufio.NewWriterSize(stdout, 64<<10), pending: map[string]*pending{}, upstream: map[string]*pending{}, asks: map[string]chan *frame{}, asked: map[string]*askedCall{}}
	var opts []runtime.Option
	if o.records != "" {
		f, err := os.OpenFile(o.records, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("-records: %v", err)
		}
		p.recF = f
		p.rec = runtime.NewAsyncRecorder(f)
		opts = append(opts, runtime.WithRecorder(p.rec))
	}
	if o.rules != "" {
		rs, err := cfg.Rules(o.rules, stderr)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("-rules %s: %v", o.rules, err)
		}
		p.rules, p.tools = rs, rs.Tools
		opts = append(opts, rs.Option)
	}
	set, err := cfg.Set(opts...)
	if errors.Is(err, runtime.ErrRuleStoreSet) {
		// The store checked its rules against another compilation set:
		// never run without the rules the operator asked for.
		p.close()
		return nil, fmt.Errorf("-rules %s: %v", o.rules, err)
	}
	g, err := guard.New(set)
	if err != nil {
		p.close()
		return nil, err
	}
	p.g = g
	id := o.session
	if id == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			p.close()
			return nil, err
		}
		id = hex.EncodeToString(b[:])
	}
	sess := runtime.NewSession(id)
	shared := false
	if o.redis != "" {
		st, err := cfg.Store(o.redis, o.redisTTL)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("-redis %s: %v", o.redis, err)
		}
		sess = runtime.NewStoreSession(st, id)
		shared = true
	}
	p.conn = g.NewConn(sess, p.server(o.serverID), guard.ConnOptions{
		AllInputs: true,
		Shared:    shared,
		Profiles:  ConnProfiles,
		Ask:       p.ask,
	})
	p.serverKnown = o.serverID != ""
	if p.serverKnown {
		p.checkServerID(o.serverID)
	}
	return p, nil
}

// server is the upstream's configuration with server id id.
func (p *proxy) server(id string) guard.Server {
	origin := p.o.origin
	if origin == "" {
		origin = id
	}
	return guard.Server{ID: id, Origin: origin, TrustTier: p.o.trust, Labels: p.o.labels, Configured: true, Enabled: true}
}

func (p *proxy) close() {
	if p.rec != nil {
		if err := p.rec.Close(); err != nil {
			p.logf("-records: %v", err)
		}
		if n := p.rec.Dropped(); n > 0 {
			p.logf("-records: %d decision records were not written", n)
		}
	}
	if p.recF != nil {
		p.recF.Close()
	}
	if p.rules != nil && p.rules.Close != nil {
		if err := p.rules.Close(); err != nil {
			p.logf("-rules: %v", err)
		}
	}
}

func (p *proxy) logf(format string, args ...any) {
	if p.o.quiet {
		return
	}
	fmt.Fprintf(p.stderr, "oarc guard: "+format+"\n", args...)
}

// run starts the upstream and relays until the client closes its input or
// the upstream exits.
func (p *proxy) run(cmdArgs []string, stdin io.Reader) int {
	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stderr = p.stderr
	ownGroup(cmd)
	up, err := cmd.StdinPipe()
	if err != nil {
		p.logf("%v", err)
		return 1
	}
	down, err := cmd.StdoutPipe()
	if err != nil {
		p.logf("%v", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		p.logf("cannot start the upstream: %v", err)
		return 1
	}
	p.up, p.cmd = up, cmd
	p.command = cmdArgs[0]
	upDone := make(chan struct{})
	go func() {
		p.readUpstream(down)
		close(upDone)
	}()
	clientDone := make(chan struct{})
	inEOF := make(chan struct{})
	go func() {
		p.readClient(readAhead(stdin, inEOF))
		close(clientDone)
	}()
	// The client is gone when its messages are all handled, or 4 s after
	// its input ended when they are not: the reader is held up by a write
	// (to an upstream that no longer reads, which with -timeout 0 no
	// deadline stops) and would never see the end of the input. The
	// upstream has until 5 s after the end of the input to exit.
	clientGone := make(chan struct{})
	runDone := make(chan struct{})
	defer close(runDone)
	var deadline time.Time // set before clientGone is closed
	go func() {
		select {
		case <-inEOF:
		case <-runDone:
			return
		}
		deadline = time.Now().Add(5 * time.Second)
		select {
		case <-clientDone:
		case <-time.After(4 * time.Second):
		case <-runDone:
			return
		}
		close(clientGone)
	}()
	code := 0
	select {
	case <-upDone:
		// The upstream closed its output (it exited, or will): every
		// request it did not answer gets an error.
		p.failAll("the MCP server exited")
		code = 1
		waitOrKill(cmd, 2*time.Second)
		// A request that timed out meanwhile may still be owed its
		// answer: its cancellation was held up by the write the
		// upstream stopped reading, which failed as it ended.
		for wait := time.Now().Add(time.Second); p.expiring.Load() > 0 && time.Now().Before(wait); {
			time.Sleep(5 * time.Millisecond)
		}
	case <-clientGone:
		// The client is gone: no answer is owed to it any more, and none
		// is waited for (a client that closed its input may not read its
		// output either, and a write to it may never return). The
		// upstream's input is closed (not under upMu: a write that an
		// upstream that no longer reads holds up fails with it), the
		// upstream gets 5 s to exit and is stopped then.
		p.shut()
		up.Close()
		select {
		case <-upDone:
		case <-time.After(time.Until(deadline)):
		}
		waitOrKill(cmd, time.Until(deadline))
	}
	// Every frame to the client was flushed as it was written (toClient):
	// a write still under way is to a client that does not read, which
	// the proxy does not wait for.
	p.shut()
	// The calls being evaluated finish before the pending requests are
	// forgotten: one whose question got no answer (shut) is blocked, and
	// its answer is owed to a client that may still read; were end first,
	// its answer would race the end and be lost now and then. What is
	// left then ends unanswered (end stops what waits for an answer).
	// Not waited for beyond a second in all: one may be held up by a
	// write to a client that does not read.
	workersDone := make(chan struct{})
	go func() {
		p.workers.Wait()
		close(workersDone)
	}()
	settled := time.Now().Add(time.Second)
	select {
	case <-workersDone:
	case <-time.After(700 * time.Millisecond):
	}
	p.end()
	select {
	case <-workersDone:
	case <-time.After(time.Until(settled)):
	}
	return code
}

// shut stops the timers of the pending requests and answers no more of
// them: the client is gone, or the proxy is done. The questions waiting
// for a person's answer get none (the client's input ended: no answer
// can come), so that their calls are blocked now, not after
// -ask-timeout; no question is put after it (see ask).
func (p *proxy) shut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, q := range p.pending {
		if q.timer != nil {
			q.timer.Stop()
		}
	}
	for k, ch := range p.asks {
		ch <- nil // buffered, and only sent to once (see answer)
		delete(p.asks, k)
	}
}

// end forgets the pending requests when the proxy is done: none is
// answered any more, and what waits for one (a call's evaluation, its
// result's) ends, so that nothing of the proxy outlives run.
func (p *proxy) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, q := range p.pending {
		q.stop()
		delete(p.pending, k)
	}
	clear(p.upstream)
}

// waitOrKill waits for the upstream to exit, killing it after d.
func waitOrKill(cmd *exec.Cmd, d time.Duration) {
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		kill(cmd)
		<-done
	}
}

// readAhead reads r ahead of its reader, up to 1 MiB, and closes eof
// when r ends: the end of the client's input is seen while the proxy's
// reader of it is held up by a write (see run).
func readAhead(r io.Reader, eof chan<- struct{}) io.Reader {
	ch := make(chan []byte, 16)
	a := &aheadReader{ch: ch}
	go func() {
		b := make([]byte, 64<<10)
		for {
			n, err := r.Read(b)
			if n > 0 {
				ch <- bytes.Clone(b[:n]) // what was read, not 64 KiB a read
			}
			if err != nil {
				a.err = err
				close(ch)
				close(eof)
				return
			}
		}
	}()
	return a
}

// aheadReader reads what readAhead read.
type aheadReader struct {
	ch  <-chan []byte
	cur []byte
	err error // set before ch is closed
}

func (a *aheadReader) Read(b []byte) (int, error) {
	for len(a.cur) == 0 {
		c, ok := <-a.ch
		if !ok {
			return 0, a.err
		}
		a.cur = c
	}
	n := copy(b, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

// readFrames calls fn with every line of r, bounded by max: a longer line
// is passed (to tooLong) as its first and last 64 KiB, never whole.
func readFrames(r io.Reader, max int, fn func([]byte), tooLong func(head, tail []byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if n := len(line) + len(chunk); n-ending(line, chunk, err) > max {
			// Keep the head, drain to the end of the line keeping a tail.
			head := append([]byte(nil), line[:min(len(line), 64<<10)]...)
			if len(head) < 64<<10 {
				head = append(head, chunk[:min(len(chunk), 64<<10-len(head))]...)
			}
			tail := append([]byte(nil), chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = br.ReadSlice('\n')
				tail = append(tail, chunk...)
				if len(tail) > 128<<10 {
					tail = append(tail[:0], tail[len(tail)-64<<10:]...)
				}
			}
			tooLong(head, tail)
			line = line[:0]
			if err != nil {
				return
			}
			continue
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			fn(bytes.TrimRight(line, "\r\n"))
		}
		line = line[:0]
		if err != nil {
			return
		}
	}
}

// ending is how many bytes of line+chunk end the line, which the message
// does not hold: its newline (err nil: chunk ends with one) and a
// carriage return before it.
func ending(line, chunk []byte, err error) int {
	if err != nil {
		return 0
	}
	n := 1
	if len(chunk) > 1 && chunk[len(chunk)-2] == '\r' || len(chunk) == 1 && len(line) > 0 && line[len(line)-1] == '\r' {
		n++
	}
	return n
}

// frame is a parsed JSON-RPC message.
type frame struct {
	top    map[string]json.RawMessage
	id     json.RawMessage // compacted; nil when absent
	method string
	kind   kind
}

type kind uint8

const (
	invalid kind = iota
	request
	notification
	response
)

// parse classifies a line strictly: a request has a method and an id
// (a string or a number), a notification a method and no id, a response an
// id and exactly one of result and error; jsonrpc is "2.0". Anything else,
// a batch array included, is invalid, with the reason.
func parse(line []byte) (*frame, string) {
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] == '[' {
		return nil, "a JSON-RPC batch inside a batch"
	}
	f := &frame{}
	if !json.Valid(t) {
		return nil, "not a JSON object"
	}
	// Every string as the guard reads it: a lone surrogate or invalid
	// UTF-8 is U+FFFD for every parser downstream too, not a character
	// one keeps and another drops.
	t = jsonscan.WellFormed(t)
	top, err := jsonscan.Members(t)
	if err != nil {
		return nil, "not a JSON object"
	}
	f.top = top
	var ver string
	if json.Unmarshal(f.top["jsonrpc"], &ver) != nil || ver != "2.0" {
		return f, `jsonrpc is not "2.0"`
	}
	if raw, ok := f.top["id"]; ok {
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return f, "bad id"
		}
		id := b.Bytes()
		if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
			return f, "the id is not a string or a number"
		}
		f.id = id
	}
	_, hasResult := f.top["result"]
	_, hasError := f.top["error"]
	if raw, ok := f.top["method"]; ok {
		if json.Unmarshal(raw, &f.method) != nil {
			return f, "the method is not a string"
		}
		if hasResult || hasError {
			return f, "a message with a method and a result or an error"
		}
		if f.id != nil {
			f.kind = request
		} else {
			f.kind = notification
		}
		return f, folded(f)
	}
	if f.id == nil || hasResult == hasError {
		return f, "neither a request, a notification nor a response"
	}
	f.kind = response
	return f, folded(f)
}

// folded is why a message is refused whose members have two names that
// differ only by case ("result" and "reſult", U+017F): the proxy reads
// and passes on each as written, but a peer in Go that decodes the
// message with encoding/json matches names without regard to case and
// keeps the last, so it would read a member the guard did not evaluate
// (a tool result, a call's arguments). "" when there are none.
//
// A member whose name is one of JSON-RPC's spelt otherwise ("Method",
// "reſult") is refused too, with or without the member it would collide
// with: such a peer reads it as that member (a response with a "Method"
// and "params" is a request to it, an error answer with a "reſult" a
// result), and what is forwarded keeps every member.
func folded(f *frame) string {
	if err := guard.CaseCollision(maps.Keys(f.top)); err != nil {
		return "two members whose names differ only by case (" + err.Error() + ")"
	}
	if name, as := speltOtherwise(f.top, envelope[:]); name != "" {
		return fmt.Sprintf("a member %+q, which a peer may read as %q", name, as)
	}
	return ""
}

// speltOtherwise returns a member name of m that is one of known spelt
// otherwise (only by case), and that name; "" when there is none.
func speltOtherwise(m map[string]json.RawMessage, known []string) (name, as string) {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		for _, k := range known {
			if name != k && strings.EqualFold(name, k) {
				return name, k
			}
		}
	}
	return "", ""
}

// resultSpeltOtherwise is why a tools/call result is withheld that has,
// in the result, a content item or an item's resource, a member the
// guard reads spelt otherwise, alone ("Text", "Content",
// "ſtructuredContent"): the guard reads no text there and passes it on,
// and a client in Go decoding the result with encoding/json reads it as
// the member the guard did not read (see folded). "" when there is none;
// a result that is no object is left to the guard, which refuses it.
func resultSpeltOtherwise(result json.RawMessage) string {
	top, err := jsonscan.Members(result)
	if err != nil {
		return ""
	}
	why := func(where, name, as string) string {
		return fmt.Sprintf("%s has a member %+q, which a client may read as %q", where, name, as)
	}
	if n, as := speltOtherwise(top, resultNames[:]); n != "" {
		return why("the result", n, as)
	}
	items, err := jsonscan.Elements(top["content"])
	if err != nil {
		return ""
	}
	for i, it := range items {
		m, err := jsonscan.Members(it)
		if err != nil {
			continue
		}
		if n, as := speltOtherwise(m, itemNames[:]); n != "" {
			return why(fmt.Sprintf("content[%d]", i), n, as)
		}
		if r, err := jsonscan.Members(m["resource"]); err == nil {
			if n, as := speltOtherwise(r, resourceNames[:]); n != "" {
				return why(fmt.Sprintf("content[%d].resource", i), n, as)
			}
		}
	}
	return ""
}

// The member names of a CallToolResult, of its content items and of an
// embedded resource that the guard reads or writes.
var (
	resultNames   = [...]string{"content", "structuredContent", "isError", "resultType", "_meta"}
	itemNames     = [...]string{"type", "text", "resource", "_meta"}
	resourceNames = [...]string{"text", "blob", "uri", "mimeType", "_meta"}
	// errorNames are those of a JSON-RPC error object.
	errorNames = [...]string{"code", "message", "data"}
)

// envelope are the member names of JSON-RPC 2.0 messages.
var envelope = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// callParams are the member names of the params of tools/call that the
// proxy reads (MCP's CallToolRequest): one spelt otherwise, alone, is
// read as it by a peer in Go (see folded), so that an upstream ran the
// "Arguments" of a call the guard evaluated without arguments.
var callParams = [...]string{"name", "arguments", "_meta", "task", "requestState", "inputResponses"}

// encode re-encodes a frame from what was parsed.
func encode(top map[string]json.RawMessage) ([]byte, error) {
	return jsonscan.AppendObject(nil, top), nil
}

func errorFrame(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	m, _ := json.Marshal(msg)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m))
}

func resultFrame(id, result json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// oneLine returns the frame b without carriage returns: JSON reads one
// as white space, but the MCP Python SDK's stdio transport (Python's
// universal newlines) and Node's readline end a line there, so a frame
// that the proxy read as one message could reach the other side as
// several, one of them a tools/call the guard never saw. A carriage
// return in a valid frame is white space between tokens (one in a string
// is escaped), which compacting removes; a frame that does not compact is
// not sent (ok false).
func oneLine(b []byte) ([]byte, bool) {
	if bytes.IndexByte(b, '\r') < 0 {
		return b, true
	}
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return nil, false
	}
	return c.Bytes(), true
}

func (p *proxy) toClient(b []byte) {
	b, ok := oneLine(b)
	if !ok {
		p.logf("dropped a message to the client that is not valid JSON")
		return
	}
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.out.Write(b)
	p.out.WriteByte('\n')
	if err := p.out.Flush(); err != nil {
		p.logf("writing to the client: %v", err)
	}
}

func (p *proxy) toUpstream(b []byte) error {
	b, ok := oneLine(b)
	if !ok {
		return errors.New("a message that is not valid JSON")
	}
	p.upMu.Lock()
	defer p.upMu.Unlock()
	return p.writeUp(b)
}

// writeUp writes the line b to the upstream; p.upMu is held.
func (p *proxy) writeUp(b []byte) error {
	// An upstream that does not read its input for -timeout answers
	// nothing either: the write fails then, rather than hold up the
	// client's reader (and with it the proxy's exit) for ever.
	d, timed := p.up.(interface{ SetWriteDeadline(time.Time) error })
	timed = timed && p.o.timeout > 0 && d.SetWriteDeadline(time.Now().Add(p.o.timeout)) == nil
	if _, err := p.up.Write(append(b, '\n')); err != nil {
		if timed && errors.Is(err, os.ErrDeadlineExceeded) {
			// The frame is cut short, the upstream's input unusable: the
			// upstream is stopped, and the proxy ends as when it dies.
			p.logf("the MCP server did not read its input for %v: stopping it", p.o.timeout)
			p.up.Close()
			if p.cmd != nil {
				kill(p.cmd)
			}
		}
		return err
	}
	return nil
}

// readClient relays the client's frames to the upstream.
func (p *proxy) readClient(r io.Reader) {
	readFrames(r, p.o.maxMessage, p.fromClient, func(head, tail []byte) {
		if p.unreadAnswer(idOf(head, tail), fmt.Sprintf("larger than -max-message, %d bytes", p.o.maxMessage)) {
			// The answer to the proxy's own elicitation (its id is
			// unguessable): unread, it is no answer, and the call is
			// blocked now rather than after -ask-timeout.
			return
		}
		if responseLike(head) && !bytes.Contains(head, []byte(`"method"`)) && !bytes.Contains(tail, []byte(`"method"`)) {
			// An answer to a request of the upstream (or of the
			// proxy's own, which then gets no answer): its id is not one
			// of the client's requests, and an error under it would
			// answer the client's own request of that id. (A message
			// with a "method" key anywhere may be a request, whose
			// params came first: it gets the error.)
			p.logf("dropped a response of the client larger than -max-message (%d bytes)", p.o.maxMessage)
			return
		}
		id := idOf(head, tail)
		p.logf("refused a message of the client larger than -max-message (%d bytes)", p.o.maxMessage)
		p.toClient(errorFrame(id, codeInvalidRequest, fmt.Sprintf("oarc guard: message larger than %d bytes refused", p.o.maxMessage)))
	})
}

func (p *proxy) fromClient(line []byte) {
	defer func() {
		if r := recover(); r != nil {
			p.logf("internal error on a client message: %v", r)
			p.toClient(errorFrame(nil, codeInternal, "oarc guard: internal error"))
		}
	}()
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
		p.clientBatch(t)
		return
	}
	f, why := parse(line)
	if why != "" {
		p.logf("refused a client message: %s", why)
		var id json.RawMessage
		code := codeInvalidRequest
		if f == nil && why == "not a JSON object" {
			code = codeParse
		}
		if f != nil {
			id = f.id
		}
		if f != nil && f.kind == notification {
			return
		}
		if f != nil && answerLike(f.top) {
			// A response (to a request of the upstream, or of the
			// proxy's own): its id is not one of the client's requests,
			// and an error under it would answer the client's own
			// request of that id. The answer to a question of the
			// proxy's that it cannot read is no answer.
			p.unreadAnswer(f.top["id"], why)
			return
		}
		p.toClient(errorFrame(id, code, "oarc guard: "+why))
		return
	}
	switch f.kind {
	case response, notification:
		if f.kind == response && p.answered(f) {
			return // the answer to the proxy's own elicitation
		}
		if f.kind == notification && f.method == "notifications/cancelled" {
			p.cancelled(f)
			return
		}
		if f.kind == notification && f.method == "tools/call" {
			// A call without an id has no answer to give the client, so
			// the guard cannot evaluate it as a call: never forwarded
			// (an upstream might run it).
			p.logf("dropped a tools/call without an id (a notification): it is never forwarded unevaluated")
			return
		}
		p.forward(f)
	case request:
		p.request(f)
	}
}

// clientBatch refuses a JSON-RPC batch array of the client, forwarding
// nothing of it: MCP 2025-03-26 has batches (a server must accept them),
// later revisions do not, and the proxy relays neither (docs/mcp.md). As
// JSON-RPC 2.0 answers a batch, the answer is one array holding an error
// for each request in it (and for each element that is no message, id
// null), so that no request of the client waits for an answer that never
// comes; notifications and responses in it are dropped, and a batch of
// those only gets no answer. An empty array, or one that is not JSON, gets
// one error.
func (p *proxy) clientBatch(t []byte) {
	var elems []json.RawMessage
	if err := json.Unmarshal(t, &elems); err != nil {
		p.logf("refused a client message: not JSON")
		p.toClient(errorFrame(nil, codeParse, "oarc guard: not a JSON object"))
		return
	}
	if len(elems) == 0 {
		p.logf("refused a client message: an empty JSON-RPC batch")
		p.toClient(errorFrame(nil, codeInvalidRequest, "oarc guard: an empty JSON-RPC batch"))
		return
	}
	p.mu.Lock()
	version := p.protocol
	p.mu.Unlock()
	why := "oarc guard does not relay JSON-RPC batches (MCP " + version + " has them); send each message on a line of its own"
	switch version {
	case "2025-03-26":
	case "":
		why = "oarc guard does not relay JSON-RPC batches; send each message on a line of its own"
	default:
		why = "JSON-RPC batches are not part of MCP " + version + "; send each message on a line of its own"
	}
	out := []byte{'['}
	n := 0
	add := func(id json.RawMessage, code int, msg string) {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, errorFrame(id, code, "oarc guard: "+msg)...)
		n++
	}
	for _, e := range elems {
		f, bad := parse(e)
		if f != nil && (f.kind == response || answerLike(f.top)) {
			// The answer to a question of the proxy's in a batch is not
			// read either: no answer.
			p.unreadAnswer(f.top["id"], "in a JSON-RPC batch")
		}
		switch {
		case bad != "" && f != nil && (f.kind == notification || answerLike(f.top)):
			// No answer to a notification, nor to a response (see
			// fromClient).
		case bad != "":
			var id json.RawMessage
			if f != nil {
				id = f.id
			}
			add(id, codeInvalidRequest, bad)
		case f.kind == request:
			add(f.id, codeInvalidRequest, why)
		}
	}
	p.logf("refused a JSON-RPC batch of %d messages of the client; nothing of it was forwarded", len(elems))
	if n > 0 {
		p.toClient(append(out, ']'))
	}
}

// upstreamBatch drops a JSON-RPC batch array of the upstream; each
// pending request that a response in it names gets an error now, rather
// than after -timeout.
func (p *proxy) upstreamBatch(t []byte) {
	p.logf("dropped a JSON-RPC batch of the MCP server")
	var elems []json.RawMessage
	if json.Unmarshal(t, &elems) != nil {
		return
	}
	for _, e := range elems {
		f, bad := parse(e)
		if bad != "" || f.kind != response {
			continue
		}
		p.mu.Lock()
		q := p.upstream[idKey(f.id)]
		p.mu.Unlock()
		if q != nil && p.take(q.key, q) {
			p.toClient(errorFrame(q.id, codeUpstream, "oarc guard: the MCP server answered in a JSON-RPC batch, which the guard does not relay"))
		}
	}
}

// forward sends a frame to the upstream, re-encoded.
func (p *proxy) forward(f *frame) {
	b, err := encode(f.top)
	if err != nil {
		p.logf("cannot re-encode a client message: %v", err)
		return
	}
	if err := p.toUpstream(b); err != nil {
		p.logf("writing to the upstream: %v", err)
	}
}

// request handles a client request: tools/call is evaluated, every request
// is remembered until its response.
func (p *proxy) request(f *frame) {
	key := idKey(f.id)
	q := &pending{id: bytes.Clone(f.id), key: key, method: f.method}
	q.ctx, q.stop = context.WithCancel(context.Background())
	var params map[string]json.RawMessage
	if raw, ok := f.top["params"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &params); err != nil {
			if f.method == "tools/call" {
				p.toClient(errorFrame(f.id, codeInvalidParams, "oarc guard: params is not an object"))
				return
			}
		}
	}
	if meta, ok := params["_meta"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(meta, &m) == nil {
			if t, ok := m["progressToken"]; ok {
				q.token = idKey(t)
			}
		}
	}
	p.mu.Lock()
	if _, dup := p.pending[key]; dup {
		p.mu.Unlock()
		q.stop()
		p.logf("refused a request whose id %s is already pending", key)
		p.toClient(errorFrame(f.id, codeInvalidRequest, "oarc guard: a request with this id is already pending"))
		return
	}
	// The id is reserved from now on, while the request is evaluated
	// (call releases it when it does not forward the request).
	p.pending[key] = q
	if f.method == "tools/list" {
		// Absent, null or empty: the first page. A cursor that is not a
		// string is not a first page (the upstream answers it).
		var cursor string
		err := json.Unmarshal(params["cursor"], &cursor)
		q.first = params["cursor"] == nil || isNull(params["cursor"]) || err == nil && cursor == ""
	}
	if f.method == "tools/call" {
		q.modern = modernRequest(params)
		if q.modern {
			q.round = &round{elicit: modernElicit(params)}
		}
	}
	if f.method == "initialize" {
		// Names spelt exactly, as the SDKs read them (encoding/json
		// would read "Elicitation" too).
		caps, _ := jsonscan.Members(params["capabilities"])
		p.elicit = formElicitation(caps["elicitation"])
	}
	elicit := p.elicit
	p.mu.Unlock()
	if f.method == "tools/call" && elicit && !q.modern {
		// The call may wait for a person's answer, which comes back on
		// the client's stream: evaluate it off the reader, on a copy of
		// the frame (its values point into the reader's buffer).
		g := &frame{kind: f.kind, method: f.method, id: q.id, top: make(map[string]json.RawMessage, len(f.top))}
		for k, v := range f.top {
			g.top[k] = bytes.Clone(v)
		}
		p.workers.Go(func() { p.call(g, q, key, params) })
		return
	}
	p.call(f, q, key, params)
}

// call evaluates a tools/call (other requests pass) and sends what goes
// ahead to the upstream, remembering it until its response.
func (p *proxy) call(f *frame, q *pending, key string, params map[string]json.RawMessage) {
	sent := false
	defer func() {
		if !sent {
			// Answered here, or refused: the id is free again.
			p.take(key, q)
		}
	}()
	// answer answers the request here, never forwarded: the id is freed
	// first, so that a client that reuses it once it has the answer is
	// not refused. A request no longer pending (cancelled by the client,
	// or answered with an error when the upstream died) gets no answer.
	answer := func(b []byte) {
		if p.take(key, q) {
			p.toClient(b)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			p.logf("internal error on a client request: %v", r)
			answer(internalError(p, f.method, q, r))
		}
	}()
	if panicHook != nil {
		panicHook("request", f.method)
	}
	if f.method == "tasks/result" {
		// A task's result is a tool result the guard never evaluated.
		// Task-augmented calls are refused (below), so this task is not
		// one the guard saw: refused, never forwarded.
		answer(errorFrame(f.id, codeInvalidParams, "oarc guard: tasks/result is not supported: a task's result would reach the client unevaluated"))
		return
	}
	if f.method == "tools/call" {
		var name string
		if json.Unmarshal(params["name"], &name) != nil {
			answer(errorFrame(f.id, codeInvalidParams, "oarc guard: tools/call without a tool name"))
			return
		}
		if err := guard.CaseCollision(maps.Keys(params)); err != nil {
			// The upstream may read the member the guard did not (the
			// arguments of "argumentſ"), see folded.
			answer(errorFrame(f.id, codeInvalidParams, "oarc guard: the params of tools/call have "+err.Error()))
			return
		}
		if n, as := speltOtherwise(params, callParams[:]); n != "" {
			// Alone too: the upstream may read the arguments of
			// "Arguments", which the guard did not evaluate.
			answer(errorFrame(f.id, codeInvalidParams, fmt.Sprintf("oarc guard: the params of tools/call have a member %+q, which a peer may read as %q", n, as)))
			return
		}
		if _, ok := params["task"]; ok {
			// A task-augmented call is answered by a task id, its result
			// fetched later with tasks/result, which the guard does not
			// follow: refused, never forwarded unevaluated.
			answer(errorFrame(f.id, codeInvalidParams, "oarc guard: task-augmented tools/call is not supported; call the tool without a task"))
			return
		}
		p.mu.Lock()
		known := p.serverKnown
		p.mu.Unlock()
		if !known {
			// Without -server-id the server id is the upstream's
			// serverInfo.name: before the upstream answered initialize
			// the call's facts (tool = mcp_S_T, mcp_server_id) are not
			// known, and a call evaluated with another id would escape
			// every rule that names the server. MCP clients call tools
			// after initialize; some servers run a call before it.
			answer(resultFrame(f.id, p.typed(q, guard.Refused(errors.New("the MCP server has not answered initialize yet, so its server id is not known; call tools after initialize, or give -server-id")))))
			return
		}
		if q.ctx.Err() != nil {
			// Cancelled by the client (or failed) before it was
			// evaluated: no occurrence, and no answer.
			return
		}
		argsRaw := params["arguments"]
		ctx := q.ctx
		if r := q.round; r != nil {
			if err := p.retried(r, name, params); err != nil {
				answer(errorFrame(f.id, codeInvalidParams, "oarc guard: "+err.Error()))
				return
			}
			ctx = context.WithValue(ctx, roundKey{}, r)
		}
		if r := q.round; r != nil && r.elicit && !r.Answered {
			// The first round of a call that may need a person's yes: if
			// it does, the question goes back in the result and the
			// retry with the answer is the action's one occurrence, so
			// this round is only previewed (it changes nothing).
			if pk := p.conn.Preview(ctx, f.id, name, argsRaw); r.Question != "" && pk.Code() != guard.CodeGuard {
				answer(resultFrame(f.id, p.typed(q, p.inputRequired(r, pk, name, params))))
				return
			}
			r.Question = ""
		}
		k := p.conn.Begin(ctx, f.id, name, argsRaw)
		if r := q.round; r != nil && r.Question != "" && !r.Answered && k.Code() != guard.CodeGuard {
			// The session changed since the preview: this round was
			// evaluated, and asks.
			// The question goes back in the result; the client retries
			// the call with the person's answer.
			answer(resultFrame(f.id, p.typed(q, p.inputRequired(r, k, name, params))))
			return
		}
		if b := k.Blocked(); b != nil {
			out := k.Finish(context.Background(), nil, 0, guard.FinishOptions{AppendNotes: p.o.notes})
			answer(resultFrame(f.id, p.typed(q, out)))
			return
		}
		if t := guard.FindTool(p.tools, name); t != nil {
			// The proxy's own tool: answered here, evaluated after the
			// call like any result, never forwarded.
			// Bounded like a forwarded call, for a handler that heeds
			// its context.
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if p.o.timeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, p.o.timeout)
			}
			res := guard.CallTool(ctx, t, argsRaw)
			cancel()
			out := k.Finish(context.Background(), res, 0, guard.FinishOptions{AppendNotes: p.o.notes})
			answer(resultFrame(f.id, p.typed(q, out)))
			return
		}
		// Forward what was evaluated: the arguments re-encoded from the
		// same decoding (duplicate keys resolved as the guard read them,
		// numbers as written); null, which MCP's schema does not allow
		// there and each server reads its own way, as the {} the rules
		// read (spec 11: absent or null, an empty map).
		if argsRaw != nil && isNull(argsRaw) {
			params["arguments"] = json.RawMessage("{}")
		} else if argsRaw != nil {
			args, err := guard.CanonicalArgs(argsRaw)
			if err != nil {
				answer(errorFrame(f.id, codeInvalidParams, "oarc guard: arguments: "+err.Error()))
				return
			}
			params["arguments"] = args
		}
		if m, ok := withoutTaskExtension(params["_meta"]); ok {
			params["_meta"] = m
		}
		pb, err := json.Marshal(params)
		if err != nil {
			answer(errorFrame(f.id, codeInternal, "oarc guard: cannot re-encode the call"))
			return
		}
		f.top["params"] = pb
		q.call = k
	}
	p.mu.Lock()
	if p.closed || p.pending[key] != q {
		// Closed, cancelled or failed while it was evaluated: the client
		// expects no answer any more.
		p.mu.Unlock()
		return
	}
	// Forwarded under an id of the proxy's own, never used before.
	p.upSeq++
	q.upID = json.RawMessage(strconv.FormatInt(p.upSeq, 10))
	q.upKey = idKey(q.upID)
	p.upstream[q.upKey] = q
	if p.o.timeout > 0 {
		q.timer = time.AfterFunc(p.o.timeout, func() { p.expire(key, q) })
	}
	q.sent, sent = true, true
	p.mu.Unlock()
	f.top["id"] = q.upID
	b, err := encode(f.top)
	if err != nil {
		if p.take(key, q) {
			p.toClient(errorFrame(q.id, codeInternal, "oarc guard: cannot re-encode the request"))
		}
		return
	}
	if err := p.toUpstream(b); err != nil {
		p.logf("writing to the upstream: %v", err)
		// Unless answered meanwhile (timed out, or failed when the
		// upstream died): one answer per request.
		if p.take(key, q) {
			p.toClient(errorFrame(f.id, codeUpstream, "oarc guard: the MCP server is not reachable"))
		}
	}
}

// ask puts the question of an ask decision to the client with
// elicitation/create (spec 5.12): a requested schema of one boolean,
// approve; approved only on action "accept" with approve true. A client
// that did not declare the capability is no way to ask; no answer within
// -ask-timeout, an error answer or a closed proxy is no.
func (p *proxy) ask(ctx context.Context, question string) (bool, error) {
	if r, _ := ctx.Value(roundKey{}).(*round); r != nil {
		return r.ask(question)
	}
	p.mu.Lock()
	if !p.elicit || p.closed {
		elicit := p.elicit
		p.mu.Unlock()
		if !elicit {
			p.logf("a rule asks a person, and the client did not declare the elicitation capability: the call is blocked")
		}
		return false, guard.ErrCannotAsk
	}
	if err := ctx.Err(); err != nil {
		// The client cancelled the call (or it failed) before the
		// question was put: a person is not asked about a call that
		// will not run whatever they answer. (Checked under p.mu, which
		// a cancellation takes to stop the call: one that comes later
		// withdraws the question.)
		p.mu.Unlock()
		return false, err
	}
	// The id is not guessable: the client's answer comes back on the
	// stream that also carries its answers to the upstream's requests,
	// and an upstream that gave its own question the id of the proxy's
	// would have the person's answer to it taken for an approval. It is
	// tagged (guard.NewAskState), so that once the question is withdrawn
	// the proxy still knows a late answer to it for its own, and drops it
	// rather than relay it to the upstream, with no entry kept for it.
	state, err := guard.NewAskState()
	if err != nil {
		p.mu.Unlock()
		return false, err
	}
	id, _ := json.Marshal(askIDPrefix + state)
	ch := make(chan *frame, 1)
	p.asks[idKey(id)] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.asks, idKey(id))
		p.mu.Unlock()
	}()
	req, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "elicitation/create",
		"params": map[string]any{"mode": "form", "message": question, "requestedSchema": guard.ApproveSchema()},
	})
	if err != nil {
		return false, err
	}
	p.toClient(req)
	t := time.NewTimer(p.o.askTimeout)
	defer t.Stop()
	select {
	case f := <-ch:
		if f == nil {
			return false, errors.New("no answer: the client's answer cannot be read, or its input ended")
		}
		res, ok := f.top["result"]
		if !ok {
			return false, errors.New("the client answered the elicitation with an error")
		}
		return approvedAnswer(res), nil
	case <-t.C:
		p.withdraw(id, "no answer in time: the call is blocked")
		return false, fmt.Errorf("no answer within %v", p.o.askTimeout)
	case <-ctx.Done():
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if !closed { // else the client is gone
			p.withdraw(id, "the call is no longer pending")
		}
		return false, ctx.Err()
	}
}

// withdraw tells the client that the proxy no longer waits for the answer
// to its elicitation id (notifications/cancelled), so that a person is not
// left asked about a call that will not run whatever they answer.
func (p *proxy) withdraw(id json.RawMessage, reason string) {
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": id, "reason": reason},
	})
	if err == nil {
		p.toClient(b)
	}
}

// approvedAnswer reads an ElicitResult: a yes only with the member
// "action" the string "accept" and "content" an object whose member
// "approve" is true, each spelt exactly so (encoding/json would also read
// "Action" or "APPROVE", which the client did not write as the answer).
func approvedAnswer(res json.RawMessage) bool {
	if !oneMeaning(res) {
		return false // a name given twice says both things: no explicit yes
	}
	top, err := jsonscan.Members(res)
	if err != nil {
		return false
	}
	var action string
	if json.Unmarshal(top["action"], &action) != nil || action != "accept" {
		return false
	}
	content, err := jsonscan.Members(top["content"])
	if err != nil {
		return false
	}
	var approve bool
	return json.Unmarshal(content["approve"], &approve) == nil && approve
}

// answered hands a client response to the elicitation that waits for it,
// and reports whether one did.
func (p *proxy) answered(f *frame) bool {
	return p.answer(f.id, f)
}

// unreadAnswer ends the wait for the answer to the proxy's elicitation
// whose id is raw, when it is one, with no answer, and reports whether it
// was: the client answered it in a message the proxy does not read (why
// says how), and the call is blocked now rather than after -ask-timeout.
func (p *proxy) unreadAnswer(raw json.RawMessage, why string) bool {
	id := usableID(raw)
	if id == nil {
		return false
	}
	p.mu.Lock()
	_, waits := p.asks[idKey(id)]
	p.mu.Unlock()
	if !p.answer(id, nil) {
		return false
	}
	if !waits {
		p.logf("dropped an answer the proxy cannot read (%s) to a question it no longer waits for", why)
		return true
	}
	p.logf("the client's answer to a question about a call cannot be read (%s): no answer, the call is blocked", why)
	return true
}

// answer hands the elicitation of id the client's response f (nil: one
// too large to read, no answer), and reports whether it was one of the
// proxy's elicitations: one it waits for, or one it no longer waits for
// (withdrawn, or answered already), whose answer is dropped.
func (p *proxy) answer(id json.RawMessage, f *frame) bool {
	p.mu.Lock()
	ch, ok := p.asks[idKey(id)]
	delete(p.asks, idKey(id))
	p.mu.Unlock()
	if !ok {
		return ownAskID(id)
	}
	ch <- f
	return true
}

// askIDPrefix begins the ids of the proxy's elicitations; a tag of the
// process follows (guard.NewAskState).
const askIDPrefix = "oarc-ask-"

// ownAskID says whether id is the id of an elicitation of the proxy's
// (one it made in this process: its tag tells, whether it still waits
// for the answer or not).
func ownAskID(id json.RawMessage) bool {
	var s string
	if json.Unmarshal(id, &s) != nil {
		return false
	}
	st, ok := strings.CutPrefix(s, askIDPrefix)
	return ok && guard.IsAskState(st)
}

// take removes q from the pending requests; false when it was not there
// any more (answered, expired or cancelled meanwhile).
func (p *proxy) take(key string, q *pending) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending[key] != q {
		return false
	}
	delete(p.pending, key)
	if q.upKey != "" && p.upstream[q.upKey] == q {
		delete(p.upstream, q.upKey)
	}
	if q.timer != nil {
		q.timer.Stop()
	}
	q.stop()
	return true
}

// expire answers a request the upstream did not answer in time.
func (p *proxy) expire(key string, q *pending) {
	p.expiring.Add(1)
	defer p.expiring.Add(-1)
	p.mu.Lock()
	// Answered meanwhile (a call's result being evaluated, see arrived):
	// not timed out.
	closed := p.closed || q.upKey != "" && p.upstream[q.upKey] != q
	p.mu.Unlock()
	if closed || !p.take(key, q) {
		return
	}
	p.logf("the MCP server did not answer request %s (%s) within %v", key, q.method, p.o.timeout)
	if q.method == "initialize" {
		p.logf("hint: the MCP server (%s) did not answer initialize within %v: run the command alone to see that it starts and speaks MCP over stdio (JSON-RPC lines on its stdout, anything else on its stderr); npx -y may be waiting for the npm registry (install the package and give its binary as the command)", p.command, p.o.timeout)
	}
	// MCP: a sender that times out a request SHOULD cancel it, so that
	// the upstream does not go on with a call the client was told
	// failed (cancelled first: the client may act on the error at once).
	// Not initialize, which MCP forbids cancelling.
	// Not while another write to the upstream is under way, though: one
	// that the upstream does not read holds the cancellation up for as
	// long as -timeout, and with it the answer owed to the client, which
	// was lost when the proxy stopped that upstream meanwhile and exited.
	// The client is answered first then.
	p.mu.Lock()
	upID := q.upID
	p.mu.Unlock()
	answer := errorFrame(q.id, codeUpstream, fmt.Sprintf("oarc guard: the MCP server did not answer within %v", p.o.timeout))
	if upID == nil || q.method == "initialize" {
		p.toClient(answer)
		return
	}
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": upID, "reason": "oarc guard: no answer within " + p.o.timeout.String()},
	})
	if err != nil {
		p.toClient(answer)
		return
	}
	b, _ = oneLine(b)
	if p.upMu.TryLock() {
		err = p.writeUp(b)
		p.upMu.Unlock()
		p.toClient(answer)
	} else {
		p.toClient(answer)
		err = p.toUpstream(b)
	}
	if err != nil {
		p.logf("writing to the upstream: %v", err)
	}
}

// cancelled forgets a request the client cancelled: the client expects no
// answer, and a late one is dropped (never forwarded unevaluated). The
// cancellation is forwarded, under the id the upstream knows the request
// by, when the request was forwarded; otherwise (unknown, answered, not
// forwarded yet) the upstream has nothing to cancel, and the client's id
// could name another request of the upstream: it is dropped.
func (p *proxy) cancelled(f *frame) {
	var params map[string]json.RawMessage
	if json.Unmarshal(f.top["params"], &params) != nil || params["requestId"] == nil {
		p.logf("dropped a notifications/cancelled without a requestId")
		return
	}
	key := idKey(params["requestId"])
	p.mu.Lock()
	q := p.pending[key]
	var upID json.RawMessage
	if q != nil && q.sent && p.upstream[q.upKey] == q {
		// Forwarded, and not answered yet (a call's answer may be under
		// evaluation, see arrived: the upstream has nothing to cancel).
		upID = q.upID
	}
	p.mu.Unlock()
	if q == nil || !p.take(key, q) || upID == nil {
		return
	}
	params["requestId"] = upID
	b, err := json.Marshal(params)
	if err != nil {
		return
	}
	f.top["params"] = b
	p.forward(f)
}

// failAll answers every pending request with an error.
func (p *proxy) failAll(why string) {
	p.mu.Lock()
	qs := make([]*pending, 0, len(p.pending))
	clear(p.upstream)
	for k, q := range p.pending {
		qs = append(qs, q)
		delete(p.pending, k)
		if q.timer != nil {
			q.timer.Stop()
		}
		q.stop()
	}
	p.mu.Unlock()
	for _, q := range qs {
		p.toClient(errorFrame(q.id, codeUpstream, "oarc guard: "+why))
	}
}

// readUpstream relays the upstream's frames to the client.
func (p *proxy) readUpstream(r io.Reader) {
	readFrames(r, p.o.maxMessage, p.fromUpstream, func(head, tail []byte) {
		id := idOf(head, tail)
		p.logf("withheld a message of the MCP server larger than -max-message (%d bytes)", p.o.maxMessage)
		if id == nil || !responseLike(head) {
			// No answer (a request of the server's own, whose id is
			// the server's, not the number of a pending request).
			return
		}
		p.mu.Lock()
		q := p.upstream[idKey(id)]
		p.mu.Unlock()
		if q == nil || !p.take(q.key, q) {
			return
		}
		p.toClient(errorFrame(q.id, codeUpstream, fmt.Sprintf("oarc guard: the MCP server's answer is larger than %d bytes; it was withheld", p.o.maxMessage)))
	})
}

func (p *proxy) fromUpstream(line []byte) {
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
		p.upstreamBatch(t)
		return
	}
	f, why := parse(line)
	if why != "" {
		p.malformed(line, f, why)
		return
	}
	if f.kind != response {
		if f.kind == notification && f.method == "notifications/progress" {
			p.progress(f)
		}
		b, err := encode(f.top)
		if err != nil {
			p.logf("cannot re-encode a message of the MCP server: %v", err)
			return
		}
		p.toClient(b)
		return
	}
	key := idKey(f.id)
	q, exact := p.answering(f.id)
	if q != nil && !exact {
		p.malformed(line, f, "the id is a string, not the number of the request")
		return
	}
	if q == nil || !p.arrived(q) {
		// Unknown, answered, timed out, cancelled, or not forwarded yet
		// (an answer before the request is no answer).
		p.logf("dropped a response for id %s, which no pending request has", key)
		return
	}
	if q.call != nil && p.mayAsk(q) {
		// Evaluating the result may wait for a person's answer (an ask
		// rule after the call), which comes back on the client's stream:
		// off this reader, which relays the upstream's other messages
		// meanwhile (its values point into the reader's buffer).
		g := &frame{kind: f.kind, method: f.method, id: bytes.Clone(f.id), top: make(map[string]json.RawMessage, len(f.top))}
		for k, v := range f.top {
			g.top[k] = bytes.Clone(v)
		}
		p.workers.Go(func() { p.respond(g, q) })
		return
	}
	p.respond(f, q)
}

// arrived takes q out of the requests the upstream owes an answer (a
// second answer is dropped) and stops its timer, when it is one; false
// otherwise. A tools/call stays pending, its id reserved and its
// cancellation heard, until its result is evaluated and sent (respond):
// evaluating it may wait for a person's answer. Any other request is
// no longer pending.
func (p *proxy) arrived(q *pending) bool {
	if q.call == nil {
		return p.take(q.key, q)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending[q.key] != q || q.upKey == "" || p.upstream[q.upKey] != q {
		return false
	}
	delete(p.upstream, q.upKey)
	if q.timer != nil {
		q.timer.Stop()
	}
	return true
}

// mayAsk says whether evaluating the call q may put a question to the
// client by elicitation during it (a client of an earlier version than
// modernVersion that declared the capability), as in request.
func (p *proxy) mayAsk(q *pending) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.elicit && !q.modern
}

// malformed handles a message of the upstream that is not a well-formed
// JSON-RPC message (why says how). When it answers a pending request (it
// has a result or an error, no method before them, and the id of the
// request), the request gets an error now, rather than after -timeout:
// nothing of what the guard could not read reaches the client. Otherwise
// it is dropped and logged: its id names no request (it is absent, null,
// an object, unknown), or it is a request or notification of the
// server's own (whose ids are the server's).
func (p *proxy) malformed(line []byte, f *frame, why string) {
	var id json.RawMessage
	if f == nil {
		// Not JSON: a response cut short, say. Its id, when it has one
		// before its result or error.
		if responseLike(line) {
			id = idOf(line[:min(len(line), 64<<10)], line[max(0, len(line)-64<<10):])
		}
	} else {
		_, hasResult := f.top["result"]
		_, hasError := f.top["error"]
		if hasResult || hasError {
			id = usableID(f.top["id"])
		}
	}
	if q, _ := p.answering(id); q != nil && p.take(q.key, q) {
		p.logf("withheld the MCP server's answer to request %s (%s): %s", q.key, q.method, why)
		p.toClient(errorFrame(q.id, codeUpstream, "oarc guard: the MCP server's answer is malformed ("+why+"); it was withheld"))
		return
	}
	p.logf("dropped a message of the MCP server that answers no pending request: %s", why)
}

// answerLike says whether a message is shaped as a response: no method
// (in any case) and a result or an error (in any case, as a peer in Go
// reads them).
func answerLike(top map[string]json.RawMessage) bool {
	answer := false
	for name := range top {
		switch {
		case strings.EqualFold(name, "method"):
			return false
		case strings.EqualFold(name, "result"), strings.EqualFold(name, "error"):
			answer = true
		}
	}
	return answer
}

// responseLike says whether a line that is not JSON has a "result" or an
// "error" key, with no "method" key before it.
func responseLike(line []byte) bool {
	i := bytes.Index(line, []byte(`"result"`))
	if j := bytes.Index(line, []byte(`"error"`)); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i >= 0 && !bytes.Contains(line[:i], []byte(`"method"`))
}

// usableID is the id raw compacted when it is a string or a number, else
// nil.
func usableID(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if raw == nil || json.Compact(&b, raw) != nil {
		return nil
	}
	id := b.Bytes()
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		return nil
	}
	return id
}

// answering finds the pending request that an upstream message with the
// id id answers: the one forwarded under id (exact), or under the number
// that id, a string, writes (not exact: a server that turned the id into
// a string, whose answer is malformed but is an answer to that request).
// nil when there is none.
func (p *proxy) answering(id json.RawMessage) (q *pending, exact bool) {
	if id == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if q := p.upstream[idKey(id)]; q != nil {
		return q, true
	}
	var s string
	if id[0] != '"' || json.Unmarshal(id, &s) != nil {
		return nil, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && strconv.FormatInt(n, 10) == s {
		return p.upstream[s], false
	}
	return nil, false
}

// initializedHook, when a test sets it, is called as soon as a call may
// read the server id that the upstream's initialize result gives.
var initializedHook func()

// panicHook, when a test sets it, is called where the proxy handles a
// client's request and an upstream's response, so that a test can make
// the proxy's own code panic there.
var panicHook func(where, method string)

// internalError is the answer to a request of method whose handling
// panicked (r): a tools/call is blocked with OAR_GUARD, as any call the
// guard could not evaluate (spec 11); another request gets JSON-RPC's
// internal error.
func internalError(p *proxy, method string, q *pending, r any) []byte {
	if method == "tools/call" {
		return resultFrame(q.id, p.typed(q, guard.Refused(fmt.Errorf("internal error: %v", r))))
	}
	return errorFrame(q.id, codeInternal, "oarc guard: internal error")
}

// respond handles the upstream's response to a pending client request
// (see arrived).
func (p *proxy) respond(f *frame, q *pending) {
	// toClient sends the answer: a tools/call's once, unless it is no
	// longer pending (the client cancelled it while its result was
	// evaluated, or it failed when the upstream died).
	toClient := p.toClient
	if q.call != nil {
		toClient = func(b []byte) {
			if p.take(q.key, q) {
				p.toClient(b)
			}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			p.logf("internal error on a response: %v", r)
			toClient(internalError(p, q.method, q, r))
		}
	}()
	if panicHook != nil {
		panicHook("response", q.method)
	}
	result, isResult := f.top["result"]
	switch {
	case q.call != nil:
		// The request's context: cancelled when the client cancels the
		// call (a question about its result is withdrawn), with the
		// call's round for a client of modernVersion or later (an ask
		// after the call is answered as in the middleware).
		ctx := q.ctx
		if q.round != nil {
			ctx = context.WithValue(ctx, roundKey{}, q.round)
		}
		var out json.RawMessage
		if why := resultSpeltOtherwise(result); isResult && why != "" {
			// Never evaluated: what the guard would read is not what a
			// client may read.
			p.logf("withheld the MCP server's result for request %s (%s): %s", q.key, q.method, why)
			toClient(resultFrame(q.id, p.typed(q, guard.Refused(errors.New(why)))))
			return
		}
		if isResult {
			out = q.call.Finish(ctx, result, 0, guard.FinishOptions{AppendNotes: p.o.notes})
		} else {
			// The code spelt exactly, as JSON-RPC names it; an error that
			// also has it spelt otherwise ("Code") reads as another code
			// to a client decoding with encoding/json, so it is malformed.
			e, err := jsonscan.Members(f.top["error"])
			var code *int64
			if n, _ := speltOtherwise(e, errorNames[:]); err != nil || n != "" || json.Unmarshal(e["code"], &code) != nil || code == nil {
				toClient(errorFrame(q.id, codeUpstream, "oarc guard: the MCP server answered with a malformed error"))
				return
			}
			out = q.call.Finish(ctx, nil, *code, guard.FinishOptions{AppendNotes: p.o.notes})
		}
		if out != nil {
			toClient(resultFrame(q.id, p.typed(q, out)))
			return
		}
	case q.method == "tools/list" && isResult:
		result, required := withoutTaskTools(result)
		for _, n := range required {
			p.logf("the MCP server's tool %s is left out of tools/list: it runs only as a task (execution.taskSupport required), and the proxy refuses task-augmented calls", n)
		}
		out, shadowed, err := guard.AddTools(result, p.tools, q.first)
		for _, n := range shadowed {
			p.logf("the MCP server's tool %s is left out of tools/list: the proxy's rule store tool of that name answers its calls", n)
		}
		if err == nil {
			out, err = p.conn.FilterTools(out)
		}
		if err != nil {
			p.logf("withheld a tools/list result: %v", err)
			p.toClient(errorFrame(q.id, codeUpstream, "oarc guard: the MCP server's tools/list result is malformed"))
			return
		}
		p.toClient(resultFrame(q.id, out))
		return
	case q.method == "tasks/get" && isResult && taskResult(result):
		// The result of a task of the tasks extension (2026-07-28),
		// inline: a tool result of a call whose answer the guard did not
		// see, as tasks/result brings (refused in call).
		p.logf("withheld the result of a task in the answer to tasks/get %s: a task's result would reach the client unevaluated", q.key)
		p.toClient(errorFrame(q.id, codeUpstream, "oarc guard: the result of a task is withheld: it would reach the client unevaluated"))
		return
	case q.method == "initialize" && isResult:
		p.initialized(result)
		if r, ok := withoutTaskCalls(result); ok {
			f.top["result"] = r
		}
	}
	// The client's id as the client wrote it: the upstream may answer it
	// in another spelling of the same value (see idKey).
	f.top["id"] = q.id
	b, err := encode(f.top)
	if err != nil {
		toClient(errorFrame(q.id, codeUpstream, "oarc guard: cannot re-encode the MCP server's answer"))
		return
	}
	toClient(b)
}

// modernVersion is the first MCP version whose results must have
// resultType, and whose requests name their version in _meta.
const modernVersion = "2026-07-28"

// modernRequest says whether a request names a protocol version of
// modernVersion or later in params._meta: a client of those versions puts
// it on every request, and sends no initialize (it probes server/discover,
// or adopts a version it knows).
func modernRequest(params map[string]json.RawMessage) bool {
	// Names spelt exactly, as the SDKs read them.
	meta, _ := jsonscan.Members(params["_meta"])
	var version string
	json.Unmarshal(meta["io.modelcontextprotocol/protocolVersion"], &version)
	return version >= modernVersion
}

// typed gives a tools/call result of a session of modernVersion or later
// the member resultType ("complete") when it has none: from that version
// on every result must have it (a server "MUST include this field"), and
// clients reject one without it (the MCP Python SDK's pydantic models).
// The results the guard makes itself (a block, a rejection in place of a
// withheld result, the proxy's own tools) have none. A session of an
// earlier version (initialize agreed one, and the request names none)
// gets the result unchanged.
func (p *proxy) typed(q *pending, result json.RawMessage) json.RawMessage {
	p.mu.Lock()
	modern := q.modern || p.protocol >= modernVersion
	p.mu.Unlock()
	if !modern {
		return result
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil || m == nil {
		return result
	}
	if _, ok := m["resultType"]; ok {
		return result
	}
	// Added in front, the rest as it was.
	t := bytes.TrimSpace(result)
	b := append([]byte(`{"resultType":"complete"`), t[1:]...)
	if len(m) > 0 {
		b = slices.Insert(b, len(`{"resultType":"complete"`), ',')
	}
	return b
}

// checkServerID says on stderr when the rules name server ids and id is
// none of them: their blocks would never meet a call of this server.
func (p *proxy) checkServerID(id string) {
	ids := p.cfg.ServerIDs
	if len(ids) == 0 || slices.Contains(ids, id) {
		return
	}
	flag := "-server-id " + ids[0] + " if this is that server"
	if len(ids) > 1 {
		flag = "-server-id with the one of them this server is"
	}
	p.logf("the rules name the server id %s, not %s: the rules that name a server apply to none of this server's calls; give %s", strings.Join(ids, ", "), id, flag)
}

// initialized learns the server id from the initialize result, unless
// -server-id gave it.
func (p *proxy) initialized(result json.RawMessage) {
	// Names spelt exactly, as the SDKs read them (encoding/json would
	// read "ServerInfo" too).
	var version, name string
	r, _ := jsonscan.Members(result)
	json.Unmarshal(r["protocolVersion"], &version)
	info, _ := jsonscan.Members(r["serverInfo"])
	json.Unmarshal(info["name"], &name)
	p.mu.Lock()
	known := p.serverKnown
	p.protocol = version
	p.mu.Unlock()
	if !known {
		// The guard has the id before a call may read that it is known
		// (call evaluates one only then): a call evaluated in between
		// had the server id "" and escaped every rule naming the server.
		// (The upstream's answers are read one at a time: no other
		// initialize result comes meanwhile.)
		id := guard.ServerID(name)
		p.conn.SetServer(p.server(id))
		p.mu.Lock()
		p.serverKnown = true
		p.mu.Unlock()
		p.logf("server id %s (from serverInfo.name %q)", id, name)
		p.checkServerID(id)
	}
	if initializedHook != nil {
		initializedHook()
	}
}

// withoutTaskCalls returns the upstream's initialize result without
// capabilities.tasks.requests.tools, and whether it had it: by it a
// server of MCP 2025-11-25 tells the client it may augment tools/call with
// a task, which the proxy refuses (a task's result, fetched later, would
// reach the client unevaluated), so the proxy does not declare it. The
// rest of the capabilities passes as it came.
func withoutTaskCalls(result json.RawMessage) (json.RawMessage, bool) {
	var r, caps, tasks, reqs map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r["capabilities"], &caps) != nil ||
		json.Unmarshal(caps["tasks"], &tasks) != nil || json.Unmarshal(tasks["requests"], &reqs) != nil {
		return nil, false
	}
	if _, ok := reqs["tools"]; !ok {
		return nil, false
	}
	delete(reqs, "tools")
	tasks["requests"] = jsonscan.AppendObject(nil, reqs)
	caps["tasks"] = jsonscan.AppendObject(nil, tasks)
	r["capabilities"] = jsonscan.AppendObject(nil, caps)
	return jsonscan.AppendObject(nil, r), true
}

// taskResult says whether a tasks/get result carries a task's result: a
// member "result" (in any case, which a peer in Go reads as it) of the
// task, or of its member "task".
func taskResult(result json.RawMessage) bool {
	top, err := jsonscan.Members(result)
	if err != nil {
		return false
	}
	objs := []map[string]json.RawMessage{top}
	if t, err := jsonscan.Members(top["task"]); err == nil {
		objs = append(objs, t)
	}
	for _, m := range objs {
		for name := range m {
			if strings.EqualFold(name, "result") {
				return true
			}
		}
	}
	return false
}

// withoutTaskExtension returns the _meta of a tools/call of MCP
// 2026-07-28 or later without the tasks extension among the client's
// capabilities (clientCapabilities.extensions's
// io.modelcontextprotocol/tasks), and whether it had it: a client that
// declares it lets the server answer the call with a task, whose result
// the client fetches later (tasks/get) where the guard does not evaluate
// it, so the proxy, which withholds such an answer, does not forward the
// declaration (as it leaves the tasks capability of 2025-11-25 out of
// initialize, see withoutTaskCalls). The rest passes as it came.
func withoutTaskExtension(meta json.RawMessage) (json.RawMessage, bool) {
	const capsKey, ext = "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/tasks"
	m, err := jsonscan.Members(meta)
	if err != nil {
		return nil, false
	}
	caps, err := jsonscan.Members(m[capsKey])
	if err != nil {
		return nil, false
	}
	exts, err := jsonscan.Members(caps["extensions"])
	if err != nil {
		return nil, false
	}
	if _, ok := exts[ext]; !ok {
		return nil, false
	}
	delete(exts, ext)
	caps["extensions"] = jsonscan.AppendObject(nil, exts)
	m[capsKey] = jsonscan.AppendObject(nil, caps)
	return jsonscan.AppendObject(nil, m), true
}

// withoutTaskTools returns a tools/list result without the tools whose
// execution.taskSupport is "required" (MCP 2025-11-25: the server runs
// them only as tasks), and their names: the proxy refuses task-augmented
// calls, so no call of theirs could succeed through it. A result it
// cannot read passes as it came (FilterTools withholds a malformed one
// where it narrows).
func withoutTaskTools(result json.RawMessage) (json.RawMessage, []string) {
	top, err := jsonscan.Members(result)
	if err != nil {
		return result, nil
	}
	var tools []json.RawMessage
	if json.Unmarshal(top["tools"], &tools) != nil {
		return result, nil
	}
	var names []string
	kept := make([]json.RawMessage, 0, len(tools))
	for _, t := range tools {
		var task string
		m, err := jsonscan.Members(t)
		if err == nil {
			if e, err := jsonscan.Members(m["execution"]); err == nil && json.Unmarshal(e["taskSupport"], &task) == nil && task == "required" {
				var name string
				json.Unmarshal(m["name"], &name)
				names = append(names, name)
				continue
			}
		}
		kept = append(kept, t)
	}
	if len(names) == 0 {
		return result, nil
	}
	top["tools"], _ = json.Marshal(kept)
	return jsonscan.AppendObject(nil, top), names
}

// progress restarts the wait of the request a progress notification is
// about.
func (p *proxy) progress(f *frame) {
	// The token spelt exactly, as the SDKs read it.
	params, err := jsonscan.Members(f.top["params"])
	if err != nil || params["progressToken"] == nil || p.o.timeout <= 0 {
		return
	}
	tok := idKey(params["progressToken"])
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.pending {
		if q.token == tok && q.timer != nil {
			q.timer.Reset(p.o.timeout)
		}
	}
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// formElicitation says whether a client's elicitation capability (raw,
// absent: nil) lets the proxy ask with a form: an object with a member
// form, or with neither form nor url (MCP 2025-11-25: {} is form, as
// before modes). A client of URL mode only cannot answer a form, and MCP
// forbids sending it one: no way to ask.
func formElicitation(raw json.RawMessage) bool {
	m, err := jsonscan.Members(raw)
	if err != nil {
		return false
	}
	present := func(k string) bool { v, ok := m[k]; return ok && !isNull(v) }
	return present("form") || !present("url")
}

// idKey is the key of a JSON-RPC id (or a progress token) as a value, not
// as spelled: peers compare ids as values and write them back in their
// own spelling (a JavaScript server answers the id "\u0061" as "a" and 1.0
// as 1), so the proxy matches an answer, a cancellation or a progress
// notification to its request by the id's value. A string is its decoded
// text, re-encoded; a number written as an integer is its digits, any
// other number its float64 value written as Go does (an integral one in
// the int64 range as an integer), so that 1, 1.0 and 1e0 are one id.
func idKey(v json.RawMessage) string {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return ""
	}
	if t[0] == '"' {
		s, err := jsonscan.Unquote(t)
		if err != nil {
			return compact(v)
		}
		b, err := jsonscan.MarshalString(s)
		if err != nil {
			return compact(v)
		}
		return string(b)
	}
	if t[0] == '-' || '0' <= t[0] && t[0] <= '9' {
		n := string(t)
		if !strings.ContainsAny(n, ".eE") {
			if n == "-0" {
				return "0"
			}
			return n
		}
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return compact(v)
		}
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return compact(v)
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// idOf finds the id of a message too large to read, in its first or last
// bytes: the top-level "id" member. In the head it is the first "id" key
// before any "result", "error" or "params" (which could hold text that
// looks like one); in the tail, the last "id" followed only by the closing
// brace. nil when not found.
func idOf(head, tail []byte) json.RawMessage {
	h := string(head)
	if i := strings.Index(h, `"id"`); i >= 0 {
		before := h[:i]
		if !strings.Contains(before, `"result"`) && !strings.Contains(before, `"error"`) && !strings.Contains(before, `"params"`) {
			if id, rest, ok := idValue(h[i+4:]); ok && (strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), ",") || strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), "}")) {
				return id
			}
		}
	}
	t := string(tail)
	if i := strings.LastIndex(t, `"id"`); i >= 0 {
		if id, rest, ok := idValue(t[i+4:]); ok && strings.TrimSpace(rest) == "}" {
			return id
		}
	}
	return nil
}

// idValue reads `: <number or string>` at the start of s.
func idValue(s string) (json.RawMessage, string, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(s, ":") {
		return nil, "", false
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, "", false
	}
	rest := s[d.InputOffset():]
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x)
		return b, rest, true
	case json.Number:
		return json.RawMessage(x.String()), rest, true
	}
	return nil, "", false
}
