import type { InstalledHooks } from '../../core/modules/hooks.ts';
import type { ModuleRoom, RealtimeHooks, RealtimeHost } from '../../core/realtime/contributions.ts';
import {
  type ErrorReporter,
  type JsonObject,
  type PubSub,
  roomChannel,
  type Unsubscribe,
} from '../../core/realtime/index.ts';
import type { FanOutPacer } from './fan-out-pacer.ts';
import { fanOutSpan } from './fan-out-span.ts';
import { encode, type RoomEventView } from './frames.ts';
import type { RoomMembership } from './membership.ts';

/** The modules' realtime hooks as every room of the gateway needs them. */
export interface RoomModules {
  /** Each module that handles room messages, with the kinds it handles. */
  handlers: readonly { module: string; hooks: RealtimeHooks }[];
  /** The module an event type belongs to (undefined for platform and app events). */
  moduleOfEvent(type: string): string | undefined;
  /** Event types after which a room starts over (it was deleted). */
  resetEvents: ReadonlySet<string>;
}

/** The room parts of the installed modules' hooks; `moduleOfEvent` is the registry's. */
export function roomModulesOf(
  modules: readonly InstalledHooks[],
  moduleOfEvent: (type: string) => string | undefined,
): RoomModules {
  const handlers = modules.flatMap(({ module, hooks }) =>
    hooks.realtime === undefined ? [] : [{ module, hooks: hooks.realtime }],
  );
  return {
    handlers,
    moduleOfEvent,
    resetEvents: new Set(handlers.flatMap(({ hooks }) => hooks.roomResetEvents ?? [])),
  };
}

export interface LocalRoomDeps {
  host: RealtimeHost;
  pubsub: PubSub;
  modules: RoomModules;
  report: ErrorReporter;
  /** Shared by the instance's rooms: how many deliveries one turn of the event loop makes. */
  pacer: FanOutPacer;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A room as one instance sees it: the one backplane subscription its local sockets share, and the fan-out
 * of each channel message to them. `event` messages are the gateway's; every other kind goes to the module
 * that publishes it, which encodes its frame once and filters by what each token may receive.
 */
export class LocalRoom {
  readonly members = new Set<RoomMembership>();
  private readonly byKind = new Map<string, ModuleRoom>();
  private readonly parts: ModuleRoom[] = [];
  private unsubscribe: Unsubscribe | undefined;
  private closed = false;
  /** Messages received while the instance's fan-out budget of the turn was spent, in channel order. */
  private readonly waiting: JsonObject[] = [];
  private draining = false;

  constructor(
    readonly tenantId: string,
    readonly roomId: string,
    private readonly deps: LocalRoomDeps,
  ) {
    for (const { hooks } of deps.modules.handlers) {
      const part = hooks.room?.(deps.host, this);
      if (part === undefined) continue;
      this.parts.push(part);
      for (const kind of hooks.roomMessages ?? []) this.byKind.set(kind, part);
    }
  }

  /** Subscribes, then each module learns where the room stands: what comes after is delivered in order. */
  async open(): Promise<void> {
    const unsubscribe = await this.deps.pubsub.subscribe(roomChannel(this.tenantId, this.roomId), (payload) =>
      this.receive(payload),
    );
    if (this.closed) {
      unsubscribe();
      return;
    }
    this.unsubscribe = unsubscribe;
    await Promise.all(this.parts.map((part) => part.open?.()));
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.unsubscribe?.();
    for (const part of this.parts) part.close?.();
  }

  catchUp(): void {
    for (const part of this.parts) part.catchUp?.();
  }

  /** In channel order; now if this turn's fan-out budget allows, else in a later turn (FanOutPacer). */
  private receive(payload: JsonObject): void {
    if (this.waiting.length === 0 && this.deps.pacer.take(this.cost(payload))) {
      this.dispatch(payload);
      return;
    }
    this.waiting.push(payload);
    this.drainLater();
  }

  private drainLater(): void {
    if (this.draining) return;
    this.draining = true;
    this.deps.pacer.later(() => {
      this.draining = false;
      for (let next = this.waiting[0]; !this.closed && next !== undefined; next = this.waiting[0]) {
        if (!this.deps.pacer.take(this.cost(next))) break;
        this.waiting.shift();
        this.dispatch(next);
      }
      if (!this.closed && this.waiting.length > 0) this.drainLater();
    });
  }

  /** What one message costs: its deliveries (by default one per member here), and at least its handling. */
  private cost(payload: JsonObject): number {
    const kind = payload.k;
    const deliveries = typeof kind === 'string' ? this.byKind.get(kind)?.deliveries?.(kind) : undefined;
    return Math.max(1, deliveries ?? this.members.size);
  }

  private dispatch(payload: JsonObject): void {
    const kind = payload.k;
    if (kind === 'event') {
      this.relayEvent(payload.event, payload.trace);
      return;
    }
    const part = typeof kind === 'string' ? this.byKind.get(kind) : undefined;
    if (typeof kind !== 'string' || part === undefined) {
      this.deps.report(new Error('unreadable room message'), `realtime room ${this.roomId}`);
      return;
    }
    part.receive(kind, payload);
  }

  /** A tenant event about the room: to every member whose token has the event's module. */
  private relayEvent(value: unknown, trace: unknown): void {
    if (!isObject(value) || typeof value.type !== 'string' || typeof value.id !== 'string') {
      this.deps.report(new Error('unreadable room event'), `realtime room ${this.roomId}`);
      return;
    }
    const event: RoomEventView = {
      id: value.id,
      type: value.type,
      data: isObject(value.data) ? value.data : {},
      createdAt: typeof value.createdAt === 'string' ? value.createdAt : '',
    };
    const module = this.deps.modules.moduleOfEvent(event.type);
    const frame = encode({ type: 'event', room: this.roomId, event });
    const span = fanOutSpan(trace, this.roomId, this.members.size);
    for (const m of this.members) {
      if (module === undefined || m.connection.modules.has(module)) m.deliver(frame);
    }
    span?.end();
    if (this.deps.modules.resetEvents.has(event.type)) this.reset();
  }

  /** The room is gone with everything in it; one created again under its id starts over. */
  private reset(): void {
    for (const part of this.parts) part.reset?.();
  }
}
