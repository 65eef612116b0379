import type { Redis } from 'ioredis';
import { decodeJsonObject, type JsonObject } from './json.ts';
import type { RoomKey } from './names.ts';
import type { ExpiredLeave, PresenceJoin, PresenceMember } from './presence.ts';
import { HEARTBEAT, JOIN, LEAVE, LIST, SWEEP, UPDATE } from './presence-scripts.ts';
import { type PresenceEntry, PresenceStoreBase, type PresenceStoreOptions } from './presence-store-base.ts';
import { closeRedis, openRedis, pingRedis, redisConnected } from './redis-connection.ts';
import { runScript } from './redis-script.ts';

export interface RedisPresenceOptions extends PresenceStoreOptions {
  url: string;
  /** Prepended to every key, e.g. `svc:`; tests use a unique one per run. */
  prefix: string;
}

function replyArray(reply: unknown, context: string): unknown[] {
  if (!Array.isArray(reply)) throw new TypeError(`unexpected Redis reply to ${context}`);
  return reply;
}

function field(values: unknown[], index: number): string {
  const value = values[index];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new TypeError(`unexpected Redis presence field at ${index}`);
}

function memberFrom(actor: string, values: unknown[], at: number): PresenceMember {
  return {
    actor,
    joinedAt: Number(field(values, at)),
    updatedAt: Number(field(values, at + 1)),
    state: decodeJsonObject(field(values, at + 2)),
    connections: Number(field(values, at + 3)),
  };
}

/**
 * Presence in Redis, shared by all instances. Time stamps come from the injected clock; liveness is a
 * Redis key with a real-time expiry (PX), so `ttlMs` is real milliseconds here.
 */
export class RedisPresence extends PresenceStoreBase {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(options: RedisPresenceOptions) {
    super(options);
    this.prefix = options.prefix;
    this.redis = openRedis(options.url, `${options.instanceId}:presence`, this.report);
  }

  protected async add({ room, actor, connectionId, state }: PresenceEntry): Promise<PresenceJoin> {
    const reply = replyArray(
      await runScript(this.redis, JOIN, [
        this.prefix,
        this.instanceId,
        this.timings.aliveForMs,
        room,
        actor,
        connectionId,
        this.nowMs(),
        state === undefined ? '' : JSON.stringify(state),
      ]),
      'presence join',
    );
    this.noteRegistration(field(reply, 0) === '1');
    return { joined: field(reply, 1) === '1', member: memberFrom(actor, reply, 2) };
  }

  async leave(room: RoomKey, actor: string, connectionId: string): Promise<boolean> {
    const reply = await runScript(this.redis, LEAVE, [this.prefix, room, actor, connectionId]);
    return reply === 1;
  }

  async update(room: RoomKey, actor: string, state: JsonObject): Promise<PresenceMember | undefined> {
    const args = [this.prefix, room, actor, this.nowMs(), JSON.stringify(state)];
    const reply = await runScript(this.redis, UPDATE, args);
    if (reply === null) return undefined;
    return memberFrom(actor, replyArray(reply, 'presence update'), 0);
  }

  protected async members(room: RoomKey): Promise<PresenceMember[]> {
    const reply = replyArray(await runScript(this.redis, LIST, [this.prefix, room]), 'presence list');
    const members: PresenceMember[] = [];
    for (let at = 0; at + 4 < reply.length; at += 5)
      members.push(memberFrom(field(reply, at), reply, at + 1));
    return members;
  }

  async heartbeat(): Promise<void> {
    const reply = await runScript(this.redis, HEARTBEAT, [
      this.prefix,
      this.instanceId,
      this.timings.aliveForMs,
    ]);
    this.noteRegistration(reply === 1);
  }

  protected async expire(): Promise<ExpiredLeave[]> {
    const reply = replyArray(await runScript(this.redis, SWEEP, [this.prefix]), 'presence sweep');
    const leaves: ExpiredLeave[] = [];
    for (let at = 0; at + 2 < reply.length; at += 3) {
      leaves.push({
        room: field(reply, at) as RoomKey,
        actor: field(reply, at + 1),
        instanceId: field(reply, at + 2),
      });
    }
    return leaves;
  }

  /** The connection answers (readiness). */
  ping(): Promise<void> {
    return pingRedis(this.redis);
  }

  /** The connection is up now. */
  connected(): boolean {
    return redisConnected(this.redis);
  }

  protected override async release(): Promise<void> {
    await closeRedis(this.redis);
  }

  /** Whole milliseconds: the scripts store time stamps as digit strings. */
  private nowMs(): number {
    return Math.floor(this.clock.now());
  }
}
