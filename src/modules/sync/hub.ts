import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { Identity } from '../../core/auth/identity.ts';
import type { Timer } from '../../core/clock.ts';
import type { Services } from '../../core/context.ts';
import { ServiceUnavailable } from '../../core/http/errors.ts';
import { type JsonObject, type PubSub, PubSubClosedError } from '../../core/realtime/index.ts';
import { SyncConnection, type SyncSession } from './connection.ts';
import { type DocumentKey, documentChannel, keyString } from './document-key.ts';
import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import { type ChannelMessage, FROM_DATABASE, FROM_ELSEWHERE, LiveDocument } from './live-document.ts';
import {
  awarenessClients,
  awarenessStatesMessage,
  decodeClientMessage,
  MalformedMessage,
  step1Message,
  step2Message,
} from './protocol.ts';
import { appendUpdate, compactDocument, ensureDocument, readStoredUpdates } from './store.ts';
import { fromBase64, isWellFormedUpdate } from './updates.ts';

export interface SyncHubDeps {
  services: Services;
  identity: Identity;
  limits: SyncLimits;
  log: FastifyBaseLogger;
}

/** Counters of one instance, for operators and tests. */
export interface SyncStats {
  openDocuments: number;
  connections: number;
  /** Updates of read-only connections that were dropped. */
  droppedUpdates: number;
  compactions: number;
  /** Documents read again from the database (after a gap in the backplane's delivery, or periodically). */
  resyncs: number;
}

function frameBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The y-websocket documents of one instance: loaded from the database on first connection, kept while
 * connected, flushed and dropped after the last one leaves. Every update a client sends is appended to
 * the database before it is applied and relayed; the backplane carries updates and awareness to the
 * other instances, and a re-read from the database covers whatever the backplane lost.
 */
export class SyncHub {
  private readonly documents = new Map<string, Promise<LiveDocument>>();
  private readonly open = new Set<SyncConnection>();
  private readonly stops: (() => void)[] = [];
  private pingTimer: Timer | undefined;
  private accessTimer: Timer | undefined;
  private resyncTimer: Timer | undefined;
  private closing = false;
  readonly stats: SyncStats = {
    openDocuments: 0,
    connections: 0,
    droppedUpdates: 0,
    compactions: 0,
    resyncs: 0,
  };

  constructor(private readonly deps: SyncHubDeps) {}

  private get pubsub(): PubSub | undefined {
    return this.deps.services.realtime?.pubsub;
  }

  private get instanceId(): string {
    return this.deps.services.realtime?.instanceId ?? 'local';
  }

  start(): void {
    const { pubsub } = this;
    if (pubsub !== undefined) this.stops.push(pubsub.onDeliveryGap(() => this.resyncAll()));
    if (this.deps.services.realtime?.kind === 'redis') this.scheduleResync();
    this.stops.push(
      this.deps.identity.revocations.onSessionsRevoked(() => {
        for (const connection of this.open) void this.checkSession(connection);
      }),
    );
  }

  /** Before an upgrade: refuses (503) a document this instance has no room for. */
  admit(key: DocumentKey): void {
    if (this.closing) throw new ServiceUnavailable('this instance is shutting down; reconnect');
    if (this.documents.has(keyString(key))) return;
    if (this.documents.size >= this.deps.limits.maxOpenDocuments) {
      throw new ServiceUnavailable(
        `this instance holds ${this.deps.limits.maxOpenDocuments} documents open, its limit; retry shortly`,
      );
    }
  }

  /** An upgraded connection: its messages wait until the document is loaded, then go in order. */
  accept(socket: WebSocket, session: SyncSession): void {
    const connection = new SyncConnection(
      socket,
      session,
      session.ctx.log,
      this.deps.services.clock,
      this.deps.limits.maxBufferedBytes,
    );
    if (this.closing) {
      connection.close(SYNC_CLOSE.restart, 'server restarting');
      return;
    }
    this.open.add(connection);
    this.stats.connections = this.open.size;
    if (this.pingTimer === undefined) this.schedulePing();
    if (this.accessTimer === undefined) this.scheduleAccessCheck();
    const attached = this.acquire(session.key).then((document) => {
      if (!connection.isOpen) {
        this.release(document);
        return undefined;
      }
      if (document.deleted) {
        connection.close(SYNC_CLOSE.roomDeleted, 'the room was deleted');
        this.release(document);
        return undefined;
      }
      if (document.connections.size >= this.deps.limits.maxConnectionsPerDocument) {
        connection.close(
          SYNC_CLOSE.tryAgainLater,
          `this document has ${this.deps.limits.maxConnectionsPerDocument} connections here, its limit; retry later`,
        );
        this.release(document);
        return undefined;
      }
      document.connections.add(connection);
      connection.send(step1Message(document.doc));
      const states = awarenessStatesMessage(document.awareness);
      if (states !== undefined) connection.send(states);
      return document;
    });
    connection.inbox = attached.catch((error: unknown) => {
      this.report(error, 'loading a sync document');
      connection.close(SYNC_CLOSE.internalError, 'the document could not be loaded');
    });
    socket.on('message', (data, isBinary) => this.receive(connection, attached, data, isBinary));
    socket.on('pong', () => {
      connection.alive = true;
    });
    socket.on('close', () => {
      connection.closed();
      this.open.delete(connection);
      this.stats.connections = this.open.size;
      attached.then(
        (document) => {
          if (document === undefined || !document.connections.has(connection)) return;
          document.forget(connection);
          this.release(document);
        },
        () => undefined,
      );
    });
  }

