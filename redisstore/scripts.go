package redisstore

import "github.com/redis/go-redis/v9"

// The server-side scripts. A session is a hash, KEYS[1], whose fields are
// named by kind, so that they cannot collide:
//
//	c:RULE.fire, c:RULE.breaker  a counter (absent: 0)
//	n:ID                         a provenance node
//	s:N                          an ancestry summary
//	nodes                        how many nodes the session holds (absent: 0)
//	summaries                    the last summary number (absent: 0)
//	incomplete                   1 once the session is marked incomplete
//	tokens                       the last tokenWindow mutation tokens
//	g                            the session's generation (see below)
//	seq                          how many mutations the generation has had
//
// and its marker, KEYS[2], a hash of its own in the same hash slot that
// outlives it by a second (slack in the scripts): g and s (the generation
// and its mutations, as in the session's hash; s is 0 for a generation
// begun by a reset that nothing has written to yet), r (1 when the
// generation was begun by a reset) and, once the session is known to be
// lost, lost (why). KEYS[3],
// when present (not in a Cluster or a Ring: see the package doc), is the
// store's epoch: "<16 hex>:<created, ms>:<1 when created or noticed after
// a loss>", with no expiry.
//
// Every script starts with the same arguments:
//
//	ARGV[1]    the idle expiry in milliseconds: each call refreshes it
//	ARGV[2]    8 random bytes: the token of a mutation, the generation of a
//	           session it begins, the epoch it creates
//	ARGV[3]    the epoch the client knows ('' before its first answer)
//	ARGV[4..6] what the client remembers of the session: its generation
//	           ('' when nothing), mutations, and deadline (ms, server time)
//
// and answers {status, epoch, ...}: {'ok', epoch, generation, mutations,
// deadline, ...} (generation '' and deadline 0 for a session that does not
// exist), {'lost', epoch, why}, {'corrupt', epoch, what}, or, for a
// mutation whose token the session holds, {'done'}. The deadline is the
// one the call set: the session's hash expires then (its marker a second
// later), so a client that remembers it knows until when the session must
// exist.
//
// The scripts start with a shebang (Redis 7): their keys are declared, and
// one that writes is refused before it runs, never half way, when the
// server is out of memory. Those that read may run then (allow-oom): they
// only refresh expiries, or write a few bytes (the epoch, a marker written
// again, a session marked lost).
//
// Writes of a script happen after every check that can fail, so a script
// that fails or refuses has written nothing (Redis does not roll back);
// the one exception is marking a session lost or the epoch noticed, which
// is the point of the check that fails.
//
// Mutations carry a token (ARGV[2]) kept in the field tokens (the last
// tokenWindow, newest first): a call the client retries after a lost
// answer is recognised, before anything else is checked, and not applied
// twice.
//
// A stored value is read only in the form the scripts write it: a count is
// 1 to 15 digits without a leading zero (15 digits: Lua's numbers are
// doubles, exact to 2^53), a generation 16 lowercase hex digits, a flag
// 1. Anything else makes the call fail ('corrupt'), never a default.

// tokenWindow is how many recent mutation tokens a session keeps.
const tokenWindow = 8

// prelude defines what every script uses: now (server time, ms), the
// validators of stored values, and the session's state, read and checked
// by guard.
const prelude = `
local H, M = KEYS[1], KEYS[2]
local ttl = tonumber(ARGV[1])
local slack = 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch, lossWindow = '', false
local function count(v)
  return type(v) == 'string' and #v <= 15 and string.find(v, '^[1-9][0-9]*$') ~= nil
end
local function gen(v)
  return type(v) == 'string' and #v == 16 and string.find(v, '^[0-9a-f]+$') ~= nil
end
local function hex(s)
  return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
end
local function corrupt(what) return {'corrupt', epoch, what} end
local function lose(why)
  redis.call('HSET', M, 'lost', why)
  redis.call('PEXPIRE', M, ttl + slack)
  return {'lost', epoch, why}
end
-- The session as the checks left it: cur.g, cur.s (mutations, a string),
-- cur.r (1: begun by a reset), cur.h (its hash exists), cur.remark (its
-- marker must be written again); nil when the session does not exist.
local cur = nil
-- touch refreshes the expiry of an existing session and returns its new
-- deadline (0 when there is none).
local function touch()
  if not cur then return 0 end
  if cur.h then redis.call('PEXPIRE', H, ttl) end
  if cur.remark then redis.call('HSET', M, 'g', cur.g, 's', cur.s, 'r', cur.r) end
  redis.call('PEXPIRE', M, ttl + slack)
  return now + ttl
end
local function ok(...)
  local d = touch()
  if cur then return {'ok', epoch, cur.g, cur.s, d, ...} end
  return {'ok', epoch, '', '0', 0, ...}
end
`

