import type { Actor, Member, PresenceFrame } from './types.js';

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

  /**
   * A `presence.*` frame applied: its changes, in order. A diff names each actor once (docs/realtime.md),
   * so applying its lists in any order gives the members the single frames would have; its leaves come
   * first, then its joins and updates.
   */
  apply(frame: PresenceFrame): PresenceChange[] {
    switch (frame.type) {
      case 'presence.join':
      case 'presence.update':
        return [this.upsert(frame.type === 'presence.join' ? 'join' : 'update', frame.member)];
      case 'presence.leave':
        return [this.remove(frame.actor)];
      case 'presence.diff':
        return [
          ...frame.leaves.map((actor) => this.remove(actor)),
          ...frame.joins.map((member) => this.upsert('join', member)),
          ...frame.updates.map((member) => this.upsert('update', member)),
        ];
    }
  }

  remove(actor: Actor): PresenceChange {
    this.byActor.delete(actor.id);
    return { type: 'leave', actor, members: this.list() };
  }
}
