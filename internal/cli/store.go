// This file owns `oarc store` and `oarc promote`: the rule store of spec
// 12 (package rulestore) from the command line.

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
)

func init() {
	register("store", &Command{Summary: "list the rules of a rule store, retired ones too; a person promotes or retires one", Help: storeHelp, Run: runStore})
	register("promote", &Command{Summary: "write the active rules of a rule store into a pack", Help: promoteHelp, Run: runPromote})
}

const storeHelp = `Lists every rule of a rule store (spec 12; docs/store.md), the JSON Lines
file a host keeps the rules its agent writes in: one line per id with its
latest status (candidate, active or retired), anchor, effect, and its
trial (the distinct sessions it fired in over the threshold, and the
verdict), in the order the rules were added. With -json, the same as one
JSON document.

The last record of an id wins. A line that is not a record (a torn last
line after a crash, say) is reported on stderr as FILE:LINE: error: ...
and skipped; the rest is listed and the exit status is 0. It is 1 when
the store cannot be read, 2 on bad usage.

With -promote ID, a person promotes a candidate (spec 12: promotion is an
explicit call, by the agent's tools, a person or oarc): the store is
opened against the compilation set of the -pack directories (none: the
catalog alone, -catalog or the embedded one), the candidate is checked
as the host will check it, and an active record is appended; a host that
has the store open enforces it once it calls Reload (or reopens the
store; docs/store.md). With -retire ID -reason TEXT,
a live rule is retired the same way. Each prints the rule's new line.
Exit status: 0 when the record was appended, 1 when the rule is not a
candidate (not live), does not load, or the store cannot be written.`

const promoteHelp = `Writes the active rules of a rule store (spec 12; docs/store.md) into the
pack DIR as rule files, DIR/policy/<ID>.yaml, with enforcement: enforce,
laid out as oarc fmt lays rule files out, so that the next go generate
compiles them: promoted rules move from the store's interpreter to the
compiled fast path (the store then skips them: their ids are compiled).
It prints each file it writes.

Without IDs, every active rule is written; an ID that is not an active
rule of the store is an error. When a target file exists (ID.yaml or
ID.yml), nothing is written and the error names it.

Before anything is written, the files are checked exactly as oarc check
will check the pack with them: in the compilation set of DIR and the
-with packs (the other packs it is compiled with), with the rules written
together, against the catalog (-catalog, or the packs'), with DIR's
effect limits (DIR must be a project pack) and cost limit. A store's
record may have been edited by hand, or the catalog changed since the
rule was added: on an error, every diagnostic is printed, each rule that
does not check is named, and nothing at all is written. Each file must
also read back as the rule of its record.

Lines of the store that are not records are reported on stderr as
FILE:LINE: error: ... and skipped. Exit status: 0 when the files were
written, 1 on an error, 2 on bad usage.`

// readStore reads a store file for a command: its latest records, the
// bad lines reported on stderr.
func readStore(env *Env, cmd, path string) ([]rulestore.Record, bool) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc %s: %v\n", cmd, err)
		return nil, false
	}
	defer f.Close()
	recs, problems, err := rulestore.ReadRecords(path, f)
	for _, p := range problems {
		fmt.Fprintln(env.Stderr, p.String())
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc %s: %s: %v\n", cmd, path, err)
		return nil, false
	}
	return recs, true
}

// storeLine is one rule of `oarc store -json`.
type storeLine struct {
	ID        string           `json:"id"`
	Status    rulestore.Status `json:"status"`
	Anchor    string           `json:"anchor"`
	Effect    string           `json:"effect"`
	CreatedAt time.Time        `json:"created_at"`
	Reason    string           `json:"reason,omitempty"`
	Trial     *rulestore.Trial `json:"trial,omitempty"`
}