// epochCheck reads the store's epoch (KEYS[3]), creating it when it is
// missing (marked as a loss when the client knew one: the server lost it),
// and marks it when the client knew another: the server lost its data
// since. Within a TTL of such an epoch's creation (lossWindow), a session
// that does not exist may be one the server lost while in use: it cannot
// be proven new.
const epochCheck = `
if #KEYS == 3 then
  local ev = redis.call('GET', KEYS[3])
  if not ev then
    ev = hex(ARGV[2]) .. ':' .. string.format('%d', now) .. ':' .. (ARGV[3] ~= '' and '1' or '0')
    redis.call('SET', KEYS[3], ev)
  end
  local er, ec, el = string.match(ev, '^([0-9a-f]+):([0-9]+):([01])$')
  if not gen(er) or #ec > 15 then return corrupt('the store epoch ' .. KEYS[3] .. ' holds something else') end
  if ARGV[3] ~= '' and er ~= ARGV[3] and el == '0' then
    el = '1'
    redis.call('SET', KEYS[3], er .. ':' .. ec .. ':1')
  end
  epoch = er
  lossWindow = el == '1' and now < tonumber(ec) + ttl + slack
end
`

// guard checks the session's state (see the package doc: "Lost state")
// and sets cur, or returns the answer of a session that is lost or
// corrupt.
const guard = epochCheck + `
local hv = redis.call('HMGET', H, 'g', 'seq')
local mv = redis.call('HMGET', M, 'g', 's', 'r', 'lost')
if mv[4] then
  redis.call('PEXPIRE', M, ttl + slack)
  return {'lost', epoch, mv[4]}
end
if mv[1] and (not gen(mv[1]) or not (mv[2] == '0' or count(mv[2])) or not (mv[3] == '0' or mv[3] == '1')) then
  return corrupt('the session marker ' .. M .. ' holds something else')
end
if not mv[1] and (mv[2] or mv[3]) then return corrupt('the session marker ' .. M .. ' has no generation') end
if hv[1] or hv[2] then
  if not gen(hv[1]) or not count(hv[2]) then return corrupt('the session has no valid generation and mutation count') end
  if mv[1] and (mv[1] ~= hv[1] or mv[2] ~= hv[2]) then return corrupt('the session and its marker disagree') end
  cur = {g = hv[1], s = hv[2], r = mv[3] or '0', h = true, remark = not mv[1]}
elseif redis.call('EXISTS', H) == 1 then
  return corrupt('the session has no generation (written by an older version of the store, or corrupt)')
elseif mv[1] then
  if mv[2] == '0' then
    cur = {g = mv[1], s = '0', r = mv[3]}
  elseif redis.call('PTTL', M) > slack then
    return lose('its state was deleted before it expired (evicted, deleted, or lost by the server)')
  end
end
if ARGV[4] ~= '' then
  if cur and cur.g == ARGV[4] then
    if tonumber(cur.s) < tonumber(ARGV[5]) then
      return lose('mutations a replica saw applied are gone (a failover or a restart lost them)')
    end
  elseif not (cur and cur.r == '1') and now < tonumber(ARGV[6]) - slack then
    return lose('its state is gone before it expired (evicted, or lost by the server)')
  end
end
if not cur and lossWindow then
  return lose('the server lost its data less than a TTL ago (the store epoch changed): the session cannot be proven new')
end
`

// tokens checks a mutation's token first: a retry of a mutation that was
// applied answers done, whatever happened since.
const tokens = `
local toks = redis.call('HGET', H, 'tokens')
if toks then
  if #toks % 8 ~= 0 or #toks > 64 then return corrupt('the session holds invalid mutation tokens') end
  for i = 1, #toks, 8 do
    if string.sub(toks, i, i + 7) == ARGV[2] then return {'done'} end
  end
end
`

