import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { Received, Receiver } from './support.ts';

/**
 * System tests: the real `svc` process (or whole app instances) with real HTTP receivers on loopback.
 * Waits are bounded only to turn a hang into a failure; they assert nothing about speed.
 */
export const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');

// Every process this module starts, killed on the way out whatever happened to the test.
const children = new Set<ChildProcess>();
export function killLeftovers(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.once('exit', killLeftovers);

export function bounded<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${what()}`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown hook runs, leases and in-flight attempts are left as they are. */
  kill(): Promise<void>;
}

/** `node bin/svc.mjs start` on a free loopback port with exactly these variables (plus PATH and HOME). */
export async function startServer(env: Record<string, string>, startupMs = 120_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', ...env },
  });
  children.add(child);
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) wake();
    });
  });
  const listening = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = text.match(/svc listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match?.[1] !== undefined) return resolve(match[1]);
      if (done) return reject(new Error(`svc exited before listening:\n${text}`));
      waiters.push(check);
    };
    check();
  });
  const baseUrl = await bounded(listening, startupMs, () => `svc start to listen:\n${text}`);
  return {
    child,
    baseUrl,
    output: () => text,
    exited,
    async kill() {
      if (!done) child.kill('SIGKILL');
      await bounded(exited, 30_000, () => 'svc to die after SIGKILL');
    },
  };
}

/** A JSON client for one base URL and API key; returns status and parsed body, never throws on 4xx/5xx. */
export interface Api {
  baseUrl: string;
  request<T = Record<string, unknown>>(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; text: string }>;
}

export function apiClient(baseUrl: string, apiKey: string): Api {
  return {
    baseUrl,
    async request<T>(method: string, url: string, body?: unknown) {
      const res = await fetch(`${baseUrl}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let parsed: unknown = {};
      try {
        parsed = text === '' ? {} : JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed as T, text };
    },
  };
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'delivered' | 'dead_lettered';
  attemptCount: number;
}

/** Every delivery of an endpoint through `GET /v1/webhooks/:id/deliveries`, following the cursor. */
export async function allDeliveries(api: Api, endpointId: string): Promise<DeliveryView[]> {
  const all: DeliveryView[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await api.request<{ data: DeliveryView[]; nextCursor: string | null }>(
      'GET',
      `/v1/webhooks/${endpointId}/deliveries?limit=100${query}`,
    );
    if (res.status !== 200) throw new Error(`listing deliveries of ${endpointId}: ${res.status} ${res.text}`);
    all.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor !== null);
  return all;
}

export async function createEndpoint(
  api: Api,
  input: { url: string; secret: string; eventTypes: string[] | null },
): Promise<string> {
  const res = await api.request<{ id: string }>('POST', '/v1/webhooks', input);
  if (res.status !== 201) throw new Error(`POST /v1/webhooks: ${res.status} ${res.text}`);
  return res.body.id;
}

/** The delivery id a receiver saw on a request (X-SVC-Delivery). */
export function deliveryIdOf(received: Received): string {
  const header = received.headers['x-svc-delivery'];
  return typeof header === 'string' ? header : '';
}

/** How many requests a receiver got per delivery id. */
export function receiptCounts(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of receiver.received) {
    const id = deliveryIdOf(entry);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of its own on the DATABASE_URL server, so workers of other test files (which claim any
 * tenant's due deliveries, with their own retry schedules) cannot touch this test's rows. Undefined
 * when DATABASE_URL is unset; throws when the role may not create databases.
 */
export async function scratchDatabase(label: string): Promise<ScratchDatabase | undefined> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') return undefined;
  const name = `svc_test_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
