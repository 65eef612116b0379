import * as Y from 'yjs';
import type { Database } from '../../core/db/database.ts';
import { tenantRead, tenantTx } from '../../core/db/tenant-tx.ts';
import type { DocumentKey } from './document-key.ts';

export { type Append, type AppendedGroup, appendUpdate, DOCUMENT_UPDATED } from './append.ts';

const WHERE_DOC = 'tenant_id = $1 and room_id = $2 and doc_name = $3';

function docParams(key: DocumentKey): string[] {
  return [key.tenantId, key.roomId, key.docName];
}

/** Creates the document's row if it has none (the log's rows reference it). */
export async function ensureDocument(db: Database, key: DocumentKey): Promise<void> {
  await tenantRead(
    db,
    key,
    'insert into sync_documents (tenant_id, room_id, doc_name) values ($1, $2, $3) on conflict do nothing',
    docParams(key),
  );
}

/** The document as stored: its snapshot (if compacted) and every update appended since, in one read. */
export async function readStoredUpdates(db: Database, key: DocumentKey): Promise<Uint8Array[]> {
  const { rows } = await tenantRead<{ data: Uint8Array | null }>(
    db,
    key,
    `select snapshot as data from sync_documents where ${WHERE_DOC}
     union all (select data from sync_updates where ${WHERE_DOC} order by id)`,
    docParams(key),
  );
  return rows.flatMap((row) => (row.data === null ? [] : [row.data]));
}

/** A fresh Y.Doc holding the stored document (an empty one when nothing is stored). */
export async function loadStoredDocument(db: Database, key: DocumentKey): Promise<Y.Doc> {
  const doc = new Y.Doc();
  for (const update of await readStoredUpdates(db, key)) Y.applyUpdate(doc, update);
  return doc;
}

/**
 * Merges the document's log into its snapshot in one transaction. The document's row is locked first, so
 * two instances compacting at once take turns; only the log rows read are deleted, so an update committed
 * meanwhile stays in the log. Answers how many log rows were merged.
 */
export async function compactDocument(db: Database, key: DocumentKey): Promise<number> {
  return tenantTx(db, key, async (tx) => {
    const doc = await tx.query<{ snapshot: Uint8Array | null }>(
      `select snapshot from sync_documents where ${WHERE_DOC} for no key update`,
      docParams(key),
    );
    const row = doc.rows[0];
    if (row === undefined) return 0;
    const log = await tx.query<{ id: string; data: Uint8Array }>(
      `select id::text as id, data from sync_updates where ${WHERE_DOC} order by id`,
      docParams(key),
    );
    if (log.rows.length === 0) return 0;
    const parts = [...(row.snapshot === null ? [] : [row.snapshot]), ...log.rows.map((r) => r.data)];
    const merged = Y.mergeUpdates(parts);
    await tx.query(`update sync_documents set snapshot = $4, compacted_at = now() where ${WHERE_DOC}`, [
      ...docParams(key),
      merged,
    ]);
    await tx.query(`delete from sync_updates where ${WHERE_DOC} and id = any($4::bigint[])`, [
      ...docParams(key),
      log.rows.map((r) => r.id),
    ]);
    return log.rows.length;
  });
}

/** The stored size of a document: its snapshot and its log, in bytes. */
export async function storedBytes(db: Database, key: DocumentKey): Promise<number> {
  const { rows } = await tenantRead<{ bytes: string | number }>(
    db,
    key,
    `select coalesce((select octet_length(snapshot) from sync_documents where ${WHERE_DOC}), 0)
       + coalesce((select sum(octet_length(data)) from sync_updates where ${WHERE_DOC}), 0) as bytes`,
    docParams(key),
  );
  return Number(rows[0]?.bytes ?? 0);
}
