# Writes fixtures/pass.json and fixtures/invalid.json of this pack (long
# histories, arguments nested past runtime.MaxDepth). Run from fixtures/:
#   cd fixtures && python3 ../gen.py
import sys, json
sys.setrecursionlimit(100000)
def pre(tool, args=None, **kw):
    i={"anchor":"tool.pre_invoke","facts":{"tool":tool}}
    if args is not None: i["facts"]["tool_args"]=args
    i.update(kw); return i
def deep(n):
    v={"leaf":1}
    for _ in range(n): v={"a":v}
    return v
fx=[]
def F(name, inp, exp): fx.append({"name":name,"input":inp,"expected":exp})
F("post-invoke-reads-what-the-last-call-read",
  {"anchor":"tool.post_invoke","facts":{"tool":"bash"},"history":[{"tool":"bash","tool_args":{"c":"ls"}}]*3},
  {"decision":"warn","codes":["POST_REPEAT"],"errors":0})
F("post-invoke-two-calls-read-one",
  {"anchor":"tool.post_invoke","facts":{"tool":"bash"},"history":[{"tool":"bash","tool_args":{"c":"ls"}}]*2},
  {"decision":"allow","codes":[],"errors":0})
F("post-invoke-same-code-run",
  {"anchor":"tool.post_invoke","facts":{"tool":"c"},"history":[{"tool":"a","code":"X_Y"},{"tool":"b","code":"X_Y"},{"tool":"c"}]},
  {"decision":"nudge","codes":["POST_RUN"],"errors":0})
F("post-invoke-same-code-run-one-short",
  {"anchor":"tool.post_invoke","facts":{"tool":"b"},"history":[{"tool":"a","code":"X_Y"},{"tool":"b","code":"X_Y"}]},
  {"decision":"allow","codes":[],"errors":0})
F("post-invoke-codes-differ",
  {"anchor":"tool.post_invoke","facts":{"tool":"c"},"history":[{"tool":"a","code":"X_Y"},{"tool":"b","code":"X_Z"},{"tool":"c"}]},
  {"decision":"allow","codes":[],"errors":0})
F("code-reject-total-this-tool",
  pre("rm",{"p":"/"},history=[{"tool":"rm","code":"RM_RF"},{"tool":"rm","tool_args":{"p":"/x"},"code":"RM_RF"},{"tool":"ls","code":"RM_RF"}]),
  {"decision":"block","code":"RM_RF","errors":0})
F("code-reject-total-other-tools-do-not-count",
  pre("rm",{"p":"/"},history=[{"tool":"rm","code":"RM_RF"},{"tool":"ls","code":"RM_RF"}]),
  {"decision":"allow","errors":0})
F("code-reject-total-other-codes-do-not-count",
  pre("rm",{"p":"/"},history=[{"tool":"rm","code":"OTHER"},{"tool":"rm","code":"OTHER"}]),
  {"decision":"allow","errors":0})
F("repeat-null-args-is-empty-args",
  pre("bash",{},history=[{"tool":"bash","tool_args":None}]),
  {"decision":"block","code":"REP"})
F("repeat-absent-args-is-empty-args",
  pre("bash",history=[{"tool":"bash","tool_args":{}}]),
  {"decision":"block","code":"REP"})
F("repeat-one-and-one-point-zero-share-a-fingerprint",
  pre("bash",{"n":1.0},history=[{"tool":"bash","tool_args":{"n":1}}]),
  {"decision":"block","code":"REP"})
F("repeat-key-order-does-not-matter",
  pre("bash",{"b":[1,{"y":2,"x":"é"}],"a":"z"},history=[{"tool":"bash","tool_args":{"a":"z","b":[1,{"x":"\u00e9","y":2}]}}]),
  {"decision":"block","code":"REP"})
F("repeat-other-tool-breaks",
  pre("bash",{},history=[{"tool":"bash"},{"tool":"sh"}]),
  {"decision":"allow"})
F("repeat-empty-tool-name",
  pre("",{},history=[{"tool":""}]),
  {"decision":"allow"})
F("deep-args-have-no-fingerprint-repeat",
  pre("deep",deep(1001),history=[{"tool":"deep","tool_args":deep(1001)}]),
  {"decision":"allow","codes":[],"errors":0})
F("deep-args-fingerprint-is-an-error",
  pre("fp",deep(1001)),
  {"decision":"allow","codes":[],"errors":1})