func runStore(env *Env, args []string) int {
	fs := newFlags(env, "store", "STORE [-promote ID | -retire ID -reason TEXT [-pack DIR]...]")
	asJSON := fs.Bool("json", false, "print one JSON document: {\"rules\": [{id, status, anchor, effect, created_at, reason, trial}]}")
	promote := fs.String("promote", "", "promote the candidate `ID` to active (checked against the -pack set)")
	retire := fs.String("retire", "", "retire the live rule `ID` (with -reason)")
	reason := fs.String("reason", "", "why the rule is retired (with -retire)")
	var packs []string
	fs.Func("pack", "a pack `DIR` of the compilation set the store belongs to (repeatable; with -promote or -retire)", func(s string) error {
		packs = append(packs, s)
		return nil
	})
	var lf loadFlags
	lf.register(fs)
	pos, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "oarc store: give one store file")
		fs.Usage()
		return ExitUsage
	}
	switch {
	case *promote != "" && *retire != "":
		fmt.Fprintln(env.Stderr, "oarc store: give -promote or -retire, not both")
		return ExitUsage
	case *retire != "" && *reason == "":
		fmt.Fprintln(env.Stderr, "oarc store: -retire needs -reason TEXT")
		return ExitUsage
	case *promote == "" && *retire == "" && (*reason != "" || len(packs) > 0):
		fmt.Fprintln(env.Stderr, "oarc store: -reason and -pack go with -promote or -retire")
		return ExitUsage
	case *promote != "" || *retire != "":
		if *asJSON {
			fmt.Fprintln(env.Stderr, "oarc store: -json lists the store; it does not go with -promote or -retire")
			return ExitUsage
		}
		return changeStore(env, pos[0], packs, &lf, *promote, *retire, *reason)
	}
	recs, ok := readStore(env, "store", pos[0])
	if !ok {
		return ExitFailure
	}
	lines := make([]storeLine, 0, len(recs))
	for _, r := range recs {
		anchor, effect := rulestore.AnchorEffect(r)
		lines = append(lines, storeLine{ID: r.ID, Status: r.Status, Anchor: anchor, Effect: effect, CreatedAt: r.CreatedAt, Reason: r.Reason, Trial: r.Trial})
	}
	if *asJSON {
		b, _ := json.MarshalIndent(struct {
			Rules []storeLine `json:"rules"`
		}{lines}, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 8, 2, ' ', 0)
	for _, l := range lines {
		// What a record's writer wrote is shown as Sanitize makes it: a
		// record appended by hand or by another program may hold a line
		// break (a listing line of its own) or a terminal escape.
		trial := "-"
		if t := l.Trial; t != nil {
			trial = fmt.Sprintf("trial %d/%d sessions, %s", t.FiredSessions, t.Threshold, t.Verdict)
		}
		if reason := rulestore.Sanitize(l.Reason); l.Status == rulestore.Retired && reason != "" {
			if trial == "-" {
				trial = "retired: " + reason
			} else {
				trial += "; retired: " + reason
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.ID, l.Status, rulestore.Sanitize(l.Anchor), rulestore.Sanitize(l.Effect), trial)
	}
	tw.Flush()
	return ExitOK
}

// notChecking reports whether the store skipped the rule id because it
// does not load against the store's compilation set (its Info.Problem).
func notChecking(st *rulestore.Store, id string) bool {
	in, err := st.Status(id)
	return err == nil && in.Problem != ""
}

// changeStore promotes the candidate promote, or retires the live rule
// retire, in the store at path, opened against the set of packs: a
// record appended as the host's own calls append it.
func changeStore(env *Env, path string, packs []string, lf *loadFlags, promote, retire, reason string) int {
	if _, err := os.Stat(path); err != nil {
		// Open would create it; a store to change must exist.
		fmt.Fprintf(env.Stderr, "oarc store: %v\n", err)
		return ExitFailure
	}
	if missingPaths(env, "store", packs) {
		return ExitFailure
	}
	opts, ok := lf.options(env, "store")
	if !ok {
		return ExitFailure
	}
	set, diags := compiler.Load(packs, opts)
	if len(diags) > 0 {
		fmt.Fprint(env.Stderr, diags.Text())
	}
	if set == nil || diags.HasErrors() {
		fmt.Fprintln(env.Stderr, "oarc store: the packs do not load")
		return ExitFailure
	}
	st, err := rulestore.Open(path, set, rulestore.Options{Warn: env.Stderr, Check: opts})
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc store: %v\n", err)
		return ExitFailure
	}
	defer st.Close()
	var rec rulestore.Record
	if promote != "" {
		rec, err = st.Promote(promote)
	} else {
		rec, err = st.Retire(retire, reason)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc store: %v\n", err)
		if len(packs) == 0 && notChecking(st, promote+retire) {
			// Without packs the store is checked against the catalog
			// alone: a rule that reads a host catalog's facts, or names a
			// rule of the packs, does not check, which reads as if the
			// catalog had changed.
			fmt.Fprintln(env.Stderr, "oarc store: no -pack was given, so the store was checked against the catalog alone (-catalog, else the embedded one): give the packs of the host's compilation set with -pack DIR")
		}
		return ExitFailure
	}
	anchor, effect := rulestore.AnchorEffect(rec)
	fmt.Fprintf(env.Stdout, "%s\t%s\t%s\t%s\n", rec.ID, rec.Status, rulestore.Sanitize(anchor), rulestore.Sanitize(effect))
	return ExitOK
}

