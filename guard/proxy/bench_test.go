package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// BenchmarkRelay is the proxy's own work for one tools/call of
// read_text_file with a 1 KB result, in the process (no pipes): the
// request parsed, evaluated and re-encoded, the response parsed,
// evaluated (oarc.secrets over the text, twice as server-filesystem sends
// it) and re-encoded.
func BenchmarkRelay(b *testing.B) {
	set, err := testset.Guard(lycaon.Env{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		b.Fatal(err)
	}
	p := &proxy{o: options{maxMessage: DefaultMaxMessage, notes: true, quiet: true}, g: g, out: bufio.NewWriter(io.Discard), up: nopCloser{&bytes.Buffer{}}, pending: map[string]*pending{}, upstream: map[string]*pending{}}
	p.conn = g.NewConn(runtime.NewSession("b"), guard.Server{ID: "fs", Configured: true, Enabled: true}, guard.ConnOptions{AllInputs: true, Profiles: runtime.ProfileSession | runtime.ProfileProvenance})
	text := strings.Repeat("0123456789abcdef config line\\n", 36)[:1024]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.up.(nopCloser).Reset()
		p.fromClient([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/notes%d.txt"}}}`, i, i%2)))
		// The proxy forwards call i under its own id i+1.
		p.fromUpstream([]byte(fmt.Sprintf(`{"result":{"content":[{"type":"text","text":"%s"}],"structuredContent":{"content":"%s"}},"jsonrpc":"2.0","id":%d}`, text, text, i+1)))
	}
}