  /** Size and rate are checked as a frame arrives; then it waits for the ones before it. */
  private receive(
    connection: SyncConnection,
    attached: Promise<LiveDocument | undefined>,
    data: RawData,
    isBinary: boolean,
  ): void {
    connection.alive = true;
    if (!connection.isOpen) return;
    if (!isBinary) {
      connection.close(SYNC_CLOSE.unsupported, 'the sync protocol is binary (y-websocket)');
      return;
    }
    const frame = frameBytes(data);
    if (frame.byteLength > this.deps.limits.maxFrameBytes) {
      connection.close(SYNC_CLOSE.tooBig, `frames are limited to ${this.deps.limits.maxFrameBytes} bytes`);
      return;
    }
    if (!connection.takeMessage()) {
      connection.close(
        SYNC_CLOSE.rateLimited,
        `more than ${connection.session.updatesPerSecond} messages per second`,
      );
      return;
    }
    connection.inbox = connection.inbox.then(async () => {
      const document = await attached.catch(() => undefined);
      if (document !== undefined && connection.isOpen) this.handle(connection, document, frame);
    });
  }

  private handle(connection: SyncConnection, document: LiveDocument, frame: Uint8Array): void {
    try {
      const message = decodeClientMessage(frame);
      switch (message.kind) {
        case 'step1':
          connection.send(step2Message(document.doc, message.stateVector));
          return;
        case 'update':
          this.update(connection, document, message.update);
          return;
        case 'awareness':
          awarenessClients(message.update);
          awarenessProtocol.applyAwarenessUpdate(document.awareness, message.update, connection);
          return;
        case 'queryAwareness': {
          const states = awarenessStatesMessage(document.awareness);
          if (states !== undefined) connection.send(states);
          return;
        }
        case 'ignored':
          return;
      }
    } catch (error) {
      const reason =
        error instanceof MalformedMessage ? error.message : 'the frame is not a y-websocket message';
      connection.close(SYNC_CLOSE.malformed, reason);
    }
  }

  /** Appended to the database first; applied (and so relayed) once committed. */
  private update(connection: SyncConnection, document: LiveDocument, update: Uint8Array): void {
    const { session } = connection;
    if (!session.canWrite) {
      connection.droppedUpdates += 1;
      this.stats.droppedUpdates += 1;
      return;
    }
    if (!isWellFormedUpdate(update)) {
      connection.close(SYNC_CLOSE.malformed, 'the update is not a Yjs update');
      return;
    }
    if (document.approxBytes + update.byteLength > session.maxDocumentBytes) {
      connection.close(
        SYNC_CLOSE.documentTooLarge,
        `the document would grow past ${session.maxDocumentBytes} bytes`,
      );
      return;
    }
    document.approxBytes += update.byteLength;
    document.logRows += 1;
    const appended = appendUpdate({
      ctx: session.ctx,
      key: document.key,
      update,
      eventThrottleMs: session.eventThrottleMs,
    }).then(
      () => {
        Y.applyUpdate(document.doc, update, connection);
        this.compactLater(document);
      },
      (error: unknown) => {
        // A document deleted with its room refuses appends (its row is gone): its sockets are closed already.
        if (document.deleted) return;
        this.report(error, 'appending a sync update');
        connection.close(SYNC_CLOSE.internalError, 'the update could not be stored; reconnect');
      },
    );
    document.inflight.add(appended);
    void appended.finally(() => document.inflight.delete(appended));
  }

