import { inTenant, type ServiceContext } from '../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../core/db/database.ts';
import type { GroupCommits, GroupWriter } from '../../core/db/group-commit.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { type DocumentKey, keyString } from './document-key.ts';

export const DOCUMENT_UPDATED = 'sync.document.updated';

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
 * The appends of one document written in one transaction, in arrival order: each of them resolves with the
 * same object, so the first to see it may apply (and relay) the document's share of the group at once.
 */
export interface AppendedGroup {
  readonly items: readonly Append[];
  /** Set by whoever applied the group, so the others skip it. */
  applied: boolean;
}

/** Every row of a group in one statement, whatever its size (one text, so prepared once), in arrival order. */
const INSERT = `insert into sync_updates (tenant_id, room_id, doc_name, data)
  select $1, u.room_id, u.doc_name, u.data
  from unnest($2::text[], $3::text[], $4::bytea[]) with ordinality as u(room_id, doc_name, data, n)
  order by u.n`;

const MARK_EVENT = `update sync_documents set last_event_at = to_timestamp($4::double precision / 1000)
  where tenant_id = $1 and room_id = $2 and doc_name = $3
    and (last_event_at is null or last_event_at <= to_timestamp($5::double precision / 1000))
  returning 1`;

/**
 * Appends the updates of one tenant's documents that arrived while its previous append was committing,
 * in one statement: a busy instance writes one group at a time per tenant rather than one per document
 * (fewer statements: the embedded database runs one at a time, and a PostgreSQL commit waits for its
 * WAL flush whatever its size). Once per throttle window per document it also records
 * `sync.document.updated` (in the same transaction). Per app: it remembers when each document's event
 * was last emitted here, so most groups skip the check.
 */
class AppendWriter implements GroupWriter<Append, AppendedGroup> {
  private readonly lastEventAt = new Map<string, number>();
  readonly maxGroup = 512;

  /** A document deleted with its room refuses its rows: the others of the group are then written alone. */
  isolates(error: unknown): boolean {
    return pgErrorCode(error) === PG_ERROR.foreignKeyViolation;
  }

  async writeGroup(items: readonly Append[]): Promise<AppendedGroup[]> {
    const first = items[0];
    if (first === undefined) return [];
    const { ctx } = first;
    const byDocument = new Map<string, { items: Append[]; applied: boolean }>();
    const rooms: string[] = [];
    const names: string[] = [];
    const updates: Uint8Array[] = [];
    for (const item of items) {
      const name = keyString(item.key);
      const group = byDocument.get(name);
      if (group === undefined) byDocument.set(name, { items: [item], applied: false });
      else group.items.push(item);
      rooms.push(item.key.roomId);
      names.push(item.key.docName);
      updates.push(item.update);
    }
    const params = [ctx.tenantId, rooms, names, updates];
    const now = ctx.clock.now();
    const due = [...byDocument].filter(([name, group]) =>
      this.due(name, now, group.items[0]?.eventThrottleMs),
    );
    if (due.length === 0) {
      await tenantRead(ctx.db, first.key, INSERT, params);
    } else {
      await inTenant(ctx, async (tx, _emit, emitEach) => {
        await tx.query(INSERT, params);
        const events = [];
        for (const [, group] of due) {
          const [by] = group.items;
          if (by === undefined) continue;
          const { key } = by;
          // Across instances too: the row says when the last event was, so a window has one event.
          const marked = await tx.query(MARK_EVENT, [
            key.tenantId,
            key.roomId,
            key.docName,
            now,
            now - by.eventThrottleMs,
          ]);
          if (marked.rows.length === 0) continue;
          events.push({
            by: by.ctx,
            type: DOCUMENT_UPDATED,
            data: { roomId: key.roomId, docName: key.docName, updatedAt: new Date(now).toISOString() },
          });
        }
        if (events.length > 0) await emitEach(events);
      });
    }
    return items.map((item) => byDocument.get(keyString(item.key)) as AppendedGroup);
  }

  /** Whether the document's event window may have passed (then remembered as emitted now). */
  private due(name: string, now: number, throttleMs = 0): boolean {
    const last = this.lastEventAt.get(name);
    if (last !== undefined && now - last < throttleMs) return false;
    // Bounded: entries past their window say nothing any more.
    if (this.lastEventAt.size >= 10_000) {
      for (const [other, at] of this.lastEventAt) if (now - at >= throttleMs) this.lastEventAt.delete(other);
    }
    this.lastEventAt.set(name, now);
    return true;
  }
}

/** One writer per app (its group commits), made once rather than per append. */
const writers = new WeakMap<GroupCommits, AppendWriter>();

/**
 * Appends `update` to the document's log, durably: resolves once it is committed, with the document's
 * share of the group it was written in. Appends that arrive together are written together.
 */
export function appendUpdate(append: Append): Promise<AppendedGroup> {
  const commits = append.ctx.groupCommit;
  let writer = writers.get(commits);
  if (writer === undefined) {
    writer = new AppendWriter();
    writers.set(commits, writer);
  }
  return commits.queue('sync.append', writer).submit(append.key.tenantId, append);
}
