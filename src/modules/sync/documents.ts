import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { Timer } from '../../core/clock.ts';
import type { Services } from '../../core/context.ts';
import { type JsonObject, type PubSub, PubSubClosedError } from '../../core/realtime/index.ts';
import { type DocumentKey, documentChannel, keyString } from './document-key.ts';
import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import { type ChannelMessage, FROM_DATABASE, FROM_ELSEWHERE, LiveDocument } from './live-document.ts';
import { awarenessEntries } from './protocol.ts';
import { compactLog, ensureDocument, readStoredUpdates } from './store.ts';
import { fromBase64 } from './updates.ts';

/** Counters of the documents of one instance, for operators and tests. */
export interface DocumentStats {
  openDocuments: number;
  compactions: number;
  /** Documents read again from the database (after a gap in the backplane's delivery, or periodically). */
  resyncs: number;
}

/**
 * The documents one instance holds: loaded from the database on first connection, kept while connected,
 * flushed and dropped after the last one leaves. The backplane carries updates and awareness to the other
 * instances, and a re-read from the database covers whatever the backplane lost.
 */
export class SyncDocuments {
  private readonly documents = new Map<string, Promise<LiveDocument>>();
  private resyncTimer: Timer | undefined;
  private closing = false;

  constructor(
    private readonly services: Services,
    private readonly limits: SyncLimits,
    readonly stats: DocumentStats,
    private readonly report: (error: unknown, context: string) => void,
  ) {}

  private get pubsub(): PubSub | undefined {
    return this.services.realtime?.pubsub;
  }

  private get instanceId(): string {
    return this.services.realtime?.instanceId ?? 'local';
  }

  get size(): number {
    return this.documents.size;
  }

  has(key: DocumentKey): boolean {
    return this.documents.has(keyString(key));
  }

  /** Starts the periodic re-read (with a shared backplane) and the re-read after a delivery gap. */
  start(): (() => void) | undefined {
    if (this.services.realtime?.kind === 'redis') this.scheduleResync();
    return this.pubsub?.onDeliveryGap(() => this.resyncAll());
  }

  /** The document, loaded if this instance does not hold it; waits for an unload in progress. */
  async acquire(key: DocumentKey): Promise<LiveDocument> {
    const name = keyString(key);
    for (;;) {
      let entry = this.documents.get(name);
      if (entry === undefined) {
        const loading = this.load(key);
        entry = loading;
        // First in line: the document knows its entry before anyone else sees it.
        loading.then(
          (document) => {
            document.entry = loading;
          },
          () => undefined,
        );
        this.documents.set(name, entry);
        this.stats.openDocuments = this.documents.size;
        entry.catch(() => {
          if (this.documents.get(name) === entry) this.documents.delete(name);
          this.stats.openDocuments = this.documents.size;
        });
      }
      const document = await entry;
      // A document deleted with its room stays with its last connections; a room of the same id starts afresh.
      if (document.deleted) {
        this.forgetEntry(document);
        continue;
      }
      if (document.unloading !== undefined) {
        await document.unloading;
        continue;
      }
      return document;
    }
  }

  private async load(key: DocumentKey): Promise<LiveDocument> {
    const document = new LiveDocument(
      key,
      (message) => this.publish(key, message),
      this.instanceId,
      this.limits,
    );
    try {
      // Subscribed before the read: an update committed after it arrives by message.
      const pubsub = this.pubsub;
      if (pubsub !== undefined) {
        document.unsubscribe = await pubsub.subscribe(documentChannel(key), (message) =>
          this.fromChannel(document, message),
        );
      }
      await ensureDocument(this.services.db, key);
      const stored = await readStoredUpdates(this.services.db, key);
      if (stored.length > 0) Y.applyUpdate(document.doc, Y.mergeUpdates(stored), FROM_DATABASE);
      document.approxBytes = stored.reduce((sum, update) => sum + update.byteLength, 0);
      document.logRows = Math.max(0, stored.length - 1);
      return document;
    } catch (error) {
      document.unsubscribe?.();
      document.destroy();
      throw error;
    }
  }

  /** After a connection left: the last one out starts the unload (flush, compact, drop). */
  release(document: LiveDocument): void {
    if (document.connections.size > 0 || document.unloading !== undefined) return;
    document.unloading = this.unload(document);
  }

  private async unload(document: LiveDocument): Promise<void> {
    try {
      await Promise.allSettled([...document.inflight]);
      document.compaction?.cancel();
      if (document.logRows > 0) await this.compact(document);
    } catch (error) {
      this.report(error, 'compacting a sync document');
    } finally {
      document.unsubscribe?.();
      document.destroy();
      this.forgetEntry(document);
    }
  }

  /** Drops the document from the map, unless another load of its key took the place already. */
  private forgetEntry(document: LiveDocument): void {
    const name = keyString(document.key);
    if (document.entry !== undefined && this.documents.get(name) === document.entry) {
      this.documents.delete(name);
    }
    this.stats.openDocuments = this.documents.size;
  }