// mutate begins a generation when the session does not exist, and counts
// the mutation; write(fields) then writes fields, the token, the
// generation and the count to the session, the marker, and the expiries.
const mutate = `
if not cur then cur = {g = hex(ARGV[2]), s = '0', r = '0'} end
local seq = string.format('%d', tonumber(cur.s) + 1)
local function write(set)
  set[#set + 1] = 'tokens'
  set[#set + 1] = ARGV[2] .. string.sub(toks or '', 1, 56)
  set[#set + 1] = 'g'
  set[#set + 1] = cur.g
  set[#set + 1] = 'seq'
  set[#set + 1] = seq
  redis.call('HSET', H, unpack(set))
  redis.call('HSET', M, 'g', cur.g, 's', seq, 'r', cur.r)
  cur.s, cur.h, cur.remark = seq, true, false
end
`

// readScript: ARGV[7..] counter fields. Answers their values (nil when
// absent), as one snapshot: a script runs alone. The client checks them.
var readScript = redis.NewScript(`#!lua flags=allow-oom
` + prelude + guard + `
local vals = {}
if cur and cur.h then
  vals = redis.call('HMGET', H, unpack(ARGV, 7))
else
  for i = 7, #ARGV do vals[#vals + 1] = false end
end
return ok(unpack(vals))
`)

// applyScript: ARGV[7..] pairs (field, op): op "+" adds one, "0" resets,
// in order. All or nothing: the new values are computed first, then
// written, with the token, in one command.
var applyScript = redis.NewScript(`#!lua
` + prelude + tokens + guard + `
local fields, seenField = {}, {}
for i = 7, #ARGV, 2 do
  if not seenField[ARGV[i]] then
    seenField[ARGV[i]] = true
    fields[#fields + 1] = ARGV[i]
  end
end
local vals = {}
local curv = {}
if cur and cur.h then curv = redis.call('HMGET', H, unpack(fields)) end
for i, f in ipairs(fields) do
  local v = curv[i]
  if v and not count(v) then
    return corrupt('counter ' .. string.sub(f, 3) .. ' holds ' .. string.format('%q', string.sub(v, 1, 40)) .. ', not a counter')
  end
  vals[f] = v and tonumber(v) or 0
end
for i = 7, #ARGV, 2 do
  if ARGV[i + 1] == '0' then
    vals[ARGV[i]] = 0
  else
    vals[ARGV[i]] = vals[ARGV[i]] + 1
    if vals[ARGV[i]] > 999999999999999 then return corrupt('counter ' .. string.sub(ARGV[i], 3) .. ' would overflow') end
  end
end
` + mutate + `
local set, del = {}, {}
for _, f in ipairs(fields) do
  if vals[f] == 0 then
    del[#del + 1] = f
  else
    set[#set + 1] = f
    set[#set + 1] = string.format('%d', vals[f])
  end
end
write(set)
if #del > 0 then redis.call('HDEL', H, unpack(del)) end
return ok()
`)

// graphLib reads the provenance graph's stored values, checking them:
// node(id) returns a node's record, or nil when absent; open(rec) the
// fields of a node stored open; summary(sid) a summary's four lists. Each
// returns nil and a description when the value is not what the scripts
// write. A step budget (ARGV[budgetArg]) bounds the work of one call:
// spend(n) reports whether n more steps fit.
const graphLib = `
local function strings(l)
  if type(l) ~= 'table' then return false end
  for i, v in ipairs(l) do if type(v) ~= 'string' then return false end end
  return true
end
local function node(id)
  local rec = redis.call('HGET', H, 'n:' .. id)
  if not rec then return nil end
  local k = string.sub(rec, 1, 1)
  if (k == 's' and (string.sub(rec, 2) == '0' or count(string.sub(rec, 2)))) or k == 'o' then return rec end
  return nil, 'node ' .. id .. ' holds something else'
end
local function open(id, rec)
  local okp, n = pcall(cmsgpack.unpack, string.sub(rec, 2))
  if okp and type(n) == 'table' and (n[1] == 1 or n[1] == 2) and type(n[2]) == 'string' and type(n[3]) == 'string'
      and type(n[4]) == 'string' and strings(n[5]) and strings(n[6]) then
    return n
  end
  return nil, 'node ' .. id .. ' holds something else'
end
local function summary(sid)
  local raw = redis.call('HGET', H, 's:' .. sid)
  if not raw then return nil, 'summary ' .. sid .. ' is missing' end
  local okp, s = pcall(cmsgpack.unpack, raw)
  if okp and type(s) == 'table' and strings(s[1]) and strings(s[2]) and strings(s[3]) and strings(s[4]) then return s end
  return nil, 'summary ' .. sid .. ' holds something else'
end
`

