import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../../core/context.ts';
import { ServiceUnavailable } from '../../core/http/errors.ts';
import type { RawSocketConnection, RawSocketSession } from '../../core/realtime/socket-routes.ts';
import { SyncConnection, type SyncSession } from './connection.ts';
import { DocumentCaps } from './document-caps.ts';
import { type DocumentKey, keyString } from './document-key.ts';
import { type DocumentStats, SyncDocuments } from './documents.ts';
import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import type { LiveDocument } from './live-document.ts';
import { awarenessStatesMessage, step1Message } from './protocol.ts';
import { SyncReceiver } from './receive.ts';

export interface SyncHubDeps {
  services: Services;
  limits: SyncLimits;
  log: FastifyBaseLogger;
}

/** Counters of one instance, for operators and tests. */
export interface SyncStats extends DocumentStats {
  connections: number;
  /** Updates of read-only connections that were dropped. */
  droppedUpdates: number;
}

/**
 * The y-websocket side of one app: the documents it holds (SyncDocuments), the caps on them (DocumentCaps),
 * and each connection's protocol (SyncReceiver). The sockets themselves are the realtime gateway's: it
 * pings them, re-checks their credential and the module's switch, caps their number and drains them.
 */
export class SyncHub {
  private readonly connections = new Set<SyncConnection>();
  private readonly documents: SyncDocuments;
  private readonly receiver: SyncReceiver;
  readonly caps: DocumentCaps;
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
    this.receiver = new SyncReceiver({ documents: this.documents, stats: this.stats, report: this.report });
    this.caps = new DocumentCaps(limits);
  }

  /** The periodic re-read and the re-read after a backplane gap; returns how to stop them. */
  start(): (() => void) | undefined {
    return this.documents.start();
  }

  /**
   * Before an upgrade: refuses a document this instance has no room for (503), or over the tenant's share
   * (429). Returns the slot's release: the caller gives it back when the TCP connection ends.
   */
  admit(key: DocumentKey): () => void {
    const { limits } = this.deps;
    if (!this.documents.has(key) && this.documents.size >= limits.maxOpenDocuments) {
      throw new ServiceUnavailable(
        `this instance holds ${limits.maxOpenDocuments} documents open, its limit; retry shortly`,
      );
    }
    return this.caps.take(key.tenantId, keyString(key));
  }

  /** An upgraded connection: its messages wait until the document is loaded, then go in order. */
  open(socket: RawSocketConnection, session: SyncSession): RawSocketSession {
    const connection = new SyncConnection(socket, session, this.deps.services.clock);
    this.connections.add(connection);
    this.stats.connections = this.connections.size;
    const attached = this.documents
      .acquire(session.key)
      .then((document) => this.attach(connection, document));
    connection.inbox = attached.catch((error: unknown) => {
      this.report(error, 'loading a sync document');
      connection.close(SYNC_CLOSE.internalError, 'the document could not be loaded');
    });
    return {
      message: (frame, isBinary) => this.receiver.receive(connection, attached, frame, isBinary),
      closed: () => {
        this.connections.delete(connection);
        this.stats.connections = this.connections.size;
        attached.then(
          (document) => {
            if (document === undefined || !document.connections.has(connection)) return;
            document.forget(connection);
            this.documents.release(document);
          },
          () => undefined,
        );
      },
    };
  }

  /** The loaded document takes the connection, unless it closed, the room is gone or the document is full. */
  private attach(connection: SyncConnection, document: LiveDocument): LiveDocument | undefined {
    const { maxConnectionsPerDocument } = this.deps.limits;
    if (!connection.isOpen) {
      // Closed while the document loaded: nothing to attach.
    } else if (document.deleted) {
      connection.close(SYNC_CLOSE.roomDeleted, 'the room was deleted');
    } else if (document.connections.size >= maxConnectionsPerDocument) {
      connection.close(
        SYNC_CLOSE.tryAgainLater,
        `this document has ${maxConnectionsPerDocument} connections here, its limit; retry later`,
      );
    } else {
      document.connections.add(connection);
      connection.send(step1Message(document.doc));
      const states = awarenessStatesMessage(document.awareness);
      if (states !== undefined) connection.send(states);
      return document;
    }
    this.documents.release(document);
    return undefined;
  }

  /** Reads every open document again from the database (tests; the backplane's gaps start it too). */
  resyncAll(): Promise<void> {
    return this.documents.resyncAll();
  }

  /** The room of these documents was deleted: their connections close with 4404 on every instance. */
  documentsDeleted(keys: readonly DocumentKey[]): Promise<void> {
    return this.documents.documentsDeleted(keys);
  }

  /** Shutdown, once the gateway closed the connections: every document is flushed and dropped. */
  close(): Promise<void> {
    return this.documents.close();
  }

  /** The document this instance holds, if it does (tests and REST reads of live state). */
  held(key: DocumentKey): Promise<LiveDocument | undefined> {
    return this.documents.held(key);
  }

  private readonly report = (error: unknown, context: string): void => {
    this.deps.log.error({ err: error }, context);
  };
}