  compactLater(document: LiveDocument): void {
    if (document.logRows < this.limits.compactAfterUpdates || document.compaction !== undefined) return;
    document.compaction = this.services.clock.setTimeout(() => {
      void Promise.allSettled([...document.inflight])
        .then(() => this.compact(document))
        .catch((error: unknown) => this.report(error, 'compacting a sync document'))
        .finally(() => {
          document.compaction = undefined;
        });
    }, this.limits.compactDelayMs);
  }

  private async compact(document: LiveDocument): Promise<void> {
    const before = document.approxBytes;
    const merged = await compactLog(this.services.db, document.key);
    this.stats.compactions += 1;
    document.logRows = Math.max(0, document.logRows - merged.rows);
    // The snapshot's size plus what was appended here since the compaction began (no re-encoding of the
    // whole document on the event loop).
    if (merged.rows > 0) document.approxBytes = merged.bytes + Math.max(0, document.approxBytes - before);
  }

  private publish(key: DocumentKey, message: ChannelMessage): void {
    const pubsub = this.pubsub;
    if (pubsub === undefined) return;
    pubsub.publish(documentChannel(key), message).catch((error: unknown) => {
      // A lost message is made good by the next resync from the database.
      if (!(error instanceof PubSubClosedError)) this.report(error, 'publishing a sync message');
    });
  }

  /** A message of another instance (or of a REST write): applied here without being sent on again. */
  private fromChannel(document: LiveDocument, message: JsonObject): void {
    if (message.from === this.instanceId) return;
    if (message.kind === 'deleted') {
      this.closeDeleted(document);
      return;
    }
    if (typeof message.data !== 'string') return;
    try {
      const bytes = fromBase64(message.data);
      if (message.kind === 'update') Y.applyUpdate(document.doc, bytes, FROM_ELSEWHERE);
      else if (message.kind === 'awareness') {
        // The sending instance checked who may set these ids; here they are remembered as its client's.
        if (typeof message.owner === 'string' && message.owner !== '') {
          document.owners.fromElsewhere(message.owner, awarenessEntries(bytes));
        }
        awarenessProtocol.applyAwarenessUpdate(document.awareness, bytes, FROM_ELSEWHERE);
      }
    } catch (error) {
      this.report(error, 'applying a sync message from the backplane');
    }
  }

  /** Reads every open document again from the database: what the backplane lost arrives now. */
  async resyncAll(): Promise<void> {
    const documents = await Promise.allSettled([...this.documents.values()]);
    await Promise.all(
      documents.map(async (settled) => {
        if (settled.status !== 'fulfilled' || settled.value.unloading !== undefined) return;
        const document = settled.value;
        try {
          const stored = await readStoredUpdates(this.services.db, document.key);
          if (stored.length > 0) Y.applyUpdate(document.doc, Y.mergeUpdates(stored), FROM_DATABASE);
          this.stats.resyncs += 1;
        } catch (error) {
          this.report(error, 'resynchronising a sync document');
        }
      }),
    );
  }

  /**
   * The room of these documents was deleted (their rows are gone, in the transaction that deleted it):
   * their connections here are closed with 4404, and every other instance is told to close its own.
   */
  async documentsDeleted(keys: readonly DocumentKey[]): Promise<void> {
    for (const key of keys) {
      const document = await this.held(key);
      if (document !== undefined) this.closeDeleted(document);
      this.publish(key, { from: this.instanceId, kind: 'deleted', data: '', owner: '' });
    }
  }

  private closeDeleted(document: LiveDocument): void {
    document.deleted = true;
    this.forgetEntry(document);
    for (const connection of document.connections) {
      connection.close(SYNC_CLOSE.roomDeleted, 'the room was deleted');
    }
  }

  private scheduleResync(): void {
    if (this.closing) return;
    this.resyncTimer = this.services.clock.setTimeout(() => {
      void this.resyncAll().finally(() => this.scheduleResync());
    }, this.limits.resyncIntervalMs);
  }

  /** Shutdown: every document is flushed and dropped (its connections were closed already). */
  async close(): Promise<void> {
    this.closing = true;
    this.resyncTimer?.cancel();
    const documents = await Promise.allSettled([...this.documents.values()]);
    await Promise.all(
      documents.map(async (settled) => {
        if (settled.status !== 'fulfilled') return;
        const document = settled.value;
        document.connections.clear();
        this.release(document);
        await document.unloading;
      }),
    );
  }

  /** The document this instance holds, if it does (tests and REST reads of live state). */
  async held(key: DocumentKey): Promise<LiveDocument | undefined> {
    const entry = this.documents.get(keyString(key));
    return entry === undefined ? undefined : entry.catch(() => undefined);
  }
}
