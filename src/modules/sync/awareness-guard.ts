import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import type { AwarenessEntry } from './protocol.ts';

/** Who holds an awareness client id: a connection of this instance, or (by credential) one elsewhere. */
interface Owner {
  /** The local connection, when it is one of this instance's. */
  connection?: OwningConnection;
  /** `holderOf` the connection's principal: a reconnecting client may take its own ids back. */
  holder: string;
}

/** What the guard needs of a connection (SyncConnection in the hub). */
export interface OwningConnection {
  readonly holder: string;
  readonly awarenessIds: Set<number>;
}

export interface AwarenessRefusal {
  code: number;
  reason: string;
}

type GuardLimits = Pick<
  SyncLimits,
  'maxAwarenessStateBytes' | 'maxAwarenessDepth' | 'maxAwarenessClientsPerConnection'
>;

/**
 * Nesting depth of a JSON text (objects and arrays), counted without parsing it: a state thousands of levels
 * deep is refused before anything recurses into it.
 */
export function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** What a client's awareness update may do: the states it may apply, or why it is closed. */
export type AwarenessVerdict = { apply: AwarenessEntry[] } | { refuse: AwarenessRefusal };

/**
 * The awareness client ids of one document and who introduced each. A connection may set or remove only the
 * ids it introduced; the stock provider also sends back every state it received (with the clock it came
 * with), so another client's state in an update is dropped, not a fault. An id changes hands only to a
 * newer state from the same credential's actor (a client reconnecting before its old socket was noticed
 * gone keeps its id). The states a connection applies are bounded in size, depth and number.
 */
export class AwarenessOwners {
  private readonly owners = new Map<number, Owner>();

  constructor(private readonly limits: GuardLimits) {}

  /**
   * Sorts the entries of a connection's update: the ones it may apply (their ids are then its own) and the
   * ones dropped. `clockOf` is the document's last clock of an id (undefined for an id never seen).
   */
  claim(
    connection: OwningConnection,
    entries: readonly AwarenessEntry[],
    clockOf: (clientId: number) => number | undefined,
  ): AwarenessVerdict {
    const { limits } = this;
    const apply: AwarenessEntry[] = [];
    const introduced = new Set<number>();
    for (const entry of entries) {
      const owner = this.owners.get(entry.clientId);
      const known = clockOf(entry.clientId);
      const newer = known === undefined || entry.clock > known;
      if (owner?.connection !== connection) {
        // Someone else's state (echoed, or spoofed), or a stale copy of a gone one: dropped.
        if (!newer || (owner !== undefined && owner.holder !== connection.holder)) continue;
        introduced.add(entry.clientId);
      }
      const refusal = this.oversized(entry.json);
      if (refusal !== undefined) return { refuse: refusal };
      apply.push(entry);
    }
    const held = [...this.owners.values()].filter((o) => o.connection === connection).length;
    if (held + introduced.size > limits.maxAwarenessClientsPerConnection) {
      return {
        refuse: {
          code: SYNC_CLOSE.documentTooLarge,
          reason: `a connection may introduce at most ${limits.maxAwarenessClientsPerConnection} awareness client ids`,
        },
      };
    }
    for (const clientId of introduced) this.take(clientId, { connection, holder: connection.holder });
    return { apply };
  }

  private oversized(json: string): AwarenessRefusal | undefined {
    const { limits } = this;
    if (Buffer.byteLength(json) > limits.maxAwarenessStateBytes) {
      return {
        code: SYNC_CLOSE.documentTooLarge,
        reason: `an awareness state is limited to ${limits.maxAwarenessStateBytes} bytes`,
      };
    }
    if (jsonDepth(json) > limits.maxAwarenessDepth) {
      return {
        code: SYNC_CLOSE.documentTooLarge,
        reason: `an awareness state is limited to ${limits.maxAwarenessDepth} levels of nesting`,
      };
    }
    return undefined;
  }

  /** States that came from another instance (which checked them): their owner is remembered by credential. */
  fromElsewhere(holder: string, entries: readonly AwarenessEntry[]): void {
    for (const { clientId, json } of entries) {
      if (json === 'null') this.owners.delete(clientId);
      else this.take(clientId, { holder });
    }
  }

  /** A closed connection gives its ids up. */
  release(connection: OwningConnection): void {
    for (const [clientId, owner] of this.owners) {
      if (owner.connection === connection) this.owners.delete(clientId);
    }
  }

  /** The previous holder no longer speaks for the id: its close must not remove the state. */
  private take(clientId: number, owner: Owner): void {
    const previous = this.owners.get(clientId)?.connection;
    if (previous !== undefined && previous !== owner.connection) previous.awarenessIds.delete(clientId);
    this.owners.set(clientId, owner);
  }
}
