"""The Lua script that makes every admission decision of the shared limiter, on the Redis server.

Why a script of our own rather than ``pyrate-limiter``'s Redis bucket: that bucket stamps each item
with the *client's* clock and checks one rate per call, so two hosts whose clocks differ by two
seconds see two different windows and together admit more than the limit, and requests and tokens
would be two round trips that can interleave between workers. Here one ``EVALSHA`` does the whole
decision -- pause key, request window, token window, pacing buckets -- atomically, with the time
read on the server (``TIME``), so worker clocks never enter it.

Data, per API key hash and model (all in one Redis Cluster hash slot, by the ``{...}`` tag):

* ``...:req`` and ``...:tok``: sorted sets of admissions scored by server time, each member ending in
  ``:<units>``; ``...:state`` keeps their running sums (``rsum``, ``tsum``), everything ever added to
  them (``radd``, ``tadd``: a sum less its total is what has left the window) and the two pacing buckets
  (level and stamp); expired members are subtracted as they are pruned;
* ``...:pause``: the server time until which nobody may send (a 429's ``Retry-After``).

The rules mirror :class:`holyclient.ratelimit._window.RateLimiter`: at most ``limit`` units in any
window (counted a little longer than the server's window), spread by a token bucket holding
``burst`` seconds' worth of units.

Operations (``ARGV[1]``): ``acquire`` -> ``{1, now, requests left, tokens left}`` admitted (what had
left the window by then, for ``sync``) or ``{0, seconds to wait}``; ``correct`` adds tokens to an
admission still in the window; ``sync`` adds phantom usage so the remaining budget is no larger than a
server's ``x-ratelimit-remaining-*`` header; ``charge`` adds requests and tokens admitted elsewhere (a
worker's local fallback while Redis was unreachable), ``ARGV[9]`` seconds ago; ``pause`` extends the
shared pause. Numbers go back as strings: Redis truncates Lua numbers to integers.

Why ``sync`` compares the header with the budget *as it stood when the answered request was admitted*
(``ARGV[9]``/``ARGV[10]``: what had left the window then) plus everything added since, not with the
budget now: the server counted the header when the request arrived, and the answer is read a latency
later. Meanwhile the window here may have dropped admissions the server still counted then; compared
with the budget now, they looked like usage someone else had spent, and were added again as phantom
usage stamped now -- held a whole window, though the server had let them go. Every answer re-dated the
admissions at the window's trailing edge, and a fleet whose answers take longer than the window's
margin (any chat model, or a busy host) used a fraction of its limit. Compared this way, a
phantom is only usage this budget never admitted: another application on the same key.
"""

from __future__ import annotations

WINDOW_MARGIN = 0.01
WINDOW_SLACK_SECONDS = 0.1

SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local op = ARGV[1]
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local burst = tonumber(ARGV[5])
local units = tonumber(ARGV[6])
local id = ARGV[7]
local arg8 = tonumber(ARGV[8])
local REQ, TOK, STATE, PAUSE = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local horizon = now - window * (1 + __MARGIN__) - __SLACK__
local ttl = math.ceil(window * 2 + 10) * 1000

local function prune(key, field)
  local old = redis.call('ZRANGEBYSCORE', key, '-inf', horizon)
  if #old > 0 then
    local gone = 0
    for _, m in ipairs(old) do gone = gone + tonumber(string.match(m, ':([^:]+)$')) end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', horizon)
    redis.call('HINCRBYFLOAT', STATE, field, -gone)
  end
  return math.max(0, tonumber(redis.call('HGET', STATE, field)) or 0)
end

local function window_wait(key, sum, limit, need)
  local excess = sum + math.min(need, limit) - limit
  if excess <= 1e-9 then return 0 end
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #members, 2 do
    excess = excess - tonumber(string.match(members[i], ':([^:]+)$'))
    if excess <= 1e-9 then return tonumber(members[i + 1]) - horizon end
  end
  return window
end

local function level(name, limit)
  local rate = limit / window
  local cap = math.max(1, rate * burst)
  local v = redis.call('HMGET', STATE, name, name .. 's')
  local lvl = tonumber(v[1]) or cap
  local stamp = tonumber(v[2]) or now
  return math.min(cap, lvl + math.max(0, now - stamp) * rate), rate, cap
end

local function exact(x)
  return string.format('%.17g', x)
end

-- adds to a window's sum and to everything ever added to it; returns the new total added
local function add(sum, total, units)
  redis.call('HINCRBYFLOAT', STATE, sum, units)
  return tonumber(redis.call('HINCRBYFLOAT', STATE, total, units))
