package redisstore

import (
	"strconv"
	"time"

	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// The server-side scripts. A session is a hash, KEYS[1], whose fields are
// named by kind, so that they cannot collide:
//
//	c:RULE.fire, c:RULE.breaker  a counter (absent: 0)
//	n:ID                         a provenance node
//	d:ID                         its fields, for provenance_nodes
//	s:N                          an ancestry summary
//	nodes                        how many nodes the session holds (absent: 0)
//	summaries                    the last summary number (absent: 0)
//	incomplete                   1 once the session is marked incomplete
//	bytes                        what its nodes count against the byte limit
//	strings                      how many distinct strings its graph holds
//	v:S                          1: the graph holds string S
//	r                            the record of tool calls (see recordLib)
//	rt                           its last 64 tool names
//	ct                           its calls' times (see timesLib)
//	t:N:CT                       blocks of tool T with code C (N: C's length)
//	tokens                       the last tokenWindow mutation tokens
//	g                            the session's generation (see below)
//	seq                          how many mutations the generation has had
//	gr                           when a reset began the generation (the
//	                             marker's b; 0: unknown); absent when
//	                             none did. It says so when the marker
//	                             was evicted alone
//
// and its marker, KEYS[2], a hash of its own in the same hash slot that
// outlives it by a second (slack in the scripts): g and s (the generation
// and its mutations, as in the session's hash; s is 0 for a generation
// begun by a reset that nothing has written to yet), r (1 when the
// generation was begun by a reset), b (when the reset began it: server
// time, ms; absent when written by a version of the store before it),
// n ("S:L:R:T:C:G": after mutation S
// of generation G, the store left L fields in the session's hash, and its
// fields r, rt and ct R, T and C bytes long; see guard) and, once the session is known to
// be lost, lost (why). KEYS[3],
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
-- notHash is what a key of another type than a hash is.
local function notHash(key) return 'the key ' .. key .. ' is not a hash (written by something else than the store)' end
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
  if cur.remark then
    redis.call('HSET', M, 'g', cur.g, 's', cur.s, 'r', cur.r)
    if cur.b then redis.call('HSET', M, 'b', cur.b) end
  end
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
  local ev = redis.pcall('GET', KEYS[3])
  if type(ev) == 'table' then return corrupt('the store epoch ' .. KEYS[3] .. ' is not a string (written by something else than the store)') end
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
local hv = redis.pcall('HMGET', H, 'g', 'seq', 'gr')
if hv.err then return corrupt(notHash(H)) end
local mv = redis.pcall('HMGET', M, 'g', 's', 'r', 'lost', 'n', 'b')
if mv.err then return corrupt(notHash(M)) end
if mv[4] then
  redis.call('PEXPIRE', M, ttl + slack)
  return {'lost', epoch, mv[4]}
end
if mv[1] and (not gen(mv[1]) or not (mv[2] == '0' or count(mv[2])) or not (mv[3] == '0' or mv[3] == '1')) then
  return corrupt('the session marker ' .. M .. ' holds something else')
end
if not mv[1] and (mv[2] or mv[3] or mv[5] or mv[6]) then return corrupt('the session marker ' .. M .. ' has no generation') end
if mv[6] and not count(mv[6]) then return corrupt('the session marker ' .. M .. ' holds something else') end
-- No mutation (s 0) is written only by a reset (r 1).
if mv[2] == '0' and mv[3] ~= '1' then return corrupt('the session marker ' .. M .. ' says no mutation without a reset') end
if hv[1] or hv[2] then
  if not gen(hv[1]) or not count(hv[2]) then return corrupt('the session has no valid generation and mutation count') end
  if hv[3] and not (hv[3] == '0' or count(hv[3])) then return corrupt('the session says it was begun by a reset in another form') end
  if mv[1] and (mv[1] ~= hv[1] or mv[2] ~= hv[2]) then return corrupt('the session and its marker disagree') end
  -- The fields the store left in the hash, after the mutation that is
  -- its last: a field deleted or added since, by something else than the
  -- store, is corrupt, whichever it is (a counter, the calls' times, the
  -- incomplete flag: absent in a valid session too, so their form cannot
  -- tell); so is the record (r, rt, ct) cut or extended (a cut entry
  -- that the next update's entries would complete into a valid form, a
  -- code cut short). A count of another mutation or generation was not
  -- written after the hash's last mutation, but by this store before a
  -- version that does not keep it wrote the hash (a rolling upgrade: that
  -- version writes the marker's g and s and leaves n, even when it begins
  -- a new generation, whose mutations then count up to the old one's):
  -- not checked.
  -- A count in a form of an earlier version, without the generation
  -- ("S:L", "S:L:R:T:C"), cannot be tied to the hash's generation: not
  -- checked either (the next mutation writes it in this form).
  local legacy = mv[5] and (string.find(mv[5], '^[0-9]+:[0-9]+$') or string.find(mv[5], '^[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+$'))
  if mv[5] and not legacy then
    local want = {string.match(mv[5], '^([0-9]+):([0-9]+):([0-9]+):([0-9]+):([0-9]+):([0-9a-f]+)$')}
    if #want ~= 6 or not count(want[1]) or not count(want[2]) or not gen(want[6]) then return corrupt('the session marker ' .. M .. ' holds something else') end
    for i = 3, 5 do
      if not (want[i] == '0' or count(want[i])) then return corrupt('the session marker ' .. M .. ' holds something else') end
    end
    if want[6] == hv[1] and want[1] == hv[2] then
      local hl = redis.call('HLEN', H)
      if tonumber(want[2]) ~= hl then
        return corrupt('the session holds ' .. hl .. ' fields, not the ' .. want[2] .. ' the store left: a field was deleted or added by something else than the store')
      end
      local names = {'r', 'rt', 'ct'}
      for i = 1, 3 do
        if tonumber(want[i + 2]) ~= redis.call('HSTRLEN', H, names[i]) then
          return corrupt('the field ' .. names[i] .. ' of the record of tool calls is not as long as the store left it: cut or extended by something else than the store')
        end
      end
    end
  end
  -- Without its marker (evicted alone), the hash says whether a reset
  -- began the generation, and when.
  local r, b = mv[3], mv[6]
  if not mv[1] and hv[3] then
    r = '1'
    if hv[3] ~= '0' then b = hv[3] end
  end
  cur = {g = hv[1], s = hv[2], r = r or '0', b = b, h = true, remark = not mv[1]}
elseif redis.call('EXISTS', H) == 1 then
  return corrupt('the session has no generation (written by an older version of the store, or corrupt)')
elseif mv[1] then
  if mv[2] == '0' then
    cur = {g = mv[1], s = '0', r = mv[3], b = mv[6]}
  else
    -- A marker without an expiry (-1: PERSIST, a copy that dropped
    -- expiries) never reaches its last second: the hash went before it.
    local mt = redis.call('PTTL', M)
    if mt > slack or mt == -1 then
      return lose('its state was deleted before it expired (evicted, deleted, or lost by the server)')
    end
  end
end
if ARGV[4] ~= '' then
  if cur and cur.g == ARGV[4] then
    if tonumber(cur.s) < tonumber(ARGV[5]) then
      return lose('mutations a replica saw applied are gone (a failover or a restart lost them)')
    end
  elseif now < tonumber(ARGV[6]) - slack then
    if not (cur and cur.r == '1') then
      return lose('its state is gone before it expired (evicted, or lost by the server)')
    end
    -- Another generation begun by a reset is a newer one only when the
    -- reset came after the client's last answer of the generation it
    -- remembers (its deadline minus the TTL): one begun more than a
    -- second before is an earlier reset the server went back to.
    if cur.b and tonumber(cur.b) < tonumber(ARGV[6]) - ttl - slack then
      return lose('the server went back to an earlier reset of the session (a failover or a restart lost the writes since)')
    end
  end
end
if not cur and lossWindow then
  return lose('the server lost its data less than a TTL ago (the store epoch changed): the session cannot be proven new')
end
`

// tokens checks a mutation's token first: a retry of a mutation that was
// applied answers done, whatever happened since.
var tokens = `
local toks = redis.pcall('HGET', H, 'tokens')
if type(toks) == 'table' then return corrupt(notHash(H)) end
if toks then
  if #toks % 8 ~= 0 or #toks > ` + strconv.Itoa(8*tokenWindow) + ` then return corrupt('the session holds invalid mutation tokens') end
  for i = 1, #toks, 8 do
    if string.sub(toks, i, i + 7) == ARGV[2] then return {'done'} end
  end
end
`

// mutate begins a generation when the session does not exist, and counts
// the mutation; write(fields, del) then writes fields, the token, the
// generation and the count to the session, deletes the fields del from
// it, and writes the marker: the generation, the count, how many fields
// the session's hash then holds and the lengths of r, rt and ct (n).
var mutate = `
if not cur then cur = {g = hex(ARGV[2]), s = '0', r = '0'} end
local seq = string.format('%d', tonumber(cur.s) + 1)
local function write(set, del)
  set[#set + 1] = 'tokens'
  set[#set + 1] = ARGV[2] .. string.sub(toks or '', 1, ` + strconv.Itoa(8*(tokenWindow-1)) + `)
  set[#set + 1] = 'g'
  set[#set + 1] = cur.g
  set[#set + 1] = 'seq'
  set[#set + 1] = seq
  if cur.r == '1' then
    set[#set + 1] = 'gr'
    set[#set + 1] = cur.b or '0'
  end
  redis.call('HSET', H, unpack(set))
  if del and #del > 0 then redis.call('HDEL', H, unpack(del)) end
  local n = seq .. ':' .. redis.call('HLEN', H) .. ':' .. redis.call('HSTRLEN', H, 'r') .. ':' .. redis.call('HSTRLEN', H, 'rt') .. ':' .. redis.call('HSTRLEN', H, 'ct') .. ':' .. cur.g
  redis.call('HSET', M, 'g', cur.g, 's', seq, 'r', cur.r, 'n', n)
  cur.s, cur.h, cur.remark = seq, true, false
end
`

// recordLib keeps the session's record of tool calls (spec 5.10), the
// state runtime's MemStore keeps in its record, in three kinds of fields:
//
//	r       "calls,run,codeRun,lastRepeat,lastCodeRun,pairs,full,hasFp,"
//	        then the last call's fingerprint (8 bytes) and its code (the
//	        rest): the calls recorded; the identical calls in a row ending
//	        with the last one; the calls blocked with the last one's code
//	        in a row ending with it; what the last call read of those two;
//	        how many (code, tool) pairs are counted; 1 when a pair could
//	        not be (TotalsLimit reached); whether the last call has a
//	        fingerprint. The numbers are decimal, 0 or a count.
//	rt      the tools of the last min(calls, RecentLimit) calls, oldest
//	        first, each as its length (4 bytes, big-endian) and its bytes.
//	t:N:CT  the blocks of tool T with code C, N the length of C in bytes:
//	        a count, absent when 0. Length-prefixed, so that no code and
//	        tool make another pair's field, whatever bytes they hold.
//
// The names are one string that the server reads without taking it apart
// (the client does, and checks it) and walks once to record a call: a
// msgpack list cost the server twice as much to check, unpack and pack,
// and a field for each name (a ring) four times as much to read.
//
// Absent r is the empty record. A record is read only in the form the
// scripts write it: the numbers canonical (no sign, no leading zero, at
// most 15 digits), the flags 0 or 1, a fingerprint of 8 bytes, exactly
// min(calls, RecentLimit) names and nothing after them (checked by the
// client, splitNames, when it reads, and by walkNames when a script
// records a call or reads the last call's tool), and the relations apply
// keeps between the values (run is lastRepeat + 1; codeRun is 0 exactly
// when the code is empty; the empty record is all zeros); else the
// session is corrupt.
var recordLib = `
local recentLimit, totalsLimit = ` + strconv.Itoa(runtime.RecentLimit) + `, ` + strconv.Itoa(runtime.TotalsLimit) + `
local maxCount = 999999999999999
local zeroFp = string.rep('\0', 8)
local function num(v) return v == '0' or count(v) end
-- loadRecord returns the session's record as {calls, run, codeRun,
-- lastRepeat, lastCodeRun, pairs, full, hasFp, fp, code}, or nil and what
-- is wrong with it.
local function loadRecord()
  local raw = false
  if cur and cur.h then raw = redis.call('HGET', H, 'r') end
  local bad = 'the record of tool calls holds something else'
  if not raw then
    -- The scripts write r with the names and the times: without it,
    -- they are a record that lost its numbers, not an empty one.
    if cur and cur.h and (redis.call('HEXISTS', H, 'rt') == 1 or redis.call('HEXISTS', H, 'ct') == 1) then return nil, bad end
    return {0, 0, 0, 0, 0, 0, 0, 0, zeroFp, ''}
  end
  local f = {string.match(raw, '^([0-9]+),([0-9]+),([0-9]+),([0-9]+),([0-9]+),([0-9]+),([01]),([01]),()')}
  if #f ~= 9 then return nil, bad end
  for i = 1, 6 do
    if not num(f[i]) then return nil, bad end
    f[i] = tonumber(f[i])
  end
  local fp = string.sub(raw, f[9], f[9] + 7)
  local r = {f[1], f[2], f[3], f[4], f[5], f[6], tonumber(f[7]), tonumber(f[8]), fp, string.sub(raw, f[9] + 8)}
  local calls = r[1]
  if #fp ~= 8 or r[2] > calls or r[3] > calls or r[6] > math.min(calls, totalsLimit) then return nil, bad end
  if calls == 0 then
    if r[2] ~= 0 or r[3] ~= 0 or r[4] ~= 0 or r[5] ~= 0 or r[7] ~= 0 or r[8] ~= 0 or fp ~= zeroFp or r[10] ~= '' then return nil, bad end
  elseif r[2] ~= r[4] + 1 or (r[3] == 0) ~= (r[10] == '') or r[5] >= calls or (r[7] == 1 and r[6] ~= totalsLimit) then
    return nil, bad
  end
  return r
end
local function packRecord(r)
  return string.format('%d,%d,%d,%d,%d,%d,%d,%d,', r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) .. r[9] .. r[10]
end
-- walkNames checks that b holds exactly want names; it returns the
-- position after the first one and the last one, or nil.
local function walkNames(b, want)
  if not b then return nil end
  local pos, len, k, first, last = 1, #b, 0, 1, ''
  while pos <= len do
    local a1, a2, a3, a4 = string.byte(b, pos, pos + 3)
    if not a4 then return nil end
    local n = ((a1 * 256 + a2) * 256 + a3) * 256 + a4
    if k == 0 then first = pos + 4 + n end
    k = k + 1
    if k > want then return nil end
    if k == want then last = string.sub(b, pos + 4, pos + 3 + n) end
    pos = pos + 4 + n
  end
  if pos ~= len + 1 or k ~= want then return nil end
  return first, last
end
local function nameEntry(tool)
  local n = #tool
  return string.char(math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256) .. tool
end
local function totalField(code, tool)
  return 't:' .. string.format('%d', #code) .. ':' .. code .. tool
end
-- totalValue reads a pair's count (0 when absent), or nil and what is
-- wrong.
local function totalValue(v, code, tool)
  if not v then return 0 end
  if not count(v) then
    return nil, 'the blocks of tool ' .. string.format('%q', string.sub(tool, 1, 40)) .. ' with code ' .. string.format('%q', string.sub(code, 1, 40)) .. ' hold ' .. string.format('%q', string.sub(v, 1, 40)) .. ', not a count'
  end
  return tonumber(v)
end
local badNames = 'the tool names of the record of tool calls hold something else'
`

// timesLib keeps the calls' times of the record (spec 5.13), as runtime's
// MemStore keeps them (runtime.CallTimes): in the field
//
//	ct  "n latS latN d dropS dropN;" then n entries "S N L:T", oldest
//	    applied first: each call's time as seconds (floor, signed) and
//	    nanoseconds (0 to 999999999), and its tool T, L bytes long.
//
// n is how many are kept (at most runtime.TimesLimit), lat the latest
// time added since the ring was last empty, d 1 once a call was dropped
// and drop the latest time dropped (0 0 while d is 0). A time is two
// numbers because Lua's numbers are doubles: an int64 of nanoseconds is
// not exact in one, seconds and nanoseconds each are, and so is a
// comparison and the cut (seconds minus runtime.TimesSpan). Absent ct is
// the empty ring. Applying a call reads the header and the entries it
// drops (each checked as parseTimes checks it, and their number against
// n: a call far enough ahead walks them all); the client checks the
// whole field when it reads it (parseTimes).
var timesLib = `
local timesLimit, timesSpan = ` + strconv.Itoa(runtime.TimesLimit) + `, ` + strconv.FormatInt(int64(runtime.TimesSpan/time.Second), 10) + `
local badTimes = "the calls' times of the record of tool calls hold something else"
local function secs(v)
  return type(v) == 'string' and #v <= 12 and (v == '0' or string.find(v, '^%-?[1-9][0-9]*$') ~= nil)
end
local function nanos(v) return v == '0' or (count(v) and #v <= 9) end
-- inInt64 says whether seconds and nanoseconds are a time an int64 of
-- nanoseconds holds (what the client sends, and reads back).
local function inInt64(s, ns)
  return (s > -9223372037 and s < 9223372036) or (s == 9223372036 and ns <= 854775807) or (s == -9223372037 and ns >= 145224192)
end
-- tm: the header; tb the stored entries, tpos the first kept one, tk how
-- many of them were dropped; tadd the entries added, ti the first kept.
local tm, tb, tpos, tk, tadd, ti = nil, '', 1, 0, {}, 1
local function loadTimes()
  local raw = false
  if cur and cur.h then raw = redis.call('HGET', H, 'ct') end
  if not raw then
    tm = {n = 0, held = 0, ls = 0, ln = 0, d = false, ds = 0, dn = 0}
    return true
  end
  local n, ls, ln, d, ds, dn, p = string.match(raw, '^([0-9]+) (%-?[0-9]+) ([0-9]+) ([01]) (%-?[0-9]+) ([0-9]+);()')
  if not n or not num(n) or not secs(ls) or not nanos(ln) or not secs(ds) or not nanos(dn) then return false end
  tm = {n = tonumber(n), ls = tonumber(ls), ln = tonumber(ln), d = d == '1', ds = tonumber(ds), dn = tonumber(dn)}
  if not inInt64(tm.ls, tm.ln) or not inInt64(tm.ds, tm.dn) then return false end
  tm.held, tm.hs, tm.hn = tm.n, tm.ls, tm.ln
  if tm.n > timesLimit or (not tm.d and (tm.ds ~= 0 or tm.dn ~= 0)) or (tm.n == 0 and p <= #raw) then return false end
  tb, tpos = raw, p
  return true
end
-- tfront returns the oldest kept entry's time and, when it is a stored
-- one, where the next begins; nil when the stored entries are not what
-- the scripts write.
local function tfront()
  if tk < tm.held then
    if tpos > #tb then return nil end
    local s, ns, l, p = string.match(tb, '^(%-?[0-9]+) ([0-9]+) ([0-9]+):()', tpos)
    if not s or not secs(s) or not nanos(ns) or not num(l) or p + tonumber(l) > #tb + 1 then return nil end
    s, ns = tonumber(s), tonumber(ns)
    if not inInt64(s, ns) then return nil end
    -- As every apply leaves them: none after the latest, the oldest
    -- after the cut.
    if s > tm.hs or (s == tm.hs and ns > tm.hn) then return nil end
    if tk == 0 and (s < tm.hs - timesSpan or (s == tm.hs - timesSpan and ns <= tm.hn)) then return nil end
    return s, ns, p + tonumber(l)
  end
  if tpos <= #tb then return nil end
  local e = tadd[ti]
  return e[1], e[2], nil
end
local function tdrop()
  local s, ns, nxt = tfront()
  if not s then return false end
  if not tm.d or s > tm.ds or (s == tm.ds and ns > tm.dn) then tm.ds, tm.dn = s, ns end
  tm.d = true
  if nxt then
    tpos, tk = nxt, tk + 1
  else
    ti = ti + 1
  end
  tm.n = tm.n - 1
  return true
end
-- addTime keeps a call's time, as runtime's timeRing.add does; false when
-- the stored entries are not what the scripts write.
local function addTime(s, ns, tool)
  if tm.n == 0 or s > tm.ls or (s == tm.ls and ns > tm.ln) then tm.ls, tm.ln = s, ns end
  if tm.n == timesLimit and not tdrop() then return false end
  tadd[#tadd + 1] = {s, ns, string.format('%d %d %d:', s, ns, #tool) .. tool}
  tm.n = tm.n + 1
  local cs, cn = tm.ls - timesSpan, tm.ln
  while tm.n > 0 do
    local fs, fn = tfront()
    if not fs then return false end
    if fs > cs or (fs == cs and fn > cn) then break end
    tdrop()
  end
  return true
end
local function packTimes()
  local out = {string.format('%d %d %d %d %d %d;', tm.n, tm.ls, tm.ln, tm.d and 1 or 0, tm.ds, tm.dn), string.sub(tb, tpos)}
  for i = ti, #tadd do out[#out + 1] = tadd[i][3] end
  return table.concat(out)
end
`

// readScript: ARGV[7] n, the number of counter fields; ARGV[8..7+n] the
// fields; then, when the record is read, ARGV[8+n] the query's tool,
// ARGV[9+n] 1 to use the last call's tool instead, ARGV[10+n] 1 to answer
// every name (HistoryQuery.Names), ARGV[11+n] 1 to answer the calls'
// times (HistoryQuery.Times), ARGV[12+n..] the query's codes.
// Answers ok with the counters' values (nil when absent; the client
// checks them) and the record as runtime.History holds it: {calls, run,
// codeRun, lastRepeat, lastCodeRun, hasFingerprint, fingerprint, code,
// tools (rt, as stored: the client splits and checks it; without Names
// only its last entry, the last call's tool, once the script checked
// the whole list), totals, known, times (ct as stored, or false: the
// client parses and checks it; false too when not asked)}. One script runs
// alone, so the counters and the record are one snapshot.
var readScript = redis.NewScript(`#!lua flags=allow-oom
` + prelude + guard + recordLib + `
local n = tonumber(ARGV[7])
local vals = {}
if cur and cur.h and n > 0 then
  vals = redis.call('HMGET', H, unpack(ARGV, 8, 7 + n))
else
  for i = 1, n do vals[i] = false end
end
if #ARGV == 7 + n then return ok(vals) end
local r, err = loadRecord()
if not r then return corrupt(err) end
local names = ''
if r[1] > 0 then
  names = redis.call('HGET', H, 'rt')
  if not names then return corrupt(badNames) end
end
local tool = ARGV[8 + n]
if ARGV[10 + n] ~= '1' and r[1] > 0 then
  -- Without the names: the last one, once the list is checked (a
  -- corrupt list fails the read whether the rules read the names or not).
  local first, last = walkNames(names, math.min(r[1], recentLimit))
  if not first then return corrupt(badNames) end
  names = nameEntry(last)
end
if ARGV[9 + n] == '1' and #ARGV >= 12 + n then
  local first, last = walkNames(names, math.min(r[1], recentLimit, ARGV[10 + n] == '1' and recentLimit or 1))
  if not first then return corrupt(badNames) end
  tool = last
end
local totals, known = {}, {}
if #ARGV >= 12 + n then
  local fields = {}
  for i = 12 + n, #ARGV do fields[#fields + 1] = totalField(ARGV[i], tool) end
  local tv = {}
  if cur and cur.h then tv = redis.call('HMGET', H, unpack(fields)) end
  for i = 12 + n, #ARGV do
    local v = tv[i - 11 - n]
    local t, terr = totalValue(v, ARGV[i], tool)
    if not t then return corrupt(terr) end
    totals[#totals + 1] = t
    known[#known + 1] = (v or r[7] == 0) and 1 or 0
  end
end
local ct = false
if ARGV[11 + n] == '1' and cur and cur.h then ct = redis.call('HGET', H, 'ct') end
return ok(vals, {r[1], r[2], r[3], r[4], r[5], r[8], r[9], r[10], names, totals, known, ct})
`)

// applyScript: ARGV[7] n, the number of counter updates; ARGV[8..7+2n]
// pairs (field, op): op "+" adds one, "0" resets, in order; then the
// calls to record, six arguments each (tool, fingerprint: 8 bytes,
// whether it has one: 0 or 1, code, and the call's time as seconds and
// nanoseconds: empty for a call without one, which is not kept in ct), in
// order. All or nothing: the new
// values are computed first (every stored value they depend on checked),
// then written, with the token, in one HSET (and one HDEL of the counters
// back to 0).
var applyScript = redis.NewScript(`#!lua
` + prelude + tokens + guard + recordLib + timesLib + `
local n = tonumber(ARGV[7])
local fields, seenField = {}, {}
for i = 8, 7 + 2 * n, 2 do
  if not seenField[ARGV[i]] then
    seenField[ARGV[i]] = true
    fields[#fields + 1] = ARGV[i]
  end
end
local vals = {}
local curv = {}
if cur and cur.h and #fields > 0 then curv = redis.call('HMGET', H, unpack(fields)) end
for i, f in ipairs(fields) do
  local v = curv[i]
  if v and not count(v) then
    return corrupt('counter ' .. string.sub(f, 3) .. ' holds ' .. string.format('%q', string.sub(v, 1, 40)) .. ', not a counter')
  end
  vals[f] = v and tonumber(v) or 0
end
for i = 8, 7 + 2 * n, 2 do
  if ARGV[i + 1] == '0' then
    vals[ARGV[i]] = 0
  else
    vals[ARGV[i]] = vals[ARGV[i]] + 1
    if vals[ARGV[i]] > maxCount then return corrupt('counter ' .. string.sub(ARGV[i], 3) .. ' would overflow') end
  end
end
-- The calls, as runtime's record applies them: each derives the record's
-- new state from the state the one before left.
local r, lastTool, totals, order = nil, '', {}, {}
local names, held, first = '', 0, 1
if #ARGV > 7 + 2 * n then
  local err
  r, err = loadRecord()
  if not r then return corrupt(err) end
  if r[1] > 0 then
    names = redis.call('HGET', H, 'rt')
    held = math.min(r[1], recentLimit)
    first, lastTool = walkNames(names, held)
    if not first then return corrupt(badNames) end
  end
end
local added = {}
for i = 8 + 2 * n, #ARGV, 6 do
  local tool, fp, hasFp, code = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]
  if ARGV[i + 4] ~= '' then
    if not tm and not loadTimes() then return corrupt(badTimes) end
    if not addTime(tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]), tool) then return corrupt(badTimes) end
  end
  local calls = r[1]
  local same = calls > 0 and hasFp == 1 and r[8] == 1 and lastTool == tool and r[9] == fp
  local lastCode = r[10]
  r[4], r[5] = 0, 0
  if same then r[4] = r[2] end
  if calls > 0 and lastCode ~= '' then r[5] = r[3] end
  if same then r[2] = r[2] + 1 else r[2] = 1 end
  if code == '' then
    r[3] = 0
  elseif calls > 0 and lastCode == code then
    r[3] = r[3] + 1
  else
    r[3] = 1
  end
  if code ~= '' then
    local f = totalField(code, tool)
    local v = totals[f]
    if v == nil then
      local raw = false
      if cur and cur.h then raw = redis.call('HGET', H, f) end
      local terr
      v, terr = totalValue(raw, code, tool)
      if not v then return corrupt(terr) end
      order[#order + 1] = f
    end
    if v > 0 then
      v = v + 1
      if v > maxCount then return corrupt('the blocks of a tool with a code would overflow') end
    elseif r[6] < totalsLimit then
      v = 1
      r[6] = r[6] + 1
    else
      r[7] = 1
    end
    totals[f] = v
  end
  added[#added + 1] = nameEntry(tool)
  lastTool = tool
  r[8], r[9], r[10] = hasFp, fp, code
  r[1] = calls + 1
  if r[1] > maxCount then return corrupt('the record of tool calls would overflow') end
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
if r then
  -- The names: the last RecentLimit of those held and those added.
  local drop = held + #added - recentLimit
  if drop > held then
    names = ''
    added = {unpack(added, drop - held + 1)}
  elseif drop == 1 then
    names = string.sub(names, first)
  elseif drop > 1 then
    local pos = 1
    for _ = 1, drop do
      local a1, a2, a3, a4 = string.byte(names, pos, pos + 3)
      pos = pos + 4 + ((a1 * 256 + a2) * 256 + a3) * 256 + a4
    end
    names = string.sub(names, pos)
  end
  set[#set + 1] = 'r'
  set[#set + 1] = packRecord(r)
  set[#set + 1] = 'rt'
  set[#set + 1] = names .. table.concat(added)
  if tm then
    set[#set + 1] = 'ct'
    set[#set + 1] = packTimes()
  end
  for _, f in ipairs(order) do
    if totals[f] > 0 then
      set[#set + 1] = f
      set[#set + 1] = string.format('%d', totals[f])
    end
  end
end
write(set, del)
return ok()
`)

// graphLib reads the provenance graph's stored values, checking them:
// node(id) returns a node's record, or nil when absent; open(rec) the
// fields of a node stored open; summary(sid) a summary's four lists. Each
// returns nil and a description when the value is not what the scripts
// write. fields(id) returns the fields of a node that provenance_nodes
// lists (d:ID), nil when the node is not recorded, or nil and what is
// wrong: a value the scripts do not write, or a node recorded without
// them (by a version of the store that did not keep them), which cannot
// be listed.
var graphLib = `
local maxArgs = ` + strconv.Itoa(runtime.MaxNodeArgs) + `
-- strings says whether l is a list of strings as cmsgpack unpacks an
-- array of strings: keys 1 to n and nothing else. ipairs stops at the
-- first nil and walks no other key, so an array with a nil (msgpack
-- nil), or a map, is checked against every key it holds: before, the
-- strings after a hole (a label, a parent) were left out of the scope.
local function strings(l)
  if type(l) ~= 'table' then return false end
  local n = 0
  for i, v in ipairs(l) do
    if type(v) ~= 'string' then return false end
    n = i
  end
  for _ in pairs(l) do n = n - 1 end
  return n == 0
end
-- unpack1 returns the one msgpack array raw holds, of exactly n values
-- (keys 1 to n and nothing else), or nil: cmsgpack unpacks every object
-- of a string, and an array of more values, or more bytes after it, is
-- not what the scripts write.
local function unpack1(raw, n)
  local r = {pcall(cmsgpack.unpack, raw)}
  local t = r[2]
  if not r[1] or #r ~= 2 or type(t) ~= 'table' then return nil end
  local k = 0
  for _ in pairs(t) do k = k + 1 end
  if k ~= n then return nil end
  for i = 1, n do if t[i] == nil then return nil end end
  return t
end
local function fields(id)
  local raw = redis.call('HGET', H, 'd:' .. id)
  if not raw then
    if redis.call('HEXISTS', H, 'n:' .. id) == 1 then
      return nil, 'node ' .. id .. ' has no stored fields (recorded by a version of the store that did not keep them): provenance_nodes cannot list it'
    end
    return nil
  end
  local d = unpack1(raw, 8)
  if d and type(d[1]) == 'number' and d[1] >= 1 and d[1] % 1 == 0
      and (d[2] == 1 or d[2] == 2) and type(d[3]) == 'string' and type(d[4]) == 'string' and type(d[5]) == 'string'
      and strings(d[6]) and strings(d[7]) and type(d[8]) == 'string' and #d[8] <= maxArgs
      and (d[2] == 2 or (d[3] == '' and d[8] == '')) then
    return d
  end
  return nil, 'the fields of node ' .. id .. ' hold something else'
end
local function node(id)
  local rec = redis.call('HGET', H, 'n:' .. id)
  if not rec then return nil end
  local k = string.sub(rec, 1, 1)
  if (k == 's' and (string.sub(rec, 2) == '0' or count(string.sub(rec, 2)))) or k == 'o' then return rec end
  return nil, 'node ' .. id .. ' holds something else'
end
local function open(id, rec)
  local n = unpack1(string.sub(rec, 2), 6)
  if n and (n[1] == 1 or n[1] == 2) and type(n[2]) == 'string' and type(n[3]) == 'string'
      and type(n[4]) == 'string' and strings(n[5]) and strings(n[6]) then
    return n
  end
  return nil, 'node ' .. id .. ' holds something else'
end
local function summary(sid)
  local raw = redis.call('HGET', H, 's:' .. sid)
  if not raw then return nil, 'summary ' .. sid .. ' is missing' end
  local s = unpack1(raw, 4)
  if s and strings(s[1]) and strings(s[2]) and strings(s[3]) and strings(s[4]) then return s end
  return nil, 'summary ' .. sid .. ' holds something else'
end
`

// recordScript: ARGV[7] node limit, ARGV[8] byte limit, ARGV[9] distinct
// string limit (runtime.Limits), ARGV[10] summary size limit (bytes,
// negative: none), ARGV[11] the step budget, ARGV[12] the node's size
// (runtime.NodeSize), ARGV[13..19] id, kind (1 message, 2 tool result),
// tool, origin, trust tier, the JSON of its arguments (runtime.NodeArgsJSON:
// empty for a message or none), label count; then the labels, then the
// parents. Answers ok with 'recorded', or with 'refused', reason[, parent]
// (reason: args, limit, bytes, strings, duplicate, parent: checked in this
// order, MemStore's; args, which the client checks first, only defends
// the server's bound), having written nothing.
//
// A node is stored as "s<summary>" when the facts of its whole ancestry
// fit a summary (see the package doc), else as "o" followed by its own
// facts and parents, msgpack-encoded. Merging the parents' summaries costs
// steps: a node whose merge would exceed the budget is stored open. The
// session counts the NodeSize of its nodes (bytes) and the distinct
// strings of its graph (strings, with a field v:S for each), as MemStore
// does, so that both refuse the same nodes.
//
// Beside it, d:ID keeps what provenance_nodes lists of the node (spec
// 5.11), msgpack-encoded: {seq, kind, tool, origin, trust tier, labels,
// parents, args}, seq its place in recording order (the session's node
// count once it is recorded), tool and args empty for a message (as MemStore
// lists them). A scope that lists nodes walks these; the facts' walk
// never reads them, so that arguments cost a scope that does not list
// nodes nothing.
var recordScript = redis.NewScript(`#!lua
` + prelude + tokens + guard + graphLib + `
local limit, byteLimit, stringLimit = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local cap, budget, nodeSize = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local id, kind, tool, origin, tier, args = ARGV[13], tonumber(ARGV[14]), ARGV[15], ARGV[16], ARGV[17], ARGV[18]
local nl = tonumber(ARGV[19])
if #args > maxArgs or (kind ~= 2 and args ~= '') then return ok('refused', 'args') end
local nodes, sums, bytes, nstrings = 0, 0, 0, 0
if cur and cur.h then
  local meta = redis.call('HMGET', H, 'nodes', 'summaries', 'bytes', 'strings')
  local names = {'node count', 'summary count', 'byte count', 'string count'}
  for i = 1, 4 do
    if meta[i] and not count(meta[i]) then return corrupt('the session ' .. names[i] .. ' holds something else') end
  end
  nodes, sums = tonumber(meta[1] or '0'), tonumber(meta[2] or '0')
  bytes, nstrings = tonumber(meta[3] or '0'), tonumber(meta[4] or '0')
end
if nodes >= limit then return ok('refused', 'limit') end
if bytes + nodeSize > byteLimit then return ok('refused', 'bytes') end
local labels = {}
for i = 20, 19 + nl do labels[#labels + 1] = ARGV[i] end
-- The strings the graph would hold that it does not yet: a tool result's
-- tool, an origin, a trust tier (none empty), every label.
local cand, candSeen = {}, {}
local function candidate(v)
  if not candSeen[v] then
    candSeen[v] = true
    cand[#cand + 1] = v
  end
end
if kind == 2 and tool ~= '' then candidate(tool) end
if origin ~= '' then candidate(origin) end
if tier ~= '' then candidate(tier) end
for _, l in ipairs(labels) do candidate(l) end
local fresh = {}
if #cand > 0 then
  local held = {}
  if cur and cur.h then
    local vf = {}
    for i, v in ipairs(cand) do vf[i] = 'v:' .. v end
    held = redis.call('HMGET', H, unpack(vf))
  end
  for i, v in ipairs(cand) do
    if held[i] then
      if held[i] ~= '1' then return corrupt('the graph string ' .. string.format('%q', string.sub(v, 1, 40)) .. ' holds something else') end
    else
      fresh[#fresh + 1] = v
    end
  end
end
if nstrings + #fresh > stringLimit then return ok('refused', 'strings') end
local own, err = node(id)
if err then return corrupt(err) end
if own then return ok('refused', 'duplicate') end
local parents, recs = {}, {}
for i = 20 + nl, #ARGV do
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
local dtool = tool
if kind ~= 2 then dtool = '' end
local listed = cmsgpack.pack({nodes + 1, kind, dtool, origin, tier, labels, parents, args})
local set = {'n:' .. id, stored, 'd:' .. id, listed, 'nodes', string.format('%d', nodes + 1), 'bytes', string.format('%d', bytes + nodeSize)}
if #fresh > 0 then
  set[#set + 1] = 'strings'
  set[#set + 1] = string.format('%d', nstrings + #fresh)
  for _, v in ipairs(fresh) do
    set[#set + 1] = 'v:' .. v
    set[#set + 1] = '1'
  end
end
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

// scopeScript: ARGV[7] the step budget, ARGV[8] 1 to list the nodes in
// scope (provenance_nodes), ARGV[9..] the inputs. Walks the inputs and
// their ancestors with a visited set (each node, and each summary, once),
// stopping at nodes whose ancestry has a summary; every node, parent,
// summary and value costs a step, and a walk that would exceed the budget
// stops with 'budget' (the scope is then an error, never a part of it).
// Answers ok with 'scope', tools, origins, trust tiers, labels (distinct,
// unsorted: the client sorts in byte order), with 'incomplete', with
// 'unknown', input, or with 'budget'.
//
// To list the nodes, it walks every node in scope instead (summaries do
// not name the nodes they cover), from their fields (d:ID), each node
// costing a step and one for each of its labels and parents, and derives
// the facts from them: it answers ok with 'nodes', the four facts as
// above, and the nodes in the order walked, each {id, seq, kind, tool,
// origin, trust tier, labels, args} (the client puts the inputs first and
// the others in recording order, by seq).
var scopeScript = redis.NewScript(`#!lua flags=allow-oom
` + prelude + guard + graphLib + `
local budget, want = tonumber(ARGV[7]), ARGV[8] == '1'
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
if want then
  local seen, list = {}, {}
  for i = 9, #ARGV do
    local id = ARGV[i]
    if not seen[id] then
      local d, err = fields(id)
      if err then return corrupt(err) end
      if not d then return ok('unknown', id) end
      seen[id] = true
      stack[#stack + 1] = {id, d}
    end
  end
  while #stack > 0 do
    local top = stack[#stack]
    stack[#stack] = nil
    local id, d = top[1], top[2]
    steps = steps + 1 + #d[6] + #d[7]
    if steps > budget then return ok('budget') end
    if d[2] == 2 then add(1, d[3]) end
    add(2, d[4])
    add(3, d[5])
    for _, l in ipairs(d[6]) do add(4, l, true) end
    list[#list + 1] = {id, d[1], d[2], d[3], d[4], d[5], d[6], d[8]}
    for _, p in ipairs(d[7]) do
      if not seen[p] then
        seen[p] = true
        local pd, perr = fields(p)
        if perr then return corrupt(perr) end
        if not pd then return corrupt('node ' .. id .. ' has a parent that is not recorded: ' .. p) end
        stack[#stack + 1] = {p, pd}
      end
    end
  end
  return ok('nodes', out[1], out[2], out[3], out[4], list)
end
for i = 9, #ARGV do
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
-- A marker of another type than a hash is not this reset's: deleted.
local mv = redis.pcall('HMGET', M, 'g', 's')
if mv.err then mv = {false, false} end
if mv[1] ~= g then
  redis.call('DEL', H, M)
  redis.call('HSET', M, 'g', g, 's', '0', 'r', '1', 'b', string.format('%d', now))
  mv[2] = '0'
elseif not (mv[2] == '0' or count(mv[2])) then
  return corrupt('the session marker ' .. M .. ' holds something else')
end
cur = {g = g, s = mv[2], r = '1', h = mv[2] ~= '0'}
return ok()
`)
