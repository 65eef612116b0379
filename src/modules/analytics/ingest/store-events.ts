import type { ServiceContext } from '../../../core/context.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import { analyticsStore } from '../settings.ts';
import type { StoredEvent } from '../store.ts';

interface QueuedIngest {
  ctx: ServiceContext;
  rows: StoredEvent[];
}

/**
 * Ingestion in one tenant is group-committed: its hourly rollup rows are hot (every event of an hour adds
 * to one), so requests arriving while one insert commits are written together by the next.
 */
const INGEST_WRITER: GroupWriter<QueuedIngest, ReadonlySet<number>> = {
  async writeGroup(group) {
    const first = group[0];
    if (first === undefined) return [];
    // A messageId twice in the group: the first is written, the later ones are duplicates.
    const seen = new Set<string>();
    const rows: StoredEvent[] = [];
    const owners: { item: number; pos: number }[] = [];
    const early: Set<number>[] = group.map(() => new Set<number>());
    group.forEach((queued, item) => {
      queued.rows.forEach((row, pos) => {
        if (row.dedupe && seen.has(row.messageId)) {
          early[item]?.add(pos);
          return;
        }
        if (row.dedupe) seen.add(row.messageId);
        rows.push(row);
        owners.push({ item, pos });
      });
    });
    const { duplicates } = await analyticsStore.insert(first.ctx, rows);
    for (const at of duplicates) {
      const owner = owners[at];
      if (owner !== undefined) early[owner.item]?.add(owner.pos);
    }
    return early;
  },
  maxGroup: 16,
};

/** Writes rows of one tenant through its group-commit queue; answers the positions that were duplicates. */
export function storeEvents(ctx: ServiceContext, rows: StoredEvent[]): Promise<ReadonlySet<number>> {
  return ctx.groupCommit.queue('analytics.ingest', INGEST_WRITER).submit(ctx.tenantId, { ctx, rows });
}