F("just-deep-enough-args-have-a-fingerprint",
  pre("deep",deep(990),history=[{"tool":"deep","tool_args":deep(990)}]),
  {"decision":"block","code":"REP","errors":0})
F("fingerprint-of-plain-args",
  pre("fp",{"a":1}),
  {"decision":"allow","codes":[],"errors":0})
others=[{"tool":"t%d"%i} for i in range(62)]
F("flow-64-entries-keeps-the-oldest",
  pre("http_fetch",history=[{"tool":"read_secret"}]+others),
  {"decision":"block","code":"FLOW"})
F("flow-65-entries-drops-it",
  pre("http_fetch",history=[{"tool":"read_secret"}]+others+[{"tool":"t62"}]),
  {"decision":"allow"})
F("flow-long-history",
  pre("http_fetch",history=[{"tool":"read_secret"}]*5000+others*2+[{"tool":"read_secret"}]),
  {"decision":"block","code":"FLOW"})
F("ask-fails-closed",
  pre("ask",{}),
  {"decision":"ask","code":"ASK_CLOSED","failed_closed":["ASK_CLOSED"],"errors":1})
F("allow-fails-closed",
  pre("allow",{}),
  {"decision":"allow","code":"ALLOW_CLOSED","codes":["ALLOW_CLOSED"],"failed_closed":["ALLOW_CLOSED"],"errors":1})
F("transform-fails-closed-known-spans",
  {"anchor":"content.output","content":"abcd","facts":{"secret_matches":[{"start":0,"end":2}]}},
  {"decision":"transform","code":"RED_CLOSED","failed_closed":["RED_CLOSED"],"errors":1,"content":"[REDACTED]cd"})
F("transform-fails-closed-unknown-spans",
  {"anchor":"content.output","content":"abcd","profiles":["filesystem"],"facts":{"secret_matches":[{"start":0,"end":2}]}},
  {"decision":"transform","code":"RED_CLOSED","failed_closed":["RED_CLOSED"],"errors":1,"content":"[REDACTED]"})
F("transform-provider-false",
  {"anchor":"content.output","content":"abcd","providers":{"path_outside_scope":{"/":False}},"facts":{"secret_matches":[{"start":0,"end":2}]}},
  {"decision":"allow","errors":0})
fx.append({"name":"history-in-first-step-then-steps","steps":[
  {"input":pre("bash",{},history=[{"tool":"sh"}]),"expected":{"decision":"allow"}},
  {"input":pre("bash",{}),"expected":{"decision":"block","code":"REP"}},
  {"input":{"anchor":"tool.post_invoke","facts":{"tool":"bash"}},"expected":{"decision":"allow"}},
  {"input":pre("bash",{}),"expected":{"decision":"block","code":"REP"}},
  {"input":{"anchor":"tool.post_invoke","facts":{"tool":"bash"}},"expected":{"decision":"warn","code":"POST_REPEAT"}}]})
def dump(l, f):
    with open(f,"w") as o:
        o.write("[\n"+",\n".join(json.dumps(x,ensure_ascii=False) for x in l)+"\n]\n")
dump(fx,"pass.json")
inv=[]
def I(name, inp): inv.append({"name":name,"input":inp,"expected":{"decision":"allow"}})
I("history-entry-time-not-rfc3339", pre("bash",history=[{"tool":"bash","time":"2026-01-01 00:00:00"}]))
I("history-entry-time-number", pre("bash",history=[{"tool":"bash","time":1}]))
I("history-entry-code-with-space", pre("bash",history=[{"tool":"bash","code":"RM_RF "}]))
I("history-entry-extra-key-anchor", pre("bash",history=[{"tool":"bash","anchor":"tool.pre_invoke"}]))
I("history-entry-empty-object", pre("bash",history=[{}]))
I("history-entry-tool-args-string", pre("bash",history=[{"tool":"bash","tool_args":"{}"}]))
I("history-entry-number-too-large", pre("bash",history=[{"tool":"bash","tool_args":{"n":"@BIG@"}}]))
I("history-entry-int-too-large", pre("bash",history=[{"tool":"bash","tool_args":{"n":"@BIGINT@"}}]))
dump(inv,"invalid.json")
s=open("invalid.json").read().replace('"@BIG@"','1e400').replace('"@BIGINT@"','9223372036854775808')
open("invalid.json","w").write(s)
