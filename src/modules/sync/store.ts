import * as Y from 'yjs';
import { inTenant, type ServiceContext } from '../../core/context.ts';
import type { Database } from '../../core/db/database.ts';
import type { GroupCommits, GroupWriter } from '../../core/db/group-commit.ts';
import { tenantRead, tenantTx } from '../../core/db/tenant-tx.ts';
import { type DocumentKey, keyString } from './document-key.ts';

export const DOCUMENT_UPDATED = 'sync.document.updated';

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

/** One update to append to a document's log. */
export interface Append {
  /** Who sent it: the event it may bring is traced to them. */
  ctx: ServiceContext;
  key: DocumentKey;
  update: Uint8Array;
  /** `sync.document.updated` at most once per this many ms per document (the tenant's setting). */
  eventThrottleMs: number;
  /** Who it came from, for whoever applies the group once written (a socket connection; none for REST). */
  origin?: unknown;
}

/**
 * The appends written in one transaction, in arrival order: every append of the group resolves with the
 * same object, so the first to see it may apply (and relay) the whole group at once.
 */
export interface AppendedGroup {
  readonly items: readonly Append[];
  /** Set by whoever applied the group, so the others skip it. */
  applied: boolean;
}

/**
 * Appends the updates of one document that arrived while its previous append was committing, in one
 * statement; once per throttle window also records `sync.document.updated` (in the same transaction).
 * Per app: it remembers when each document's event was last emitted here, so most groups skip the check.
 */
class AppendWriter implements GroupWriter<Append, AppendedGroup> {
  private readonly lastEventAt = new Map<string, number>();
  readonly maxGroup = 256;

  async writeGroup(items: readonly Append[]): Promise<AppendedGroup[]> {
    const first = items[0];
    if (first === undefined) return [];
    const { ctx, key } = first;
    const values: string[] = [];
    const params: unknown[] = docParams(key);
    for (const item of items) {
      params.push(item.update);
      values.push(`($1, $2, $3, $${params.length})`);
    }
    const insert = `insert into sync_updates (tenant_id, room_id, doc_name, data) values ${values.join(', ')}`;
    const now = ctx.clock.now();
    const name = keyString(key);
    const last = this.lastEventAt.get(name);
    const group: AppendedGroup = { items, applied: false };
    if (last !== undefined && now - last < first.eventThrottleMs) {
      await tenantRead(ctx.db, key, insert, params);
      return items.map(() => group);
    }
    this.remember(name, now, first.eventThrottleMs);
    await inTenant(ctx, async (tx, _emit, emitEach) => {
      await tx.query(insert, params);
      // Across instances too: the row says when the last event was, so a window has one event.
      const { rows } = await tx.query(
        `update sync_documents set last_event_at = to_timestamp($4::double precision / 1000)
         where ${WHERE_DOC} and (last_event_at is null or last_event_at <= to_timestamp($5::double precision / 1000))
         returning 1`,
        [...docParams(key), now, now - first.eventThrottleMs],
      );
      if (rows.length === 0) return;
      await emitEach([
        {
          by: ctx,
          type: DOCUMENT_UPDATED,
          data: { roomId: key.roomId, docName: key.docName, updatedAt: new Date(now).toISOString() },
        },
      ]);
    });
    return items.map(() => group);
  }

  private remember(name: string, now: number, throttleMs: number): void {
    // Bounded: entries past their window say nothing any more.
    if (this.lastEventAt.size >= 10_000) {
      for (const [other, at] of this.lastEventAt) if (now - at >= throttleMs) this.lastEventAt.delete(other);
    }
    this.lastEventAt.set(name, now);
  }
}

/**
 * Appends `update` to the document's log, durably: resolves once it is committed. Appends to one document
 * that arrive together are written together (group commit).
 */
export function appendUpdate(append: Append): Promise<AppendedGroup> {
  const commits = append.ctx.groupCommit;
  let writer = writers.get(commits);
  if (writer === undefined) {
    writer = new AppendWriter();
    writers.set(commits, writer);
  }
  return commits.queue('sync.append', writer).submit(keyString(append.key), append);
}

/** One writer per app (its group commits), made once rather than per append. */
const writers = new WeakMap<GroupCommits, AppendWriter>();

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
