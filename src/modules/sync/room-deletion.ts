import type { OutboxWriter } from '../../core/events/store.ts';
import type { TenantEvent } from '../../core/events/types.ts';
import type { DocumentKey } from './document-key.ts';

/** The rooms module's event (its name is the contract between the two modules). */
export const ROOM_DELETED = 'room.deleted';

/**
 * The outbox writer: a room's `room.deleted` deletes the room's sync documents (and, by cascade, their
 * update logs) in the statement that records the event, so a deleted room never leaves a document
 * behind, even if the instance dies right after. Once committed, `deleted` gets the documents that
 * were removed, to close their sockets on every instance.
 */
export function roomDeletionOutbox(deleted: (keys: DocumentKey[]) => void): OutboxWriter {
  return {
    statement(events: readonly TenantEvent[], bind) {
      const rooms = events.flatMap((event) =>
        event.type === ROOM_DELETED && typeof event.data.roomId === 'string' ? [event.data.roomId] : [],
      );
      const [first] = events;
      if (rooms.length === 0 || first === undefined) return undefined;
      return `delete from sync_documents
               where tenant_id = ${bind(first.tenantId)} and room_id = any(${bind(rooms)}::text[])
               returning tenant_id, room_id, doc_name`;
    },
    committed(rows) {
      const keys = rows.flatMap((row) =>
        typeof row.tenant_id === 'string' &&
        typeof row.room_id === 'string' &&
        typeof row.doc_name === 'string'
          ? [{ tenantId: row.tenant_id, roomId: row.room_id, docName: row.doc_name }]
          : [],
      );
      if (keys.length > 0) deleted(keys);
    },
  };
}
