import { createTestTenant } from '../../../../test/factories.ts';
import { testConfig } from '../../../../test/helper.ts';
import { createRoom } from '../../../../test/realtime-gateway/fixtures.ts';
import {
  type Deployment,
  deployment,
  type Instance,
  startInstance,
} from '../../../../test/realtime-gateway/support.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import type { Database } from '../../../core/db/database.ts';
import { openDatabase } from '../../../runtime.ts';
import { liveAuction } from './support.ts';

/**
 * Two app instances on one database (each its own PostgreSQL pool with DATABASE_URL; one PGlite
 * otherwise) and one backplane.
 */
export interface TwoInstances {
  a: Instance;
  b: Instance;
  /** b's own pool on PostgreSQL; undefined on PGlite, where both share a's database. */
  ownDb: Database | undefined;
}

/** Starts two instances before the file's tests and closes them after. */
export function twoInstances(): () => TwoInstances {
  return suiteFixture(
    'two auction instances',
    async (): Promise<TwoInstances & { shared: Deployment }> => {
      const shared = deployment();
      const a = await startInstance({ deployment: shared });
      const config = testConfig();
      const ownDb = config.databaseUrl === undefined ? undefined : await openDatabase(config);
      const b = await startInstance({ deployment: shared, db: ownDb ?? a.db });
      return { shared, a, b, ownDb };
    },
    async ({ shared, a, b, ownDb }) => {
      await Promise.all([a.close(), b.close()]);
      await ownDb?.close();
      await shared.cleanup();
    },
  );
}

/** A new tenant's live auction on instance a: from 100, by 10, for an hour. */
export async function hourLongAuction(a: Instance) {
  const { apiKey } = await createTestTenant(a);
  const roomId = await createRoom(a, apiKey);
  const auction = await liveAuction(a, apiKey, {
    roomId,
    startingPrice: 100,
    increments: [{ from: 0, increment: 10 }],
    durationSeconds: 3600,
  });
  return { apiKey, auction };
}
