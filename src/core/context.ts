import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Principal } from './auth/principal.ts';
import type { Clock } from './clock.ts';
import type { Database } from './db/database.ts';
import type { TraceContext } from './http/request-id.ts';

/** What a verb may touch: passed down explicitly, never read from globals. */
export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
}

export type Origin = 'api' | 'console' | 'realtime' | 'mcp' | 'system';

export interface ServiceContext extends Deps {
  log: FastifyBaseLogger;
  requestId: string;
  trace: TraceContext;
  origin: Origin;
  principal: Principal | undefined;
}