end

local function touch()
  redis.call('PEXPIRE', REQ, ttl)
  redis.call('PEXPIRE', TOK, ttl)
  redis.call('PEXPIRE', STATE, ttl)
end

if op == 'pause' then
  local untl = now + units
  local current = tonumber(redis.call('GET', PAUSE))
  if not current or current < untl then
    redis.call('SET', PAUSE, tostring(untl), 'PX', math.ceil(units * 1000) + 1000)
  end
  return {1, tostring(untl)}
end

local rsum = prune(REQ, 'rsum')
local tsum = prune(TOK, 'tsum')

if op == 'acquire' then
  local wait = 0
  local paused = tonumber(redis.call('GET', PAUSE))
  if paused and paused > now then wait = paused - now end
  local rl, rr, rc, tl, tr, tc
  if rpm > 0 then
    rl, rr, rc = level('rl', rpm)
    wait = math.max(wait, (math.min(1, rc) - rl) / rr, window_wait(REQ, rsum, rpm, 1))
  end
  if tpm > 0 then
    tl, tr, tc = level('tl', tpm)
    wait = math.max(wait, (math.min(units, tc) - tl) / tr, window_wait(TOK, tsum, tpm, units))
  end
  if wait > 0 then return {0, tostring(wait)} end
  local rleft, tleft = '', ''
  if rpm > 0 then
    redis.call('ZADD', REQ, now, id .. ':1')
    rleft = exact(add('rsum', 'radd', 1) - rsum - 1)
    redis.call('HSET', STATE, 'rl', tostring(rl - math.min(1, rc)), 'rls', tostring(now))
  end
  if tpm > 0 then
    redis.call('ZADD', TOK, now, id .. ':' .. units)
    tleft = exact(add('tsum', 'tadd', units) - tsum - units)
    redis.call('HSET', STATE, 'tl', tostring(tl - math.min(units, tc)), 'tls', tostring(now))
  end
  touch()
  return {1, tostring(now), rleft, tleft}
end

if op == 'correct' then
  if tpm > 0 and arg8 > horizon and units > 0 then
    redis.call('ZADD', TOK, arg8, id .. ':c:' .. units)
    add('tsum', 'tadd', units)
    local tl = level('tl', tpm)
    redis.call('HSET', STATE, 'tl', tostring(tl - units), 'tls', tostring(now))
    touch()
  end
  return {1, tostring(now)}
end

if op == 'charge' then
  -- units: requests admitted by a local fallback; arg8: their tokens; ARGV[9]: seconds since then
  local at = now - math.max(0, tonumber(ARGV[9]) or 0)
  if at > horizon then
    if rpm > 0 and units > 0 then
      redis.call('ZADD', REQ, at, 'fb:' .. id .. ':' .. units)
      add('rsum', 'radd', units)
    end
    if tpm > 0 and arg8 > 0 then
      redis.call('ZADD', TOK, at, 'fb:' .. id .. ':' .. arg8)
      add('tsum', 'tadd', arg8)
    end
    touch()
  end
  return {1, tostring(now)}
end

if op == 'sync' then
  -- units: remaining requests by the server (-1: unknown); arg8: remaining tokens (-1: unknown);
  -- ARGV[9], ARGV[10]: requests and tokens that had left the window when the answered request was
  -- admitted (absent: unknown). What the server counted then is at most what was in the window then
  -- plus all added since: the total added less what had left; never below the window now.
  local function counted(sum, total, left)
    left = tonumber(left)
    if not left then return sum end
    return math.max(sum, (tonumber(redis.call('HGET', STATE, total)) or 0) - left)
  end
  if rpm > 0 and units >= 0 then
    local missing = rpm - counted(rsum, 'radd', ARGV[9]) - units
    if missing > 0 then
      redis.call('ZADD', REQ, now, 'sync:' .. id .. ':' .. missing)
      add('rsum', 'radd', missing)
    end
  end
  if tpm > 0 and arg8 >= 0 then
    local missing = tpm - counted(tsum, 'tadd', ARGV[10]) - arg8
    if missing > 0 then
      redis.call('ZADD', TOK, now, 'sync:' .. id .. ':' .. missing)
      add('tsum', 'tadd', missing)
    end
  end
  touch()
  return {1, tostring(now)}
end
return redis.error_reply('holyclient limiter: unknown operation ' .. tostring(op))
""".replace("__MARGIN__", repr(WINDOW_MARGIN)).replace("__SLACK__", repr(WINDOW_SLACK_SECONDS))
