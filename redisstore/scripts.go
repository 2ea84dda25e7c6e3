package redisstore

import "github.com/redis/go-redis/v9"

// The server-side scripts. A session is one hash, KEYS[1], whose fields
// are named by kind, so that they cannot collide:
//
//	c:RULE.fire, c:RULE.breaker  a counter (absent: 0)
//	n:ID                         a provenance node
//	s:N                          an ancestry summary
//	nodes                        how many nodes the session holds
//	summaries                    the last summary number
//	incomplete                   1 once the session is marked incomplete
//	tokens                       the last tokenWindow mutation tokens
//
// ARGV[1] is the idle expiry in milliseconds: each call refreshes it.
//
// The scripts start with a shebang (Redis 7): their keys are declared, and
// one that writes is refused before it runs, never half way, when the
// server is out of memory. Those that only refresh the expiry may run then
// (allow-oom): refreshing does not grow memory.
//
// Writes of a script happen after every check that can fail, so a script
// that fails has written nothing: Redis does not roll back.
//
// Mutations carry a token (ARGV[2], 8 bytes) kept in the field tokens
// (the last tokenWindow, newest first): a call the client retries after a
// lost answer (go-redis retries on a broken connection) is recognised and
// not applied twice.

// tokenWindow is how many recent mutation tokens a session keeps.
const tokenWindow = 8

const tokens = `
local token = ARGV[2]
local function seen(list)
  if not list then return false end
  for i = 1, #list, 8 do
    if string.sub(list, i, i + 7) == token then return true end
  end
  return false
end
local function remember(list)
  return token .. string.sub(list or '', 1, 56)
end
`

// readScript: ARGV[2..] counter fields. Returns their values (empty when
// absent), as one snapshot: a script runs alone.
var readScript = redis.NewScript(`#!lua flags=allow-oom
local vals = redis.call('HMGET', KEYS[1], unpack(ARGV, 2))
for i = 1, #vals do vals[i] = vals[i] or '' end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return vals
`)

