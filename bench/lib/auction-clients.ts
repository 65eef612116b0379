// bench:auctions' clients: the bidders (closed loop or paced) and the sockets watching the hot room, each
// kind in a process of its own (`inChildren`), so that the bidders' loop is not held up by the frames
// the watchers decode. Times cross the two processes as wall-clock milliseconds (`wallNow`).

import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './join-sockets.ts';
import { loadSettings } from './load.ts';
import { RawWebSocket } from './raw-ws.ts';

export const settings = loadSettings({ connections: 50, durationSeconds: 5, warmupSeconds: 1 });

export interface ClientJob {
  baseUrl: string;
  /** Further instances the closed loop bids through too, in turn with `baseUrl` (one database). */
  alsoVia?: string[];
  apiKey: string;
  auctionIds: string[];
  /** Sockets to join into `watchRoom` before bidding (0: none). */
  watchers: number;
  watchRoom: string;
  /** Bids per second offered open-loop on the first auction (after a closed-loop warm-up); else closed loop. */
  rate?: number;
}

export interface ClientReport {
  accepted: number;
  /** Accepted during warm-up and the measured run. */
  acceptedAll: number;
  refused: number;
  errors: number;
  /** Bid -> frame, over every watcher and accepted bid (computed by the watchers' process). */
  p50Ms: number;
  p99Ms: number;
  deliveries: number;
  missing: number;
  /** The clients' own CPU (bidders and watchers) from the watchers' join to the end of the frames' tail. */
  cpuMs: number;
  /** The watchers' part of `cpuMs`. */
  watcherCpuMs: number;
}

/** Milliseconds on a clock both client processes share (performance.now() starts anew in each). */
const wallNow = () => performance.timeOrigin + performance.now();

