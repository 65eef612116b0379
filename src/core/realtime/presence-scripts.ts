/**
 * Presence on Redis as Lua scripts: each runs atomically, so a join, a leave and a sweep never see each
 * other half-done, and two instances sweeping at once cannot both remove (and announce) the same member.
 *
 * Layout under the prefix P (room keys carry a hash tag so a room's keys share a slot):
 *   P presence:{<room>}:members          hash  actor -> "<joinedAt>:<updatedAt>:<state JSON>"
 *   P presence:{<room>}:conns:<actor>    hash  connection id -> instance id
 *   P presence:instance:<id>:alive       string with PX expiry, refreshed by heartbeats and joins
 *   P presence:instance:<id>:conns       set   cjson [room, actor, connection id] of that instance
 *   P presence:instances                 set   instance ids that may hold connections
 *
 * Keys are derived inside the scripts from ARGV[1] (the prefix) so their names live in one place. That is
 * fine on one Redis server; Redis Cluster would need per-room scripts with declared keys.
 * The state JSON is kept opaque: Lua's cjson would turn [] into {} and round long numbers.
 */
const PRELUDE = `
local P = ARGV[1]
local function members_key(room) return P .. 'presence:{' .. room .. '}:members' end
local function conns_key(room, actor) return P .. 'presence:{' .. room .. '}:conns:' .. actor end
local function alive_key(id) return P .. 'presence:instance:' .. id .. ':alive' end
local function index_key(id) return P .. 'presence:instance:' .. id .. ':conns' end
local instances_key = P .. 'presence:instances'
local function split_member(raw)
  local joined_at, updated_at, state = string.match(raw, '^(%d+):(%d+):(.*)$')
  return joined_at, updated_at, state
end
`;

/** ARGV: prefix, instance id, alive ms. Returns 1 when the instance was not registered. */
export const HEARTBEAT = `${PRELUDE}
redis.call('SET', alive_key(ARGV[2]), '1', 'PX', ARGV[3])
return redis.call('SADD', instances_key, ARGV[2])
`;

/**
 * ARGV: prefix, instance id, alive ms, room, actor, connection id, now, state JSON or ''.
 * Returns {newly registered, joined, joinedAt, updatedAt, state JSON, connections}.
 */
export const JOIN = `${PRELUDE}
local id, room, actor, conn, now, state = ARGV[2], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
redis.call('SET', alive_key(id), '1', 'PX', ARGV[3])
local newly_registered = redis.call('SADD', instances_key, id)
local conns = conns_key(room, actor)
local previous_holder = redis.call('HGET', conns, conn)
if previous_holder and previous_holder ~= id then
  redis.call('SREM', index_key(previous_holder), cjson.encode({room, actor, conn}))
end
redis.call('HSET', conns, conn, id)
redis.call('SADD', index_key(id), cjson.encode({room, actor, conn}))
local raw = redis.call('HGET', members_key(room), actor)
local joined, joined_at, updated_at, current = 0, now, now, state
if raw then
  joined_at, updated_at, current = split_member(raw)
  if state ~= '' then updated_at, current = now, state end
else
  joined = 1
  if current == '' then current = '{}' end
end
redis.call('HSET', members_key(room), actor, joined_at .. ':' .. updated_at .. ':' .. current)
return {newly_registered, joined, joined_at, updated_at, current, redis.call('HLEN', conns)}
`;

/** ARGV: prefix, room, actor, connection id. Returns 1 when that was the actor's last connection. */
export const LEAVE = `${PRELUDE}
local room, actor, conn = ARGV[2], ARGV[3], ARGV[4]
local conns = conns_key(room, actor)
local holder = redis.call('HGET', conns, conn)
if not holder then return 0 end
redis.call('HDEL', conns, conn)
redis.call('SREM', index_key(holder), cjson.encode({room, actor, conn}))
if redis.call('HLEN', conns) > 0 then return 0 end
return redis.call('HDEL', members_key(room), actor)
`;

/** ARGV: prefix, room, actor, now, state JSON. Returns {joinedAt, updatedAt, state, connections} or nil. */
export const UPDATE = `${PRELUDE}
local room, actor, now, state = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local raw = redis.call('HGET', members_key(room), actor)
if not raw then return false end
local joined_at = split_member(raw)
redis.call('HSET', members_key(room), actor, joined_at .. ':' .. now .. ':' .. state)
return {joined_at, now, state, redis.call('HLEN', conns_key(room, actor))}
`;

/** ARGV: prefix, room. Returns flat {actor, joinedAt, updatedAt, state, connections, ...}. */
export const LIST = `${PRELUDE}
local room = ARGV[2]
local out = {}
local fields = redis.call('HGETALL', members_key(room))
for i = 1, #fields, 2 do
  local actor = fields[i]
  local joined_at, updated_at, state = split_member(fields[i + 1])
  for _, value in ipairs({actor, joined_at, updated_at, state, redis.call('HLEN', conns_key(room, actor))}) do
    table.insert(out, value)
  end
end
return out
`;

/**
 * ARGV: prefix. Removes the connections of every registered instance whose alive key has expired.
 * Returns flat {room, actor, instance id, ...} for each member that thereby lost its last connection.
 */
export const SWEEP = `${PRELUDE}
local leaves = {}
for _, id in ipairs(redis.call('SMEMBERS', instances_key)) do
  if redis.call('EXISTS', alive_key(id)) == 0 then
    for _, entry in ipairs(redis.call('SMEMBERS', index_key(id))) do
      local parts = cjson.decode(entry)
      local room, actor, conn = parts[1], parts[2], parts[3]
      local conns = conns_key(room, actor)
      if redis.call('HGET', conns, conn) == id then
        redis.call('HDEL', conns, conn)
        if redis.call('HLEN', conns) == 0 and redis.call('HDEL', members_key(room), actor) == 1 then
          table.insert(leaves, room)
          table.insert(leaves, actor)
          table.insert(leaves, id)
        end
      end
    end
    redis.call('DEL', index_key(id))
    redis.call('SREM', instances_key, id)
  end
end
return leaves
`;