  /** The document, loaded if this instance does not hold it; waits for an unload in progress. */
  private async acquire(key: DocumentKey): Promise<LiveDocument> {
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
    const document = new LiveDocument(key, (message) => this.publish(key, message), this.instanceId);
    try {
      // Subscribed before the read: an update committed after it arrives by message.
      const pubsub = this.pubsub;
      if (pubsub !== undefined) {
        document.unsubscribe = await pubsub.subscribe(documentChannel(key), (message) =>
          this.fromChannel(document, message),
        );
      }
      await ensureDocument(this.deps.services.db, key);
      const stored = await readStoredUpdates(this.deps.services.db, key);
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
  private release(document: LiveDocument): void {
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

  private compactLater(document: LiveDocument): void {
    if (document.logRows < this.deps.limits.compactAfterUpdates || document.compaction !== undefined) return;
    document.compaction = this.deps.services.clock.setTimeout(() => {
      void Promise.allSettled([...document.inflight])
        .then(() => this.compact(document))
        .catch((error: unknown) => this.report(error, 'compacting a sync document'))
        .finally(() => {
          document.compaction = undefined;
        });
    }, this.deps.limits.compactDelayMs);
  }

  private async compact(document: LiveDocument): Promise<void> {
    const merged = await compactDocument(this.deps.services.db, document.key);
    this.stats.compactions += 1;
    document.logRows = Math.max(0, document.logRows - merged);
    document.approxBytes = Y.encodeStateAsUpdate(document.doc).byteLength;
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
      else if (message.kind === 'awareness')
        awarenessProtocol.applyAwarenessUpdate(document.awareness, bytes, FROM_ELSEWHERE);
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
          const stored = await readStoredUpdates(this.deps.services.db, document.key);
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
      this.publish(key, { from: this.instanceId, kind: 'deleted', data: '' });
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
    this.resyncTimer = this.deps.services.clock.setTimeout(() => {
      void this.resyncAll().finally(() => this.scheduleResync());
    }, this.deps.limits.resyncIntervalMs);
  }

  /**
   * Every `pingIntervalMs` while connections are open: one that did not answer the last ping is dropped,
   * the others pinged. With none open no timer runs (the first connection starts it again).
   */
  private schedulePing(): void {
    if (this.closing) return;
    this.pingTimer = this.deps.services.clock.setTimeout(() => {
      this.pingTimer = undefined;
      for (const connection of this.open) {
        if (!connection.alive) {
          connection.closed();
          connection.socket.terminate();
          continue;
        }
        connection.alive = false;
        if (connection.isOpen) connection.socket.ping();
      }
      if (this.open.size > 0) this.schedulePing();
    }, this.deps.limits.pingIntervalMs);
  }

  /**
   * Every `accessCheckIntervalMs` while connections are open: a tenant that switched the module off has its
   * connections closed (4403), and every session token is verified again (4401 once revoked or expired).
   */
  private scheduleAccessCheck(): void {
    if (this.closing) return;
    this.accessTimer = this.deps.services.clock.setTimeout(() => {
      void this.checkAccess()
        .catch((error: unknown) => this.report(error, 'checking sync access'))
        .finally(() => {
          this.accessTimer = undefined;
          if (this.open.size > 0) this.scheduleAccessCheck();
        });
    }, this.deps.limits.accessCheckIntervalMs);
  }

  /** Checks every open connection's tenant (once per tenant) and session now. */
  async checkAccess(): Promise<void> {
    const byTenant = new Map<string, SyncConnection[]>();
    for (const connection of this.open) {
      const tenantId = connection.session.key.tenantId;
      const list = byTenant.get(tenantId);
      if (list === undefined) byTenant.set(tenantId, [connection]);
      else list.push(connection);
    }
    await Promise.all(
      [...byTenant].map(async ([tenantId, connections]) => {
        const enabled = await this.deps.services.enablement.enabledModules(tenantId);
        if (!enabled.has('sync')) {
          for (const connection of connections) {
            connection.close(SYNC_CLOSE.forbidden, 'the tenant switched the sync module off');
          }
          return;
        }
        await Promise.all(connections.map((connection) => this.checkSession(connection)));
      }),
    );
  }

  private async checkSession(connection: SyncConnection): Promise<void> {
    if (connection.session.principal.kind !== 'session') return;
    try {
      await this.deps.identity.sessions.verify(connection.session.token);
    } catch {
      connection.close(SYNC_CLOSE.unauthorized, 'the session token expired or was revoked');
    }
  }

  /** Shutdown: every client is told to reconnect (1012), then every document is flushed and dropped. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.pingTimer?.cancel();
    this.accessTimer?.cancel();
    this.resyncTimer?.cancel();
    for (const stop of this.stops.splice(0)) stop();
    for (const connection of this.open) connection.close(SYNC_CLOSE.restart, 'server restarting');
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

  private report(error: unknown, context: string): void {
    this.deps.log.error({ err: error }, context);
  }
}
