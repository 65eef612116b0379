import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { Identity } from '../../core/auth/identity.ts';
import type { Services } from '../../core/context.ts';
import { ServiceUnavailable } from '../../core/http/errors.ts';
import { SyncAccess } from './access.ts';
import { holderOf, SyncCaps } from './caps.ts';
import { SyncConnection, type SyncSession } from './connection.ts';
import { type DocumentKey, keyString } from './document-key.ts';
import { type DocumentStats, SyncDocuments } from './documents.ts';
import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import type { LiveDocument } from './live-document.ts';
import { SyncLiveness } from './liveness.ts';
import {
  assertAwarenessJson,
  awarenessEntries,
  awarenessStatesMessage,
  decodeClientMessage,
  encodeAwarenessEntries,
  MalformedMessage,
  step1Message,
  step2Message,
} from './protocol.ts';
import { appendUpdate } from './store.ts';
import { isWellFormedUpdate } from './updates.ts';

export interface SyncHubDeps {
  services: Services;
  identity: Identity;
  limits: SyncLimits;
  log: FastifyBaseLogger;
}

/** Counters of one instance, for operators and tests. */
export interface SyncStats extends DocumentStats {
  connections: number;
  /** Updates of read-only connections that were dropped. */
  droppedUpdates: number;
}

function frameBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The y-websocket connections of one instance and what they send: each update is appended to the database
 * before it is applied and relayed, awareness is checked (whose ids, how large) before it is applied. The
 * documents (SyncDocuments), the connections' liveness (SyncLiveness), their access (SyncAccess) and the
 * caps on what an instance, a tenant and an actor hold (SyncCaps) are each their own part.
 */
export class SyncHub {
  private readonly open = new Set<SyncConnection>();
  private readonly stops: (() => void)[] = [];
  private readonly documents: SyncDocuments;
  private readonly access: SyncAccess;
  private readonly liveness: SyncLiveness;
  readonly caps: SyncCaps;
  private closing = false;
  readonly stats: SyncStats = {
    openDocuments: 0,
    connections: 0,
    droppedUpdates: 0,
    compactions: 0,
    resyncs: 0,
  };

  constructor(private readonly deps: SyncHubDeps) {
    const { services, limits } = deps;
    this.documents = new SyncDocuments(services, limits, this.stats, this.report);
    this.access = new SyncAccess({
      identity: deps.identity,
      enablement: services.enablement,
      clock: services.clock,
      accessCheckIntervalMs: limits.accessCheckIntervalMs,
      open: () => this.open,
      report: this.report,
    });
    this.liveness = new SyncLiveness(services.clock, limits.pingIntervalMs, () => this.open);
    this.caps = new SyncCaps(limits);
  }

  start(): void {
    const stopResync = this.documents.start();
    if (stopResync !== undefined) this.stops.push(stopResync);
    this.access.start();
  }

  /**
   * Before an upgrade: refuses a document this instance has no room for (503), or a connection over the
   * instance's, the tenant's or the actor's share (503 / 429). Returns the slot's release: the caller gives
   * it back when the TCP connection ends, however that happens.
   */
  admit(key: DocumentKey, session: Pick<SyncSession, 'principal'>): () => void {
    if (this.closing) throw new ServiceUnavailable('this instance is shutting down; reconnect');
    const { limits } = this.deps;
    if (!this.documents.has(key) && this.documents.size >= limits.maxOpenDocuments) {
      throw new ServiceUnavailable(
        `this instance holds ${limits.maxOpenDocuments} documents open, its limit; retry shortly`,
      );
    }
    return this.caps.take(key.tenantId, holderOf(session.principal), keyString(key));
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
    this.liveness.ensureScheduled();
    this.access.ensureScheduled();
    const attached = this.documents.acquire(session.key).then((document) => {
      if (!connection.isOpen) {
        this.documents.release(document);
        return undefined;
      }
      if (document.deleted) {
        connection.close(SYNC_CLOSE.roomDeleted, 'the room was deleted');
        this.documents.release(document);
        return undefined;
      }
      if (document.connections.size >= this.deps.limits.maxConnectionsPerDocument) {
        connection.close(
          SYNC_CLOSE.tryAgainLater,
          `this document has ${this.deps.limits.maxConnectionsPerDocument} connections here, its limit; retry later`,
        );
        this.documents.release(document);
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
          this.documents.release(document);
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
      if (document !== undefined && connection.isOpen) await this.handle(connection, document, frame);
    });
  }

  private async handle(connection: SyncConnection, document: LiveDocument, frame: Uint8Array): Promise<void> {
    try {
      const message = decodeClientMessage(frame);
      switch (message.kind) {
        case 'step1':
          connection.send(step2Message(document.doc, message.stateVector));
          return;
        case 'update':
          // A credential revoked here already stores nothing more, even before its socket is closed.
          if (connection.session.canWrite && !(await this.access.checkCredential(connection))) return;
          this.update(connection, document, message.update);
          return;
        case 'awareness':
          this.awareness(connection, document, message.update);
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

  /**
   * Only the client ids the connection introduced (another client's state it sends back is dropped), in
   * states of bounded size, depth and number (4413).
   */
  private awareness(connection: SyncConnection, document: LiveDocument, update: Uint8Array): void {
    const entries = awarenessEntries(update);
    const verdict = document.owners.claim(
      connection,
      entries,
      (clientId) => document.awareness.meta.get(clientId)?.clock,
    );
    if ('refuse' in verdict) {
      connection.close(verdict.refuse.code, verdict.refuse.reason);
      return;
    }
    if (verdict.apply.length === 0) return;
    assertAwarenessJson(verdict.apply);
    awarenessProtocol.applyAwarenessUpdate(
      document.awareness,
      encodeAwarenessEntries(verdict.apply),
      connection,
    );
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
        this.documents.compactLater(document);
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

  /** Reads every open document again from the database (tests; the backplane's gaps start it too). */
  resyncAll(): Promise<void> {
    return this.documents.resyncAll();
  }

  /** The room of these documents was deleted: their connections close with 4404 on every instance. */
  documentsDeleted(keys: readonly DocumentKey[]): Promise<void> {
    return this.documents.documentsDeleted(keys);
  }

  /** Checks every open connection's tenant and credential now (the periodic check, at once). */
  checkAccess(): Promise<void> {
    return this.access.checkAccess();
  }

  /** Shutdown: every client is told to reconnect (1012), then every document is flushed and dropped. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.liveness.stop();
    this.access.stop();
    for (const stop of this.stops.splice(0)) stop();
    for (const connection of this.open) connection.close(SYNC_CLOSE.restart, 'server restarting');
    await this.documents.close();
  }

  /** The document this instance holds, if it does (tests and REST reads of live state). */
  held(key: DocumentKey): Promise<LiveDocument | undefined> {
    return this.documents.held(key);
  }

  private readonly report = (error: unknown, context: string): void => {
    this.deps.log.error({ err: error }, context);
  };
}