func runPromote(env *Env, args []string) int {
	fs := newFlags(env, "promote", "STORE -pack DIR [-with DIR]... [ID...]")
	pack := fs.String("pack", "", "the pack directory the rule files are written into (DIR/policy/<ID>.yaml)")
	var with []string
	fs.Func("with", "another pack `DIR` of the compilation set the -pack DIR is compiled with, for the check (repeatable)", func(s string) error {
		with = append(with, s)
		return nil
	})
	var lf loadFlags
	lf.register(fs)
	pos, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) == 0 || *pack == "" {
		fmt.Fprintln(env.Stderr, "oarc promote: give the store file and -pack DIR")
		fs.Usage()
		return ExitUsage
	}
	if st, err := os.Stat(*pack); err != nil || !st.IsDir() {
		fmt.Fprintf(env.Stderr, "oarc promote: %s: not a pack directory\n", *pack)
		return ExitUsage
	}
	if missingPaths(env, "promote", with) {
		return ExitFailure
	}
	opts, ok := lf.options(env, "promote")
	if !ok {
		return ExitFailure
	}
	recs, ok := readStore(env, "promote", pos[0])
	if !ok {
		return ExitFailure
	}
	byID := map[string]rulestore.Record{}
	var active []string
	for _, r := range recs {
		byID[r.ID] = r
		if r.Status == rulestore.Active {
			active = append(active, r.ID)
		}
	}
	ids := pos[1:]
	if len(ids) == 0 {
		ids = active
	}
	failed := false
	for _, id := range ids {
		r, known := byID[id]
		switch {
		case !known:
			fmt.Fprintf(env.Stderr, "oarc promote: %s is not a rule of the store\n", id)
			failed = true
		case r.Status == rulestore.Candidate:
			fmt.Fprintf(env.Stderr, "oarc promote: %s is candidate, not active: only an active rule is promoted into a pack; a person makes it active first with oarc store %s -promote %s [-pack DIR]... (the packs of its compilation set)\n", id, pos[0], id)
			failed = true
		case r.Status != rulestore.Active:
			fmt.Fprintf(env.Stderr, "oarc promote: %s is %s, not active: only an active rule is promoted into a pack\n", id, r.Status)
			failed = true
		}
	}
	if failed {
		return ExitFailure
	}
	if len(ids) == 0 {
		fmt.Fprintf(env.Stderr, "oarc promote: the store has no active rule; oarc store %s lists its rules, and oarc store %s -promote ID [-pack DIR]... makes a candidate active\n", pos[0], pos[0])
		return ExitFailure
	}
	dir := filepath.Join(*pack, "policy")
	type out struct {
		file string
		text []byte
	}
	var outs []out
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		for _, ext := range []string{".yaml", ".yml"} {
			if _, err := os.Lstat(filepath.Join(dir, id+ext)); !errors.Is(err, iofs.ErrNotExist) {
				fmt.Fprintf(env.Stderr, "oarc promote: %s exists: nothing was written\n", filepath.Join(dir, id+ext))
				failed = true
			}
		}
		text, err := rulestore.RuleFile(byID[id])
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc promote: %v\n", err)
			failed = true
			continue
		}
		outs = append(outs, out{filepath.Join(dir, id+".yaml"), text})
	}
	if failed {
		return ExitFailure
	}
	added := map[string][]byte{}
	for _, o := range outs {
		added[o.file] = o.text
	}
	if !promoteChecks(env, *pack, with, added, opts) {
		return ExitFailure
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(env.Stderr, "oarc promote: %v\n", err)
		return ExitFailure
	}
	for _, o := range outs {
		// O_EXCL: a file that appeared since the check is not overwritten.
		f, err := os.OpenFile(o.file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.Write(o.text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc promote: %v\n", err)
			return ExitFailure
		}
		fmt.Fprintln(env.Stdout, o.file)
	}
	return ExitOK
}

