import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../db/database.ts';
import { type Migration, pendingMigrations } from '../db/migrations.ts';
import { ServiceUnavailable } from '../http/errors.ts';
import { errorRef } from '../http/schemas.ts';

const Health = Type.Object(
  { status: Type.Literal('ok') },
  { title: 'Health', description: 'The process answers' },
);
const Ready = Type.Object(
  {
    status: Type.Literal('ready'),
    database: Type.String({ description: 'pglite or postgres' }),
    realtime: Type.String({ description: 'memory, or redis when REDIS_URL is set (and Redis answers)' }),
  },
  { title: 'Readiness', description: 'The database and Redis answer and every migration is applied' },
);

/** A dependency readiness waits for besides the database: Redis, when configured. */
export interface ReadinessCheck {
  kind: string;
  /** Rejects (with `service_unavailable`) when the dependency does not answer. */
  ready(): Promise<void>;
}

export async function healthRoutes(
  app: FastifyInstance,
  {
    db,
    migrations,
    realtime,
    drain,
  }: {
    db: Database;
    migrations: readonly Migration[];
    realtime: ReadinessCheck;
    /** Once it began (SIGTERM), readiness answers 503 at once, before asking anything. */
    drain?: { readonly draining: boolean };
  },
): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: the process answers',
        tags: ['operations'],
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary:
          'Readiness: the instance is not draining, the database and Redis (when configured) answer, and every migration is applied',
        tags: ['operations'],
        response: { 200: Ready, 503: errorRef('Not ready') },
      },
    },
    async () => {
      if (drain?.draining === true) {
        throw new ServiceUnavailable('this instance is draining (shutting down): send traffic elsewhere');
      }
      const [database, backplane] = await Promise.allSettled([
        pendingMigrations(db, migrations),
        realtime.ready(),
      ]);
      if (database.status === 'rejected') throw new ServiceUnavailable('the database does not answer');
      const pending = database.value;
      if (pending.length > 0) throw new ServiceUnavailable(`migrations pending: ${pending.join(', ')}`);
      if (backplane.status === 'rejected') throw new ServiceUnavailable('Redis (REDIS_URL) does not answer');
      return { status: 'ready' as const, database: db.kind, realtime: realtime.kind };
    },
  );
}
