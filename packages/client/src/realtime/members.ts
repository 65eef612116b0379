import type { Actor, Member } from './types.js';

export type PresenceChange =
  | { type: 'sync'; members: Member[] }
  | { type: 'join' | 'update'; member: Member; members: Member[] }
  | { type: 'leave'; actor: Actor; members: Member[] };

/** A room's members as the server announced them: the `joined` list, then `presence.*` frames. */
export class Members {
  private readonly byActor = new Map<string, Member>();

  list(): Member[] {
    return [...this.byActor.values()];
  }

  replace(members: readonly Member[]): PresenceChange {
    this.byActor.clear();
    for (const member of members) this.byActor.set(member.actor.id, member);
    return { type: 'sync', members: this.list() };
  }

  /** A `presence.join` for a member already listed replaces it (docs/realtime.md). */
  upsert(type: 'join' | 'update', member: Member): PresenceChange {
    this.byActor.set(member.actor.id, member);
    return { type, member, members: this.list() };
  }

  remove(actor: Actor): PresenceChange {
    this.byActor.delete(actor.id);
    return { type: 'leave', actor, members: this.list() };
  }
}
