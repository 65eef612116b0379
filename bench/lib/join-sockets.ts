// Many WebSocket clients of one tenant, each its own actor with its own session token, joining rooms over
// loopback: the client side of `npm run bench:startup`'s join and idle-memory figures.
// BENCH_PRESENCE_DIFF (1): the joins ask for presence changes batched, one `presence.diff` per room per
// tick (the `join` field `presenceDiff`); 0 joins as older clients do, one `presence.*` frame per change.
import { performance } from 'node:perf_hooks';
import { RawWebSocket } from './raw-ws.ts';

const DEADLINE_MS = 120_000;
const JOINED = Buffer.from('{"type":"joined"');
const ERROR = Buffer.from('{"type":"error"');
const PRESENCE = Buffer.from('{"type":"presence.');

/** Whether the joins ask for `presence.diff` (BENCH_PRESENCE_DIFF, on unless `0`). */
export const PRESENCE_DIFF = process.env.BENCH_PRESENCE_DIFF !== '0';

/** The presence frames the sockets of this process received, and their bytes. */
export const presenceReceived = { frames: 0, bytes: 0 };

/** A prefix test that does not scan the frame (a `joined` of a full room is large). */
function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

export interface JoinedSocket {
  socket: RawWebSocket;
  /** Milliseconds from sending `join` to receiving `joined`. */
  joinMs: number;
}

async function post(baseUrl: string, apiKey: string, route: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

export async function createRoom(baseUrl: string, apiKey: string, id: string): Promise<void> {
  await post(baseUrl, apiKey, '/v1/rooms', { id });
}

/** One session token per actor (rooms, presence, chat), minted `parallel` at a time. */
export async function mintTokens(
  baseUrl: string,
  apiKey: string,
  count: number,
  parallel = 16,
): Promise<string[]> {
  const tokens: string[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < count; i = next++) {
        const answer = (await post(baseUrl, apiKey, '/v1/runtime/connect', {
          modules: ['rooms', 'presence', 'chat'],
          actor: { type: 'end_user', id: `bench:user-${i}`, identityProvider: 'bench' },
        })) as { token: string };
        tokens[i] = answer.token;
      }
    }),
  );
  return tokens;
}

interface Pending {
  socket: RawWebSocket;
  joined: Promise<number>;
  join(): void;
}

/** Opens (upgrades) a socket; `join()` sends the join frame and `joined` resolves with its latency. */
async function open(baseUrl: string, token: string, room: string): Promise<Pending> {
  let settle: { resolve(ms: number): void; reject(error: Error): void } | undefined;
  const joined = new Promise<number>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let sentAt = 0;
  let done = false;
  const url = `${baseUrl.replace(/^http/, 'ws')}/v1/realtime?token=${encodeURIComponent(token)}`;
  const socket = await RawWebSocket.connect(url, {
    message(data) {
      if (startsWith(data, PRESENCE)) {
        presenceReceived.frames += 1;
        presenceReceived.bytes += data.length;
      }
      if (done) return;
      if (startsWith(data, JOINED)) {
        done = true;
        settle?.resolve(performance.now() - sentAt);
      } else if (startsWith(data, ERROR)) {
        done = true;
        settle?.reject(new Error(`join refused: ${data.toString()}`));
      }
    },
    close() {
      if (!done) settle?.reject(new Error('socket closed before joined'));
      done = true;
    },
  });
  return {
    socket,
    joined,
    join() {
      sentAt = performance.now();
      socket.sendText(
        JSON.stringify({ type: 'join', room, ...(PRESENCE_DIFF ? { presenceDiff: true } : {}) }),
      );
    },
  };
}

async function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done in ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens one socket per token (upgrades `batch` at a time), then sends every `join` at once: the join
 * latencies are those of a crowd arriving together.
 */
export async function joinAtOnce(
  baseUrl: string,
  tokens: readonly string[],
  room: string,
  batch = 50,
): Promise<JoinedSocket[]> {
  return (await openForJoins(baseUrl, tokens, room, batch)).joinAll();
}

/**
 * Opens one socket per token (upgrades `batch` at a time) and answers how to send every `join` at once
 * (a crowd arriving together), resolving once all were joined.
 */
export async function openForJoins(
  baseUrl: string,
  tokens: readonly string[],
  room: string,
  batch = 50,
): Promise<{ sockets: RawWebSocket[]; joinAll(): Promise<JoinedSocket[]> }> {
  const pending: Pending[] = [];
  for (let at = 0; at < tokens.length; at += batch) {
    const slice = tokens.slice(at, at + batch);
    pending.push(...(await withDeadline(Promise.all(slice.map((t) => open(baseUrl, t, room))), 'upgrade')));
  }
  return {
    sockets: pending.map((p) => p.socket),
    async joinAll() {
      for (const p of pending) p.join();
      const latencies = await withDeadline(Promise.all(pending.map((p) => p.joined)), 'joins');
      return pending.map((p, i) => ({ socket: p.socket, joinMs: latencies[i] ?? Number.NaN }));
    },
  };
}

/** Opens and joins `batch` sockets at a time (a steady arrival rather than a crowd). */
export async function joinInBatches(
  baseUrl: string,
  tokens: readonly string[],
  room: string,
  batch = 50,
): Promise<JoinedSocket[]> {
  const joined: JoinedSocket[] = [];
  for (let at = 0; at < tokens.length; at += batch) {
    joined.push(...(await joinAtOnce(baseUrl, tokens.slice(at, at + batch), room, batch)));
  }
  return joined;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
