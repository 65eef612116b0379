import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services, TenantContext } from '../../core/context.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import { consoleContext } from './guard.ts';
import { consoleRoute, TenantParams } from './route-options.ts';

/** The most event types one answer lists; the rest are summed into `otherTypes`. */
export const MAX_COUNTED_TYPES = 100;

const CountsQuery = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Count events with created_at >= since' }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'and created_at < until (default: now)' }),
    ),
  },
  { additionalProperties: false },
);
const EventCounts = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    until: Type.String({ format: 'date-time' }),
    total: Type.Integer({ description: 'Events of every type in the range' }),
    types: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() }), {
      description: `Counts by event type, most frequent first (at most ${MAX_COUNTED_TYPES} types)`,
    }),
    otherTypes: Type.Integer({ description: 'Events of the types left out of `types`' }),
  },
  {
    title: 'EventCounts',
    description: "How many events the tenant's event log holds in a time range, by type",
  },
);

export interface EventCountsResult {
  since: string;
  until: string;
  total: number;
  types: { type: string; count: number }[];
  otherTypes: number;
}

/** Counts the tenant's events with `since <= created_at < until`, by type (the console's "today"). */
export async function countEvents(
  ctx: TenantContext,
  input: { since: string; until?: string | undefined },
): Promise<EventCountsResult> {
  const since = new Date(input.since);
  const until = input.until === undefined ? new Date(ctx.clock.now()) : new Date(input.until);
  if (until.getTime() < since.getTime()) {
    throw new InvalidRequest('until is before since', [
      { field: '/querystring/until', message: 'must not be before since', code: 'range' },
    ]);
  }
  const { rows } = await tenantRead<{ type: string; count: string | number }>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select type, count(*) as count from events
        where created_at >= $1 and created_at < $2
        group by type order by count(*) desc, type`,
    [since.toISOString(), until.toISOString()],
  );
  const all = rows.map((r) => ({ type: r.type, count: Number(r.count) }));
  const types = all.slice(0, MAX_COUNTED_TYPES);
  const total = all.reduce((sum, r) => sum + r.count, 0);
  const listed = types.reduce((sum, r) => sum + r.count, 0);
  return { since: since.toISOString(), until: until.toISOString(), total, types, otherTypes: total - listed };
}

export async function eventCountRoutes(app: FastifyInstance, services: Pick<Services, 'db' | 'clock'>) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/api/console/tenants/:tenantId/event-counts',
    consoleRoute('viewer', {
      operationId: 'countConsoleEvents',
      summary: "How many events of each type the tenant's log holds in a time range (the overview's counts)",
      params: TenantParams,
      querystring: CountsQuery,
      response: { 200: EventCounts },
    }),
    async (request) => countEvents(consoleContext(request, services), request.query),
  );
}
