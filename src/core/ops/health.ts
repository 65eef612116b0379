import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../db/database.ts';
import { type Migration, pendingMigrations } from '../db/migrations.ts';
import { ServiceUnavailable } from '../http/errors.ts';

const Health = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({ status: Type.Literal('ready'), database: Type.String() });

export async function healthRoutes(
  app: FastifyInstance,
  { db, migrations }: { db: Database; migrations: readonly Migration[] },
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
        summary: 'Readiness: the database answers and every migration is applied',
        tags: ['operations'],
        response: { 200: Ready, 503: { $ref: 'ErrorResponse#', description: 'Not ready' } },
      },
    },
    async () => {
      let pending: string[];
      try {
        pending = await pendingMigrations(db, migrations);
      } catch {
        throw new ServiceUnavailable('the database does not answer');
      }
      if (pending.length > 0) throw new ServiceUnavailable(`migrations pending: ${pending.join(', ')}`);
      return { status: 'ready' as const, database: db.kind };
    },
  );
}