// recordScript: ARGV[7] node limit, ARGV[8] summary size limit (bytes,
// negative: none), ARGV[9] the step budget, ARGV[10..15] id, kind (1
// message, 2 tool result), tool, origin, trust tier, label count; then the
// labels, then the parents. Answers ok with 'recorded', or with 'refused',
// reason[, parent] (reason: limit, duplicate, parent), having written
// nothing.
//
// A node is stored as "s<summary>" when the facts of its whole ancestry
// fit a summary (see the package doc), else as "o" followed by its own
// facts and parents, msgpack-encoded. Merging the parents' summaries costs
// steps: a node whose merge would exceed the budget is stored open.
var recordScript = redis.NewScript(`#!lua
` + prelude + tokens + guard + graphLib + `
local limit, cap, budget = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local id, kind, tool, origin, tier = ARGV[10], tonumber(ARGV[11]), ARGV[12], ARGV[13], ARGV[14]
local nl = tonumber(ARGV[15])
local nodes, sums = 0, 0
if cur and cur.h then
  local meta = redis.call('HMGET', H, 'nodes', 'summaries')
  if meta[1] then
    if not count(meta[1]) then return corrupt('the session node count holds something else') end
    nodes = tonumber(meta[1])
  end
  if meta[2] then
    if not count(meta[2]) then return corrupt('the session summary count holds something else') end
    sums = tonumber(meta[2])
  end
end
if nodes >= limit then return ok('refused', 'limit') end
local own, err = node(id)
if err then return corrupt(err) end
if own then return ok('refused', 'duplicate') end
local labels = {}
for i = 16, 15 + nl do labels[#labels + 1] = ARGV[i] end
local parents, recs = {}, {}
for i = 16 + nl, #ARGV do
  local rec, perr = node(ARGV[i])
  if perr then return corrupt(perr) end
  if not rec then return ok('refused', 'parent', ARGV[i]) end
  parents[#parents + 1] = ARGV[i]
  recs[#recs + 1] = rec
end
local stored, newSum = nil, nil
if cap >= 0 then
  -- The summary of the node: its own facts and its parents' summaries,
  -- when every parent has one and merging them fits the budget.
  local sets, out, size, steps = {{}, {}, {}, {}}, {{}, {}, {}, {}}, 0, 0
  local function add(k, v, keepEmpty)
    if (keepEmpty or v ~= '') and not sets[k][v] then
      sets[k][v] = true
      out[k][#out[k] + 1] = v
      size = size + 1
    end
  end
  if kind == 2 then add(1, tool) end
  add(2, origin)
  add(3, tier)
  for _, l in ipairs(labels) do add(4, l, true) end
  local sizes, closed = {}, true
  for _, rec in ipairs(recs) do
    if string.sub(rec, 1, 1) ~= 's' then closed = false break end
    local sid = string.sub(rec, 2)
    if sid ~= '0' and not sizes[sid] then
      local s, serr = summary(sid)
      if not s then return corrupt(serr) end
      local n = #s[1] + #s[2] + #s[3] + #s[4]
      steps = steps + 1 + n
      if steps > budget then closed = false break end
      sizes[sid] = n
      for k = 1, 4 do for _, v in ipairs(s[k]) do add(k, v, true) end end
    end
  end
  if closed then
    if size == 0 then
      stored = 's0'
    else
      -- A node that adds nothing to one of its parents' summaries (which
      -- it contains) shares it.
      for sid, n in pairs(sizes) do
        if n == size then stored = 's' .. sid break end
      end
      if stored == nil then
        local packed = cmsgpack.pack(out)
        if #packed <= cap then
          newSum = string.format('%d', sums + 1)
          if redis.call('HEXISTS', H, 's:' .. newSum) == 1 then return corrupt('summary ' .. newSum .. ' exists beyond the summary count') end
          stored = 's' .. newSum
          newSum = {newSum, packed}
        end
      end
    end
  end
end
if stored == nil then
  stored = 'o' .. cmsgpack.pack({kind, tool, origin, tier, labels, parents})
end
` + mutate + `
local set = {'n:' .. id, stored, 'nodes', string.format('%d', nodes + 1)}
if newSum then
  set[#set + 1] = 's:' .. newSum[1]
  set[#set + 1] = newSum[2]
  set[#set + 1] = 'summaries'
  set[#set + 1] = newSum[1]
end
write(set)
return ok('recorded')
`)