// promoteChecks checks the rule files oarc promote is about to write
// (added, by path) exactly as oarc check will check them once written:
// in the compilation set of the pack and the with packs, with the rules
// written together (ids unique, the catalog's anchors, facts and
// functions, a project's effect limits, the rules they name, the cost
// limit). The store's records may have been edited by hand, or the
// catalog may have changed since a rule was added: a rule that would
// not compile is never written. It prints every diagnostic and reports
// whether the files may be written.
func promoteChecks(env *Env, pack string, with []string, added map[string][]byte, opts compiler.Options) bool {
	set, diags := compiler.LoadWith(append([]string{pack}, with...), added, opts)
	byFile := map[string]bool{}
	for _, d := range diags {
		if _, ok := added[d.Pos.File]; ok || d.Severity == compiler.Error {
			byFile[d.Pos.File] = byFile[d.Pos.File] || d.Severity == compiler.Error
		}
	}
	if diags.HasErrors() {
		fmt.Fprint(env.Stderr, diags.Text())
	} else {
		// The pack's own warnings are oarc check's to say; those of
		// the files written are shown.
		for _, d := range diags {
			if _, ok := added[d.Pos.File]; ok {
				fmt.Fprint(env.Stderr, compiler.Diagnostics{d}.Text())
			}
		}
	}
	ok := !diags.HasErrors()
	for _, file := range slices.Sorted(maps.Keys(added)) {
		id := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if byFile[file] || mentions(diags, id) {
			fmt.Fprintf(env.Stderr, "oarc promote: rule %s does not check in pack %s: nothing was written\n", id, pack)
		}
	}
	if !ok {
		fmt.Fprintf(env.Stderr, "oarc promote: the compilation set of %s does not check with the rules to write: nothing was written\n", strings.Join(append([]string{pack}, with...), ", "))
		return false
	}
	if set != nil && len(set.Packs) > 0 && set.Packs[0].Origin != "project" {
		// Spec 12: the store's rules are checked with a project pack's
		// effect limits, and promoted as such.
		fmt.Fprintf(env.Stderr, "oarc promote: %s is a %s pack: the rules of a store are a project's, promote them into a project pack: nothing was written\n", pack, set.Packs[0].Origin)
		return false
	}
	return true
}

// mentions reports whether an error of diags names the rule id (a
// duplicate id reported at the other file, say).
func mentions(diags compiler.Diagnostics, id string) bool {
	for _, d := range diags {
		if d.Severity == compiler.Error && slices.Contains(strings.FieldsFunc(d.Message, notIDRune), id) {
			return true
		}
	}
	return false
}

func notIDRune(r rune) bool { return !(r == '_' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') }
