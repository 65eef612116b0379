import type { Redis } from 'ioredis';
import { type Clock, systemClock } from '../clock.ts';
import { decodeJsonObject, type JsonObject } from './json.ts';
import { type ErrorReporter, ignoreErrors, ListenerSet } from './listeners.ts';
import type { RoomKey } from './names.ts';
import {
  checkPresenceIds,
  compareMembers,
  DEFAULT_PRESENCE_TTL_MS,
  type ExpiredLeave,
  type PresenceJoin,
  type PresenceMember,
  type PresenceStore,
  presenceTimings,
} from './presence.ts';
import { HEARTBEAT, JOIN, LEAVE, LIST, SWEEP, UPDATE } from './presence-scripts.ts';
import { closeRedis, openRedis, pingRedis, redisConnected } from './redis-connection.ts';
import { runScript } from './redis-script.ts';
import { repeat } from './repeat.ts';

export interface RedisPresenceOptions {
  url: string;
  /** Prepended to every key, e.g. `svc:`; tests use a unique one per run. */
  prefix: string;
  instanceId: string;
  clock?: Clock;
  ttlMs?: number;
  report?: ErrorReporter;
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
export class RedisPresence implements PresenceStore {
  readonly instanceId: string;
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly timings: ReturnType<typeof presenceTimings>;
  private readonly report: ErrorReporter;
  private readonly expiredLeaves: ListenerSet<[ExpiredLeave]>;
  private readonly evictions: ListenerSet<[]>;
  private stopLoops: (() => void)[] = [];
  private registered = false;

  constructor(options: RedisPresenceOptions) {
    this.instanceId = options.instanceId;
    this.prefix = options.prefix;
    this.clock = options.clock ?? systemClock;
    this.timings = presenceTimings(options.ttlMs ?? DEFAULT_PRESENCE_TTL_MS);
    this.report = options.report ?? ignoreErrors;
    this.expiredLeaves = new ListenerSet(this.report, 'presence expired-leave listener');
    this.evictions = new ListenerSet(this.report, 'presence eviction listener');
    this.redis = openRedis(options.url, `${options.instanceId}:presence`, this.report);
  }

  async join(room: RoomKey, actor: string, connectionId: string, state?: JsonObject): Promise<PresenceJoin> {
    checkPresenceIds(actor, connectionId);
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

  async list(room: RoomKey): Promise<PresenceMember[]> {
    const reply = replyArray(await runScript(this.redis, LIST, [this.prefix, room]), 'presence list');
    const members: PresenceMember[] = [];
    for (let at = 0; at + 4 < reply.length; at += 5)
      members.push(memberFrom(field(reply, at), reply, at + 1));
    return members.sort(compareMembers);
  }

  async heartbeat(): Promise<void> {
    const reply = await runScript(this.redis, HEARTBEAT, [
      this.prefix,
      this.instanceId,
      this.timings.aliveForMs,
    ]);
    this.noteRegistration(reply === 1);
  }

  async sweep(): Promise<ExpiredLeave[]> {
    const reply = replyArray(await runScript(this.redis, SWEEP, [this.prefix]), 'presence sweep');
    const leaves: ExpiredLeave[] = [];
    for (let at = 0; at + 2 < reply.length; at += 3) {
      leaves.push({
        room: field(reply, at) as RoomKey,
        actor: field(reply, at + 1),
        instanceId: field(reply, at + 2),
      });
    }
    for (const leave of leaves) this.expiredLeaves.emit(leave);
    return leaves;
  }

  start(): void {
    if (this.stopLoops.length > 0) return;
    this.heartbeat().catch((error: unknown) => this.report(error, 'presence heartbeat'));
    this.stopLoops = [
      repeat(this.clock, this.timings.beatEveryMs, () => this.heartbeat(), this.report, 'presence heartbeat'),
      repeat(this.clock, this.timings.sweepEveryMs, () => this.sweep(), this.report, 'presence sweep'),
    ];
  }

  /** The connection answers (readiness). */
  ping(): Promise<void> {
    return pingRedis(this.redis);
  }

  /** The connection is up now. */
  connected(): boolean {
    return redisConnected(this.redis);
  }

  onExpiredLeave(listener: (leave: ExpiredLeave) => unknown): () => void {
    return this.expiredLeaves.add(listener);
  }

  onEvicted(listener: () => unknown): () => void {
    return this.evictions.add(listener);
  }

  async close(): Promise<void> {
    for (const stop of this.stopLoops) stop();
    this.stopLoops = [];
    this.expiredLeaves.clear();
    this.evictions.clear();
    await closeRedis(this.redis);
  }

  /** Whole milliseconds: the scripts store time stamps as digit strings. */
  private nowMs(): number {
    return Math.floor(this.clock.now());
  }

  private noteRegistration(newlyRegistered: boolean): void {
    if (newlyRegistered && this.registered) this.evictions.emit();
    this.registered = true;
  }
}
