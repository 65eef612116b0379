import * as awarenessProtocol from 'y-protocols/awareness';
import { SyncConnection } from './connection.ts';
import type { SyncDocuments } from './documents.ts';
import { SYNC_CLOSE } from './limits.ts';
import type { GroupEntry, LiveDocument } from './live-document.ts';
import {
  assertAwarenessJson,
  awarenessEntries,
  awarenessStatesMessage,
  decodeClientMessage,
  encodeAwarenessEntries,
  MalformedMessage,
  step2Message,
} from './protocol.ts';
import { type AppendedGroup, appendUpdate } from './store.ts';
import { isWellFormedUpdate } from './updates.ts';

export interface ReceiveDeps {
  documents: SyncDocuments;
  /** Updates of read-only connections that were dropped, on this instance. */
  stats: { droppedUpdates: number };
  report: (error: unknown, context: string) => void;
}

/**
 * What a client's y-websocket messages do: each update is appended to the database before it is applied
 * and relayed, awareness is checked (whose ids, how large) before it is applied. Size, liveness and access
 * were the gateway's to check before a message gets here.
 */
export class SyncReceiver {
  constructor(private readonly deps: ReceiveDeps) {}

  /** Rate and type are checked as a frame arrives; then it waits for the ones before it. */
  receive(
    connection: SyncConnection,
    attached: Promise<LiveDocument | undefined>,
    frame: Uint8Array,
    isBinary: boolean,
  ): void {
    if (!isBinary) {
      connection.close(SYNC_CLOSE.unsupported, 'the sync protocol is binary (y-websocket)');
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
          if (connection.session.canWrite && !(await connection.socket.stillAuthorized())) return;
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
      this.deps.stats.droppedUpdates += 1;
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
    session.ctx.metrics?.syncUpdateBytes.inc(update.byteLength);
    document.logRows += 1;
    const appended = appendUpdate({
      ctx: session.ctx,
      key: document.key,
      update,
      eventThrottleMs: session.eventThrottleMs,
      origin: connection,
    }).then(
      (group) => this.applyGroup(document, group),
      (error: unknown) => {
        // A document deleted with its room refuses appends (its row is gone): its sockets are closed already.
        if (document.deleted) return;
        this.deps.report(error, 'appending a sync update');
        connection.close(SYNC_CLOSE.internalError, 'the update could not be stored; reconnect');
      },
    );
    document.inflight.add(appended);
    void appended.finally(() => document.inflight.delete(appended));
  }

  /** The first append of a group to be told it committed applies (and so relays) the group's updates. */
  private applyGroup(document: LiveDocument, group: AppendedGroup): void {
    if (group.applied) return;
    group.applied = true;
    const entries: GroupEntry[] = [];
    for (const { origin, update } of group.items) {
      if (origin instanceof SyncConnection) entries.push({ connection: origin, update });
    }
    try {
      document.applyGroup(entries);
    } catch (error) {
      // Stored but not applicable here: the next resync from the database tells.
      this.deps.report(error, 'applying a stored sync update');
    }
    this.deps.documents.compactLater(document);
  }
}