// markScript marks the session's provenance incomplete.
var markScript = redis.NewScript(`#!lua
` + prelude + tokens + guard + mutate + `
write({'incomplete', '1'})
return ok()
`)

// scopeScript: ARGV[7] the step budget, ARGV[8..] the inputs. Walks the
// inputs and their ancestors with a visited set (each node, and each
// summary, once), stopping at nodes whose ancestry has a summary; every
// node, parent, summary and value costs a step, and a walk that would
// exceed the budget stops with 'budget' (the scope is then an error, never
// a part of it). Answers ok with 'scope', tools, origins, trust tiers,
// labels (distinct, unsorted: the client sorts in byte order), with
// 'incomplete', with 'unknown', input, or with 'budget'.
var scopeScript = redis.NewScript(`#!lua flags=allow-oom
` + prelude + guard + graphLib + `
local budget = tonumber(ARGV[7])
if cur and cur.h then
  local inc = redis.call('HGET', H, 'incomplete')
  if inc then
    if inc ~= '1' then return corrupt('the incomplete flag holds something else') end
    return ok('incomplete')
  end
end
local seen, seenSum = {}, {}
local sets, out = {{}, {}, {}, {}}, {{}, {}, {}, {}}
local function add(k, v, keepEmpty)
  if (keepEmpty or v ~= '') and not sets[k][v] then
    sets[k][v] = true
    out[k][#out[k] + 1] = v
  end
end
local stack, steps = {}, 0
for i = 8, #ARGV do
  local id = ARGV[i]
  if not seen[id] then
    local rec, err = node(id)
    if err then return corrupt(err) end
    if not rec then return ok('unknown', id) end
    seen[id] = true
    stack[#stack + 1] = {id, rec}
  end
end
while #stack > 0 do
  local top = stack[#stack]
  stack[#stack] = nil
  local id, rec = top[1], top[2]
  steps = steps + 1
  if string.sub(rec, 1, 1) == 's' then
    local sid = string.sub(rec, 2)
    if sid ~= '0' and not seenSum[sid] then
      seenSum[sid] = true
      local s, err = summary(sid)
      if not s then return corrupt(err) end
      steps = steps + #s[1] + #s[2] + #s[3] + #s[4]
      if steps > budget then return ok('budget') end
      for k = 1, 4 do for _, v in ipairs(s[k]) do add(k, v, true) end end
    end
  else
    local n, err = open(id, rec)
    if not n then return corrupt(err) end
    steps = steps + #n[5] + #n[6]
    if steps > budget then return ok('budget') end
    if n[1] == 2 then add(1, n[2]) end
    add(2, n[3])
    add(3, n[4])
    for _, l in ipairs(n[5]) do add(4, l, true) end
    for _, p in ipairs(n[6]) do
      if not seen[p] then
        seen[p] = true
        local prec, perr = node(p)
        if perr then return corrupt(perr) end
        if not prec then return corrupt('node ' .. id .. ' has a parent that is not recorded: ' .. p) end
        stack[#stack + 1] = {p, prec}
      end
    end
  end
end
return ok('scope', out[1], out[2], out[3], out[4])
`)

// resetScript begins a new generation of the session, empty: its hash is
// deleted, its marker says it was reset. ARGV[4..6] are not used. A retry
// of a reset that was applied (the marker holds its generation) changes
// nothing.
var resetScript = redis.NewScript(`#!lua
` + prelude + epochCheck + `
local g = hex(ARGV[2])
local mv = redis.call('HMGET', M, 'g', 's')
if mv[1] ~= g then
  redis.call('DEL', H, M)
  redis.call('HSET', M, 'g', g, 's', '0', 'r', '1')
  mv[2] = '0'
elseif not (mv[2] == '0' or count(mv[2])) then
  return corrupt('the session marker ' .. M .. ' holds something else')
end
cur = {g = g, s = mv[2], r = '1', h = mv[2] ~= '0'}
return ok()
`)
