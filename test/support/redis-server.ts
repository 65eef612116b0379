import { type ChildProcess, spawn } from 'node:child_process';
import { unusedPort } from './ports.ts';

/**
 * A throw-away redis-server on a free loopback port, no persistence, that a test may stop and start again
 * on the same port (Redis going away and coming back). Never the machine's Redis on 6379.
 */
export interface ThrowawayRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: no goodbye to its clients) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

async function launch(port: number): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) resolve();
    });
    exited.then(() => reject(new Error(`redis-server exited:\n${output}`)));
  });
  return { child, exited };
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await unusedPort();
  let running: { child: ChildProcess; exited: Promise<void> } | undefined = await launch(port);
  const kill = () => {
    if (running !== undefined && running.child.exitCode === null) running.child.kill('SIGKILL');
  };
  process.once('exit', kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (running === undefined) return;
      kill();
      await running.exited;
      running = undefined;
    },
    async start() {
      if (running !== undefined) return;
      running = await launch(port);
    },
  };
}
