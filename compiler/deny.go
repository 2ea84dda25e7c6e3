// This file owns deny_by_default (spec 5.8): a stock pack's allowlist.

package compiler

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

var denyFields = []string{"anchors", "code", "enforcement", "copy"}

// denyNodes is a pack's deny_by_default, kept until the catalog is known.
type denyNodes struct {
	c   *fileCtx
	n   *yaml.Node
	key *yaml.Node
	// code is the code as written (set when well formed), checked against
	// the set's rule ids whatever else is wrong.
	code    string
	codePos Pos
}

// checkDeny validates the packs' deny_by_default against the catalog: only
// in stock packs, block-plane anchors of the catalog, a well-formed code
// unique in the set (rule ids are checked in finish), no anchor listed by
// two packs.
func (l *packLoader) checkDeny(packs []*Pack) {
	byAnchor := map[string]*Pack{}
	byCode := map[string]*Pack{}
	for _, pk := range packs {
		dn := pk.deny
		if dn == nil {
			continue
		}
		c, n := dn.c, dn.n
		if pk.Origin != "stock" {
			c.errorf(dn.key, CodeEffect, "deny_by_default needs origin: stock; a %s pack cannot make an allowlist", pk.Origin)
			continue
		}
		if n.Kind != yaml.MappingNode {
			c.errorf(n, CodeFieldType, "deny_by_default must be a mapping, got %s", kindName(n))
			continue
		}
		f := c.fields(n, "deny_by_default", denyFields)
		d := &DenyByDefault{Pos: c.src.pos(dn.key)}
		ok := true
		if an, present := f["anchors"]; !present {
			c.missing(n, "anchors", dn.key, CodeMissingField, "deny_by_default: missing required field anchors")
			ok = false
		} else if ids, nodes, good := c.strList(an, "anchors"); good {
			if len(ids) == 0 {
				c.errorf(an, CodeMissingField, "deny_by_default.anchors is empty; list the block-plane anchors it applies to")
				ok = false
			}
			mine := map[string]bool{}
			for i, id := range ids {
				a := l.cat.Anchor(id)
				switch {
				case mine[id]:
					c.errorf(nodes[i], CodeValue, "anchor %s is listed twice", id)
					ok = false
					continue
				case a == nil:
					c.errorf(nodes[i], CodeAnchor, "%s", unknownAnchor(l, id))
					ok = false
				case !a.HasPlane("block"):
					c.errorf(nodes[i], CodePlane, "anchor %s has no block plane: deny by default blocks, so it needs one", id)
					ok = false
				case byAnchor[id] != nil:
					c.errorf(nodes[i], CodeValue, "anchor %s is already listed by the deny_by_default of pack %s; one pack per anchor", id, byAnchor[id].Name)
					ok = false
				default:
					byAnchor[id] = pk
					d.Anchors = append(d.Anchors, id)
				}
				mine[id] = true
			}
		} else {
			ok = false
		}
		if cn, present := f["code"]; !present {
			c.missing(n, "code", dn.key, CodeMissingField, "deny_by_default: missing required field code")
			ok = false
		} else if code, good := c.str(cn, "code"); good {
			switch {
			case !idRE.MatchString(code):
				c.errorf(cn, CodeID, "deny_by_default code %q is not SCREAMING_SNAKE (%s)", code, idRE)
				ok = false
			case byCode[code] != nil:
				c.errorf(cn, CodeID, "deny_by_default code %s is already the code of pack %s", code, byCode[code].Name)
				ok = false
			default:
				byCode[code] = pk
				d.Code = code
				dn.code, dn.codePos = code, c.src.pos(cn)
			}
		} else {
			ok = false
		}
		if en, present := f["enforcement"]; present {
			if s, good := c.str(en, "enforcement"); good && c.oneOf(en, s, "enforcement", CodeValue, []string{"enforce", "monitor"}) {
				d.Monitor = s == "monitor"
			} else {
				ok = false
			}
		}
		if cp, present := f["copy"]; present {
			var r Rule
			c.copyField(&r, cp)
			d.Copy = r.Copy
		}
		if ok {
			pk.DenyByDefault = d
		}
	}
}

// unknownAnchor is the message for an anchor the catalog lacks: the
// closest id by spelling, else the anchors whose last segment is the
// same ("model.output": "content.output"), else where the list is.
func unknownAnchor(l *packLoader, id string) string {
	var ids []string
	for _, a := range l.cat.Anchors {
		ids = append(ids, a.ID)
	}
	msg := fmt.Sprintf("unknown anchor %q", id)
	if m := closest(id, ids); m != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", m) + notASCII(id)
	}
	if k := strings.LastIndexByte(id, '.'); k >= 0 && k < len(id)-1 {
		var same []string
		for _, a := range ids {
			if strings.HasSuffix(a, id[k:]) {
				same = append(same, fmt.Sprintf("%q", a))
			}
		}
		if len(same) > 0 && len(same) <= 3 {
			return msg + " (did you mean " + strings.Join(same, " or ") + "?)" + notASCII(id)
		}
	}
	return msg + "; oarc schema rule lists the catalog's anchors" + notASCII(id)
}
