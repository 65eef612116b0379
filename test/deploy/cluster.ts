import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';

/**
 * The processes of `npm run test:deploy`: a fresh database on the machine's PostgreSQL, svc instances as
 * `svc start` runs them, HAProxy in front with deploy/haproxy.cfg. Everything started here is stopped, and
 * the database dropped, by `cleanup()`, which the caller runs on every way out.
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: process.env.PGPORT ?? '5432' };
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Instance {
  name: string;
  port: number;
  child: ChildProcess;
  /** Every line it wrote (pino JSON lines and the start banner). */
  lines: string[];
  exited: Promise<number | null>;
}

export class Cluster {
  readonly database = `svc_deploy_${Date.now()}_${randomBytes(3).toString('hex')}`;
  private pgUser = 'postgres';
  private created = false;
  private readonly children = new Set<ChildProcess>();
  readonly env: NodeJS.ProcessEnv;

  constructor(settings: Record<string, string>) {
    this.env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVC_ENV: 'production',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REDIS_URL,
      SVC_REDIS_PREFIX: `svc-deploy:${randomBytes(4).toString('hex')}:`,
      // One key for every instance (they read each other's encrypted secrets).
      SVC_ENCRYPTION_KEY: `deploy:${randomBytes(32).toString('base64')}`,
      SVC_TRUST_PROXY: 'loopback',
      ...settings,
    };
  }

  get databaseUrl(): string {
    return `postgres://${this.pgUser}@${PG.host}:${PG.port}/${this.database}`;
  }

  createDatabase(): void {
    for (const user of ['postgres', 'root']) {
      try {
        this.psql(user, `create database ${this.database}`);
        this.pgUser = user;
        this.created = true;
        this.env.DATABASE_URL = this.databaseUrl;
        return;
      } catch {}
    }
    throw new Error(`cannot create database ${this.database} on ${PG.host}:${PG.port} as postgres or root`);
  }

  private psql(user: string, sql: string): void {
    execFileSync(
      'psql',
      ['-h', PG.host, '-p', PG.port, '-U', user, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql],
      {
        stdio: 'pipe',
      },
    );
  }

  /** `svc <args>` to the end, its stdout. */
  command(args: string[]): string {
    return execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: this.env, encoding: 'utf8' });
  }

  /** `svc start` on `port`; resolves once it listens. */
  async start(name: string, port: number, timeoutMs = 180_000): Promise<Instance> {
    const child = spawn(process.execPath, [BIN, 'start'], {
      cwd: ROOT,
      env: { ...this.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    const lines: string[] = [];
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const parts = text.split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const instance = { name, port, child, lines, exited };
    try {
      await this.until(
        () => lines.some((line) => line.startsWith('svc listening on')),
        timeoutMs,
        () => `${name} to listen on ${port}:\n${lines.slice(-20).join('\n')}`,
        exited,
      );
    } catch (error) {
      // A start given up on must not hold the port for the next attempt.
      child.kill('SIGKILL');
      await exited;
      throw error;
    }
    return instance;
  }

  /** HAProxy with deploy/haproxy.cfg in the foreground. */
  haproxy(env: Record<string, string>): ChildProcess {
    const child = spawn('haproxy', ['-db', '-f', path.join(ROOT, 'deploy/haproxy.cfg')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    this.children.add(child);
    return child;
  }

  async until(
    done: () => boolean | Promise<boolean>,
    timeoutMs: number,
    what: () => string,
    exited?: Promise<unknown>,
  ): Promise<void> {
    let gone = false;
    void exited?.then(() => {
      gone = true;
    });
    const end = Date.now() + timeoutMs;
    while (!(await done())) {
      if (gone) throw new Error(`exited while waiting for ${what()}`);
      if (Date.now() > end) throw new Error(`gave up waiting for ${what()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Kills what is still running and drops the database; safe to call more than once. */
  async cleanup(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.children.clear();
    if (this.created) {
      this.created = false;
      try {
        this.psql(this.pgUser, `drop database if exists ${this.database} with (force)`);
      } catch (error) {
        process.stderr.write(`could not drop database ${this.database}: ${(error as Error).message}\n`);
      }
    }
  }
}
