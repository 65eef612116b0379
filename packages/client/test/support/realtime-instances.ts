import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  bounded,
  killLeftovers,
  type ScratchDatabase,
  type ServerProcess,
  scratchDatabase,
  startServer,
} from '../../../../src/modules/webhooks/__tests__/system-support.ts';
import { TEST_ENCRYPTION_KEY } from '../../../../test/helper.ts';

/**
 * Service instances as real processes (`node bin/svc.mjs start`) on one scratch PostgreSQL database and
 * one Redis, restarted with SIGTERM as a deploy does. The first start makes the demo tenant (development,
 * empty database); its API key is read from the first instance's data directory.
 */
export interface Deployment {
  apiKey: string;
  instances: ServerProcess[];
  /** SIGTERM to instance `i`, wait for its exit (code and time), start it again on a new port. */
  restart(i: number): Promise<{ exitCode: number | null; stopMs: number; startMs: number }>;
  ports(): number[];
  close(): Promise<void>;
}

const portOf = (server: ServerProcess) => Number(new URL(server.baseUrl).port);

export async function deploy(count: number): Promise<Deployment> {
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl === undefined || redisUrl === '') throw new Error('REDIS_URL is required');
  const scratch: ScratchDatabase | undefined = await scratchDatabase('sdk');
  if (scratch === undefined) throw new Error('DATABASE_URL is required');
  const prefix = `svc-sdk-${Math.random().toString(36).slice(2, 8)}:`;
  const dirs = Array.from({ length: count }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sdk-')));
  const env = (i: number): Record<string, string> => ({
    SVC_ENV: 'development',
    SVC_DATA_DIR: dirs[i] ?? '',
    DATABASE_URL: scratch.url,
    REDIS_URL: redisUrl,
    SVC_REDIS_PREFIX: prefix,
    SVC_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'warn',
  });
  const instances: ServerProcess[] = [];
  for (let i = 0; i < count; i++) instances.push(await startServer(env(i)));
  const credentials = JSON.parse(
    fs.readFileSync(path.join(dirs[0] ?? '', 'dev-credentials.json'), 'utf8'),
  ) as { apiKey: string };
  return {
    apiKey: credentials.apiKey,
    instances,
    ports: () => instances.map(portOf),
    async restart(i) {
      const server = instances[i];
      if (server === undefined) throw new Error(`no instance ${i}`);
      const stopping = Date.now();
      server.child.kill('SIGTERM');
      const exit = await bounded(server.exited, 60_000, () => `instance ${i} to exit after SIGTERM`);
      const starting = Date.now();
      instances[i] = await startServer(env(i));
      return { exitCode: exit.code, stopMs: starting - stopping, startMs: Date.now() - starting };
    },
    async close() {
      for (const server of instances) server.child.kill('SIGTERM');
      await Promise.all(instances.map((s) => bounded(s.exited, 60_000, () => 'instances to exit')));
      killLeftovers();
      await scratch.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