async function api(baseUrl: string, apiKey: string, route: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** A room with a started auction in it (one day long, sudden death, increments of 1). */
export async function liveAuction(baseUrl: string, apiKey: string, roomId: string): Promise<string> {
  await api(baseUrl, apiKey, '/v1/rooms', { id: roomId });
  const auction = (await api(baseUrl, apiKey, '/v1/auctions', {
    roomId,
    title: 'bench lot',
    currency: 'EUR',
    startingPrice: 1,
    durationSeconds: 86_400,
    increments: [{ from: 0, increment: 1 }],
    suddenDeath: true,
  })) as { id: string };
  await api(baseUrl, apiKey, `/v1/auctions/${auction.id}/start`, undefined);
  return auction.id;
}

const BID_FRAME = Buffer.from('{"type":"auction.bid"');
const CLIENT_BID_ID = Buffer.from('"clientBidId":"');

/**
 * The number of the bid a frame is about (its clientBidId is a letter and the number, see `sentBids`),
 * or -1 when it is no bid frame. Read from the bytes as they came: the 100 watchers share the two cores
 * with the service, and decoding each frame to a string and searching that cost them twice the CPU.
 */
function bidNumberOf(data: Buffer): number {
  if (
    data.length < BID_FRAME.length ||
    data.compare(BID_FRAME, 0, BID_FRAME.length, 0, BID_FRAME.length) !== 0
  )
    return -1;
  const at = data.indexOf(CLIENT_BID_ID);
  if (at < 0) return -1;
  let n = 0;
  for (let i = at + CLIENT_BID_ID.length + 1; i < data.length; i++) {
    const digit = (data[i] as number) - 48;
    if (digit < 0 || digit > 9) break;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * Sockets in `roomId`; each records when it saw each bid frame (indexed by bid number, see `sentBids`).
 * They are RawWebSockets (raw-ws.ts): with `ws`, the watchers' process took a third of a core at 1,400
 * bids/s, on the two cores the service and PostgreSQL share.
 */
async function watch(baseUrl: string, apiKey: string, roomId: string, count: number) {
  const seen: number[][] = [];
  const sockets: RawWebSocket[] = [];
  const wsUrl = `${baseUrl.replace('http', 'ws')}/v1/realtime`;
  for (let i = 0; i < count; i++) {
    const { token } = (await api(baseUrl, apiKey, '/v1/runtime/connect', {
      modules: ['rooms', 'auctions'],
      actor: { type: 'end_user', id: `bench:watcher-${i}`, identityProvider: 'bench' },
    })) as { token: string };
    const arrivals: number[] = [];
    seen.push(arrivals);
    let joined: () => void = () => {};
    const join = new Promise<void>((resolve) => {
      joined = resolve;
    });
    let member = false;
    const socket = await RawWebSocket.connect(`${wsUrl}?token=${encodeURIComponent(token)}`, {
      message(frame) {
        if (member) {
          const n = bidNumberOf(frame);
          if (n >= 0) arrivals[n] = wallNow();
        } else if (frame.includes('"joined"')) {
          member = true;
          joined();
        }
      },
      close() {},
    });
    socket.sendText(JSON.stringify({ type: 'join', room: roomId, ref: 'j' }));
    await join;
    sockets.push(socket);
  }
  return {
    seen,
    close: () => {
      for (const socket of sockets) socket.terminate();
    },
  };
}

interface BidRun {
  accepted: number;
  refused: number;
  errors: number;
  /** Bid number -> when it was sent, on `wallNow` (accepted bids only). */
  sentAt: Map<number, number>;
}

/**
 * A POST on a keep-alive connection, answered with its status. `node:http` rather than `fetch`: the
 * bidders share the two cores with the service, and `fetch` cost them about twice the CPU per request.
 */
function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/**
 * Bids sent so far by this process (warm-up included): each bid's maximum and clientBidId come from it, so
 * every bid tops the ones sent before it and no clientBidId is used twice (a reused one is a retry, which
 * answers with the first result). One process bids per run, so the numbers are the run's.
 */
let sentBids = 0;

function count(run: BidRun, bidNo: number, status: number, sentAt: number): void {
  if (status === 201) {
    run.accepted += 1;
    run.sentAt.set(bidNo, sentAt);
  } else if (status === 409) run.refused += 1;
  else run.errors += 1;
}

/**
 * `connections` loops bid for `seconds` on the auctions given, round robin, each auction through every
 * instance of `baseUrls` in turn; each bid tops the last by a little.
 */
async function bidFor(
  baseUrls: readonly string[],
  apiKey: string,
  auctionIds: readonly string[],
  seconds: number,
): Promise<BidRun> {
  const run: BidRun = { accepted: 0, refused: 0, errors: 0, sentAt: new Map() };
  const until = performance.now() + seconds * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const urls = auctionIds.flatMap((id) => baseUrls.map((base) => new URL(`${base}/v1/auctions/${id}/bids`)));
  await Promise.all(
    Array.from({ length: settings.connections }, async (_, n) => {
      const actor = { type: 'end_user', id: `bench:bidder-${n}`, identityProvider: 'bench' };
      while (performance.now() < until) {
        sentBids += 1;
        const bidNo = sentBids;
        const url = urls[bidNo % urls.length] as URL;
        const sent = wallNow();
        const body = JSON.stringify({ maxAmount: 1000 + bidNo * 10, clientBidId: `b${bidNo}`, actor });
        count(run, bidNo, await post(agent, url, headers, body).catch(() => 0), sent);
      }
    }),
  );
  agent.destroy();
  return run;
}

/**
 * Open loop: bid i is due at start + i / rate and is sent then, answered or not (no coordinated omission;
 * as bench/lib/paced-load.ts, with a body of its own per bid). Its latency counts from its due time.
 */
async function bidPaced(
  baseUrl: string,
  apiKey: string,
  auctionId: string,
  rate: number,
  seconds: number,
): Promise<BidRun> {
  const run: BidRun = { accepted: 0, refused: 0, errors: 0, sentAt: new Map() };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const url = new URL(`${baseUrl}/v1/auctions/${auctionId}/bids`);
  const total = Math.round(rate * seconds);
  const pending: Promise<void>[] = [];
  const send = async (i: number, dueAt: number) => {
    const actor = { type: 'end_user', id: `bench:paced-${i % 500}`, identityProvider: 'bench' };
    sentBids += 1;
    const bidNo = sentBids;
    const body = JSON.stringify({ maxAmount: 1000 + bidNo * 10, clientBidId: `p${bidNo}`, actor });
    count(run, bidNo, await post(agent, url, headers, body).catch(() => 0), dueAt);
  };
  const startedAt = wallNow();
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((wallNow() - startedAt) * rate) / 1000) + 1);
    for (; sent < due; sent++) pending.push(send(sent, startedAt + (sent * 1000) / rate));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  agent.destroy();
  return run;
}

/** Messages from the bench's process to a client process, and the reports back. */
type ToClient =
  | { kind: 'job'; job: ClientJob }
  | { kind: 'go' }
  | { kind: 'measure'; sent: [number, number][] };
type BidderReport = Pick<ClientReport, 'accepted' | 'acceptedAll' | 'refused' | 'errors' | 'cpuMs'> & {
  kind: 'bids';
  sent: [number, number][];
};
type WatcherReport = Pick<ClientReport, 'p50Ms' | 'p99Ms' | 'deliveries' | 'missing' | 'cpuMs'> & {
  kind: 'frames';
};
type FromClient = { kind: 'ready' } | BidderReport | WatcherReport;

/** In a bidders' process: warms up, bids for the bench's duration, reports each accepted bid's send time. */
async function runBidders(job: ClientJob): Promise<BidderReport> {
  const cpuBefore = process.cpuUsage();
  const via = [job.baseUrl, ...(job.alsoVia ?? [])];
  const warmup = await bidFor(via, job.apiKey, job.auctionIds, settings.warmupSeconds);
  const run =
    job.rate === undefined
      ? await bidFor(via, job.apiKey, job.auctionIds, settings.durationSeconds)
      : await bidPaced(job.baseUrl, job.apiKey, job.auctionIds[0] ?? '', job.rate, settings.durationSeconds);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    kind: 'bids',
    accepted: run.accepted,
    acceptedAll: warmup.accepted + run.accepted,
    refused: run.refused,
    errors: run.errors,
    cpuMs: (cpu.user + cpu.system) / 1000,
    sent: [...run.sentAt],
  };
}

