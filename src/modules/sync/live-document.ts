import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { Timer } from '../../core/clock.ts';
import type { JsonObject } from '../../core/realtime/index.ts';
import { AwarenessOwners } from './awareness-guard.ts';
import { SyncConnection } from './connection.ts';
import type { DocumentKey } from './document-key.ts';
import type { SyncLimits } from './limits.ts';
import { awarenessMessage, updateMessage } from './protocol.ts';
import { toBase64 } from './updates.ts';

/** Origins of changes that must not go back out to the other instances. */
export const FROM_ELSEWHERE = 'elsewhere';
export const FROM_DATABASE = 'database';

/** A message on a document's backplane channel: an update or awareness change, and who sent it. */
export interface ChannelMessage extends JsonObject {
  from: string;
  /** `deleted`: the room was deleted; every instance closes the document's connections (no data). */
  kind: 'update' | 'awareness' | 'deleted';
  data: string;
  /**
   * Awareness set by a client: whose credential introduced its ids (`holderOf`), for the other instances;
   * empty for every other message.
   */
  owner: string;
}

/**
 * A document held in memory on this instance while it has connections: the Y.Doc, the awareness of its
 * clients, and the relays between them, this instance's sockets, and the other instances.
 */
export class LiveDocument {
  readonly doc = new Y.Doc();
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  readonly connections = new Set<SyncConnection>();
  /** Who introduced each awareness client id: only they may set or remove it. */
  readonly owners: AwarenessOwners;
  /** Appends not yet committed: waited for before the document is unloaded. */
  readonly inflight = new Set<Promise<unknown>>();
  /** An upper bound of the encoded document's size (what was loaded, plus every update appended since). */
  approxBytes = 0;
  /** Rows in the log (loaded, plus appended here since): compaction is due past a threshold. */
  logRows = 0;
  compaction: Timer | undefined;
  /** Set once the last connection left: the document is being flushed and dropped. */
  unloading: Promise<void> | undefined;
  unsubscribe: (() => void) | undefined;
  /** Its room was deleted: its connections are closed and no one may join it again. */
  deleted = false;
  /** The hub's entry for it (its load), so the hub drops only its own entry. */
  entry: Promise<LiveDocument> | undefined;

  constructor(
    readonly key: DocumentKey,
    /** Sends a message to the document's channel (to the other instances). */
    private readonly publish: (message: ChannelMessage) => void,
    private readonly instanceId: string,
    limits: SyncLimits,
  ) {
    this.owners = new AwarenessOwners(limits);
    // The server speaks for no one: only clients have awareness states.
    this.awareness.setLocalState(null);
    this.doc.on('update', (update: Uint8Array, origin: unknown) => this.relayUpdate(update, origin));
    this.awareness.on('update', (change: AwarenessChange, origin: unknown) =>
      this.relayAwareness(change, origin),
    );
  }

  /**
   * Applies updates written together, merged into one (every struct kept, so each client sees every
   * value): one Yjs transaction, one frame to every connection (the senders get their own back, as from
   * the stock y-websocket server; applying it again changes nothing), one message to the other instances.
   * Updates that do not merge are applied one by one; throws the first that does not apply.
   */
  applyGroup(entries: readonly GroupEntry[]): void {
    const [only] = entries;
    if (only === undefined) return;
    let merged: Uint8Array | undefined;
    if (entries.length > 1) {
      try {
        merged = Y.mergeUpdates(entries.map((entry) => entry.update));
      } catch {
        merged = undefined;
      }
    }
    if (merged !== undefined) {
      Y.applyUpdate(this.doc, merged, new AppliedGroup(merged));
      return;
    }
    let failed: { error: unknown } | undefined;
    for (const entry of entries) {
      try {
        Y.applyUpdate(this.doc, entry.update, entry.connection);
      } catch (error) {
        failed ??= { error };
      }
    }
    if (failed !== undefined) throw failed.error;
  }

  private relayUpdate(applied: Uint8Array, origin: unknown): void {
    // A group is relayed as it was written, merged (its transaction's own update lost overwritten values).
    const group = origin instanceof AppliedGroup;
    const update = group ? origin.merged : applied;
    const message = updateMessage(update);
    for (const connection of this.connections) if (group || connection !== origin) connection.send(message);
    if (origin !== FROM_ELSEWHERE && origin !== FROM_DATABASE) {
      this.publish({ from: this.instanceId, kind: 'update', data: toBase64(update), owner: '' });
    }
  }

  /** Awareness goes to every connection, the sender's too: the stock client takes it as a sign of life. */
  private relayAwareness(change: AwarenessChange, origin: unknown): void {
    const changed = [...change.added, ...change.updated, ...change.removed];
    const connection = origin instanceof SyncConnection && this.connections.has(origin) ? origin : undefined;
    if (connection !== undefined) {
      for (const id of [...change.added, ...change.updated]) connection.awarenessIds.add(id);
      for (const id of change.removed) connection.awarenessIds.delete(id);
    }
    const update = awarenessProtocol.encodeAwarenessUpdate(this.awareness, changed);
    const message = awarenessMessage(update);
    for (const connection of this.connections) connection.send(message);
    if (origin !== FROM_ELSEWHERE) {
      this.publish({
        from: this.instanceId,
        kind: 'awareness',
        data: toBase64(update),
        owner: connection?.holder ?? '',
      });
    }
  }

  /** A closed connection's awareness states disappear for everyone. */
  forget(connection: SyncConnection): void {
    this.connections.delete(connection);
    this.owners.release(connection);
    const ids = [...connection.awarenessIds];
    if (ids.length > 0) awarenessProtocol.removeAwarenessStates(this.awareness, ids, 'closed');
  }

  destroy(): void {
    this.compaction?.cancel();
    this.awareness.destroy();
    this.doc.destroy();
  }
}

interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/** An update written to the log, and the connection that sent it. */
export interface GroupEntry {
  connection: SyncConnection;
  update: Uint8Array;
}

/** The origin of a group's transaction: the group's updates merged, as they are relayed. */
class AppliedGroup {
  constructor(readonly merged: Uint8Array) {}
}
