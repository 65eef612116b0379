import type { JsonObject } from './json.ts';
import { MemoryPresenceHub } from './memory-presence-hub.ts';
import type { RoomKey } from './names.ts';
import type { ExpiredLeave, PresenceJoin, PresenceMember } from './presence.ts';
import { type PresenceEntry, PresenceStoreBase, type PresenceStoreOptions } from './presence-store-base.ts';

export interface MemoryPresenceOptions extends PresenceStoreOptions {
  hub?: MemoryPresenceHub;
}

/** Presence in process memory: the embedded deployment, and the reference the Redis store must match. */
export class MemoryPresence extends PresenceStoreBase {
  private readonly hub: MemoryPresenceHub;

  constructor(options: MemoryPresenceOptions) {
    super(options);
    this.hub = options.hub ?? new MemoryPresenceHub();
  }

  protected async add({ room, actor, connectionId, state }: PresenceEntry): Promise<PresenceJoin> {
    this.beat();
    return this.hub.join(room, actor, connectionId, this.instanceId, state, this.clock.now());
  }

  async leave(room: RoomKey, actor: string, connectionId: string): Promise<boolean> {
    return this.hub.leave(room, actor, connectionId);
  }

  async update(room: RoomKey, actor: string, state: JsonObject): Promise<PresenceMember | undefined> {
    return this.hub.update(room, actor, state, this.clock.now());
  }

  protected async members(room: RoomKey): Promise<PresenceMember[]> {
    return this.hub.list(room);
  }

  async heartbeat(): Promise<void> {
    this.beat();
  }

  protected async expire(): Promise<ExpiredLeave[]> {
    return this.hub.sweep(this.clock.now(), this.timings.aliveForMs);
  }

  private beat(): void {
    this.noteRegistration(this.hub.beat(this.instanceId, this.clock.now()));
  }
}