// applyScript: ARGV[3..] pairs (field, op): op "+" adds one, "0" resets,
// in order. All or nothing: the new values are computed first, then
// written, with the token, in one command. Returns 1, or 0 when the token
// was already applied.
var applyScript = redis.NewScript(`#!lua
` + tokens + `
local fields, seenField = {}, {}
for i = 3, #ARGV, 2 do
  if not seenField[ARGV[i]] then
    seenField[ARGV[i]] = true
    fields[#fields + 1] = ARGV[i]
  end
end
local cur = redis.call('HMGET', KEYS[1], 'tokens', unpack(fields))
if seen(cur[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 0
end
local vals = {}
for i, f in ipairs(fields) do
  local v = 0
  if cur[i + 1] then
    v = tonumber(cur[i + 1])
    if v == nil then return redis.error_reply('OARC counter ' .. string.sub(f, 3) .. ' holds a value that is not a number') end
  end
  vals[f] = v
end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '0' then vals[ARGV[i]] = 0 else vals[ARGV[i]] = vals[ARGV[i]] + 1 end
end
local set, del = {'tokens', remember(cur[1])}, {}
for _, f in ipairs(fields) do
  if vals[f] == 0 then
    del[#del + 1] = f
  else
    set[#set + 1] = f
    set[#set + 1] = string.format('%d', vals[f])
  end
end
redis.call('HSET', KEYS[1], unpack(set))
if #del > 0 then redis.call('HDEL', KEYS[1], unpack(del)) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// recordScript: ARGV[3] node limit, ARGV[4] summary size limit (bytes,
// negative: none), ARGV[5..10] id, kind (1 message, 2 tool result), tool,
// origin, trust tier, label count; then the labels, then the parents.
// Returns {0} when recorded, {1, reason[, parent]} when refused (reason:
// limit, duplicate, parent), having written nothing.
//
// A node is stored as "s<summary>" when the facts of its whole ancestry
// fit a summary (see the package doc), else as "o" followed by its own
// facts and parents, msgpack-encoded.
var recordScript = redis.NewScript(`#!lua
` + tokens + `
local key = KEYS[1]
local limit, cap = tonumber(ARGV[3]), tonumber(ARGV[4])
local id, kind, tool, origin, tier = ARGV[5], tonumber(ARGV[6]), ARGV[7], ARGV[8], ARGV[9]
local nl = tonumber(ARGV[10])
local meta = redis.call('HMGET', key, 'tokens', 'nodes', 'n:' .. id)
if seen(meta[1]) then
  redis.call('PEXPIRE', key, ARGV[1])
  return {0}
end
if tonumber(meta[2] or '0') >= limit then return {1, 'limit'} end
if meta[3] then return {1, 'duplicate'} end
local labels = {}
for i = 11, 10 + nl do labels[#labels + 1] = ARGV[i] end
local parents, recs = {}, {}
for i = 11 + nl, #ARGV do
  local rec = redis.call('HGET', key, 'n:' .. ARGV[i])
  if not rec then return {1, 'parent', ARGV[i]} end
  parents[#parents + 1] = ARGV[i]
  recs[#recs + 1] = rec
end
local set = {'tokens', remember(meta[1])}
local stored = nil
if cap >= 0 then
  -- The summary of the node: its own facts and its parents' summaries,
  -- when every parent has one.
  local sets, out, size = {{}, {}, {}, {}}, {{}, {}, {}, {}}, 0
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
      local s = cmsgpack.unpack(redis.call('HGET', key, 's:' .. sid))
      sizes[sid] = #s[1] + #s[2] + #s[3] + #s[4]
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
          local sid = redis.call('HINCRBY', key, 'summaries', 1)
          set[#set + 1] = 's:' .. sid
          set[#set + 1] = packed
          stored = 's' .. sid
        end
      end
    end
  end
end
if stored == nil then
  stored = 'o' .. cmsgpack.pack({kind, tool, origin, tier, labels, parents})
end
set[#set + 1] = 'n:' .. id
set[#set + 1] = stored
set[#set + 1] = 'nodes'
set[#set + 1] = tonumber(meta[2] or '0') + 1
redis.call('HSET', key, unpack(set))
redis.call('PEXPIRE', key, ARGV[1])
return {0}
`)

// markScript marks the session's provenance incomplete.
var markScript = redis.NewScript(`#!lua
redis.call('HSET', KEYS[1], 'incomplete', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// scopeScript: ARGV[2..] the inputs. Walks the inputs and their ancestors
// with a visited set (each node, and each summary, once; so at most the
// session's nodes), stopping at nodes whose ancestry has a summary.
// Returns {'ok', tools, origins, trust tiers, labels} (distinct, unsorted:
// the client sorts in byte order), {'incomplete'} or {'unknown', input}.
var scopeScript = redis.NewScript(`#!lua flags=allow-oom
local key = KEYS[1]
redis.call('PEXPIRE', key, ARGV[1])
if redis.call('HEXISTS', key, 'incomplete') == 1 then return {'incomplete'} end
local seen, seenSum = {}, {}
local sets, out = {{}, {}, {}, {}}, {{}, {}, {}, {}}
local function add(k, v, keepEmpty)
  if (keepEmpty or v ~= '') and not sets[k][v] then
    sets[k][v] = true
    out[k][#out[k] + 1] = v
  end
end
local stack = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  if not seen[id] then
    local rec = redis.call('HGET', key, 'n:' .. id)
    if not rec then return {'unknown', id} end
    seen[id] = true
    stack[#stack + 1] = rec
  end
end
while #stack > 0 do
  local rec = stack[#stack]
  stack[#stack] = nil
  if string.sub(rec, 1, 1) == 's' then
    local sid = string.sub(rec, 2)
    if sid ~= '0' and not seenSum[sid] then
      seenSum[sid] = true
      local s = cmsgpack.unpack(redis.call('HGET', key, 's:' .. sid))
      for k = 1, 4 do for _, v in ipairs(s[k]) do add(k, v, true) end end
    end
  else
    local n = cmsgpack.unpack(string.sub(rec, 2))
    if n[1] == 2 then add(1, n[2]) end
    add(2, n[3])
    add(3, n[4])
    for _, l in ipairs(n[5]) do add(4, l, true) end
    for _, p in ipairs(n[6]) do
      if not seen[p] then
        seen[p] = true
        stack[#stack + 1] = redis.call('HGET', key, 'n:' .. p)
      end
    end
  end
end
return {'ok', out[1], out[2], out[3], out[4]}
`)