/**
 * In a watchers' process: joins the watchers and says `ready`; given the accepted bids' send times, lets
 * the last frames arrive and measures bid -> frame over every watcher (the list of ~600,000 latencies
 * stays here).
 */
async function runWatchers(job: ClientJob): Promise<void> {
  const watchers = await watch(job.baseUrl, job.apiKey, job.watchRoom, job.watchers);
  const cpuBefore = process.cpuUsage();
  process.send?.({ kind: 'ready' } satisfies FromClient);
  const sent = await new Promise<[number, number][]>((resolve) =>
    process.on('message', (message: ToClient) => {
      if (message.kind === 'measure') resolve(message.sent);
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const latencies: number[] = [];
  let missing = 0;
  for (const [bidNo, sentAt] of sent) {
    for (const arrivals of watchers.seen) {
      const at = arrivals[bidNo];
      if (at === undefined) missing += 1;
      else latencies.push(at - sentAt);
    }
  }
  watchers.close();
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((x, y) => x - y);
  process.send?.({
    kind: 'frames',
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    deliveries: latencies.length,
    missing,
    cpuMs: (cpu.user + cpu.system) / 1000,
  } satisfies FromClient);
}

/** The entry of a client process (`role` is its argv[2]), run by bench/auctions.ts. */
export function clientProcess(role: 'bidders' | 'watchers'): void {
  process.once('message', async (message: ToClient) => {
    if (message.kind !== 'job') return;
    if (role === 'watchers') await runWatchers(message.job);
    else {
      // Ready once loaded; bids on `go`, so that the bench's readings leave out this process's start.
      const go = new Promise<void>((resolve) =>
        process.on('message', (next: ToClient) => next.kind === 'go' && resolve()),
      );
      process.send?.({ kind: 'ready' } satisfies FromClient);
      await go;
      process.send?.(await runBidders(message.job));
    }
  });
}

function forkClient(script: string, role: 'bidders' | 'watchers', job: ClientJob): ChildProcess {
  const child = fork(script, [role], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.send({ kind: 'job', job } satisfies ToClient);
  return child;
}

function next<K extends FromClient['kind']>(
  child: ChildProcess,
  kind: K,
): Promise<Extract<FromClient, { kind: K }>> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`a client process exited (${code}) before its ${kind}`)));
    child.on('message', (message: FromClient) => {
      if (message.kind === kind) resolve(message as Extract<FromClient, { kind: K }>);
    });
  });
}

/**
 * Runs a job: its watchers (if any) in one process, its bidders in another; once both are ready (the
 * watchers joined) `onReady` runs and the bidders start; `script` is the bench's file, whose argv[2] names the role (see `clientProcess`).
 */
export async function inChildren(
  script: string,
  job: ClientJob,
  onReady?: () => void,
): Promise<ClientReport> {
  const watchers = job.watchers > 0 ? forkClient(script, 'watchers', job) : undefined;
  const bidders = forkClient(script, 'bidders', job);
  try {
    await Promise.all([next(bidders, 'ready'), watchers && next(watchers, 'ready')]);
    onReady?.();
    const bids = next(bidders, 'bids');
    bidders.send({ kind: 'go' } satisfies ToClient);
    const { sent, kind: _kind, ...counts } = await bids;
    const none = { p50Ms: Number.NaN, p99Ms: Number.NaN, deliveries: 0, missing: 0, cpuMs: 0 };
    let frames: Omit<WatcherReport, 'kind'> = none;
    if (watchers !== undefined) {
      const measured = next(watchers, 'frames');
      watchers.send({ kind: 'measure', sent } satisfies ToClient);
      frames = await measured;
    }
    return { ...counts, ...frames, cpuMs: counts.cpuMs + frames.cpuMs, watcherCpuMs: frames.cpuMs };
  } finally {
    bidders.kill();
    watchers?.kill();
  }
}
