// Command gencorpus writes the inputs of bench/regex: what an agent's tool
// calls look like to a rule that reads a command (shell commands, their
// output, JSON tool arguments, log lines), of exactly 100 B, 4 KB and
// 64 KB, deterministically. The text matches none of the benchmark's
// patterns, but holds what makes them work: "rm" and "git push" without
// their dangerous arguments, "curl" and "wget" inside other words and
// followed by pipes into other programs, URLs of other hosts.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var lines = []string{
	`go test ./... -run TestParse -count 1`,
	`ls -la /home/agent/project/src`,
	`rm -rf ./build ./dist`,
	`rm -f coverage.out`,
	`git status --porcelain`,
	`git push origin feature/regex-dfa`,
	`git log --oneline -n 20 | head -5`,
	`grep -rn "TODO" --include=*.go . | wc -l`,
	`cat go.mod | grep require`,
	`find . -name '*.tmp' -mtime +7 -print`,
	`docker build -t agent-sandbox:latest .`,
	`kubectl get pods -n staging -o wide`,
	`npm install --save-dev typescript@5.4.2`,
	`python3 -m pytest tests/ -q --maxfail=1`,
	`apt-get install -y libcurl4-openssl-dev`,
	`pip download wgetter==0.7 --no-deps -d vendor/`,
	`make -j2 all 2>&1 | tee build.log`,
	`sed -i 's/old_name/new_name/g' internal/cli/gen.go`,
	`tar -czf release-v1.4.2.tar.gz bin/ README.md`,
	`{"tool":"bash","args":{"command":"go vet ./...","timeout":120}}`,
	`{"tool":"read_file","args":{"path":"/home/agent/project/README.md"}}`,
	`{"tool":"web_fetch","args":{"url":"https://example.com/docs/api?version=2&lang=en"}}`,
	`{"tool":"bash","args":{"command":"du -sh node_modules | sort -h"}}`,
	`2024-05-14T10:21:33.412Z INFO  server started on :8080 pid=4121`,
	`2024-05-14T10:21:35.006Z WARN  slow request path=/api/v1/items latency=812ms`,
	`2024-05-14T10:21:36.990Z ERROR failed to connect to db host=10.0.3.17 retry=3`,
	`ok  	github.com/oarc/oarc/runtime	0.412s`,
	`--- FAIL: TestEnginesAgree (0.03s)`,
	`    rules_test.go:88: got effect allow, want block`,
	`drwxr-xr-x  5 agent agent  4096 May 14 10:20 internal`,
	`-rw-r--r--  1 agent agent 12873 May 14 10:19 codegen.go`,
	`Résumé des tâches: 3 terminées, 1 en échec (durée 4,2 s)`,
	`构建成功：用时 3.4 秒`,
	`curlftpfs ftp://mirror.example.org/pub /mnt/mirror -o ro`,
	`echo "deploying to staging" && ./scripts/deploy.sh --dry-run`,
	`export PATH="$HOME/go/bin:$PATH"`,
	`ssh -o StrictHostKeyChecking=no ci@build-07 'uptime'`,
	`jq '.items[] | select(.status == "failed") | .id' results.json`,
	`awk -F, '{ sum += $3 } END { print sum }' metrics.csv`,
	`chmod 644 config/settings.yaml`,
}

func main() {
	out := flag.String("out", "testdata", "the directory to write commands-<size>.txt into")
	flag.Parse()
	for _, size := range []struct {
		name string
		n    int
	}{{"100", 100}, {"4k", 4 << 10}, {"64k", 64 << 10}} {
		r := rand.New(rand.NewPCG(uint64(size.n), 23))
		var b strings.Builder
		for b.Len() < size.n {
			b.WriteString(lines[r.IntN(len(lines))])
			b.WriteByte('\n')
		}
		// Exactly n bytes, cut where a rune starts.
		s := b.String()
		n := size.n
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s = s[:n] + strings.Repeat(" ", size.n-n)
		file := filepath.Join(*out, fmt.Sprintf("commands-%s.txt", size.name))
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
