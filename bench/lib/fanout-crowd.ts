// The crowd of `npm run bench:fanout` (BENCH_FANOUT_CROWD), in a process of its own: many sockets of one
// tenant, upgraded first, then every `join` of one room sent at the same moment; meanwhile another tenant
// asks `GET /v1/me` at a steady rate, to show whether the crowd stalls the instance for everyone else.
// The sockets stay open (idle members) until told to exit, so the bench can read the server's memory.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openForJoins, PRESENCE_DIFF, percentile, presenceReceived } from './join-sockets.ts';
import type { RawWebSocket } from './raw-ws.ts';

export interface CrowdCommand {
  kind: 'crowd';
  baseUrl: string;
  room: string;
  tokens: string[];
  /** Another tenant's API key, for `GET /v1/me` during the joins. */
  otherApiKey: string;
  /** `GET /v1/me` per second, paced (open loop). */
  meRate: number;
}

export interface CrowdResult {
  kind: 'crowd';
  joins: number;
  joinP50Ms: number;
  joinP99Ms: number;
  joinMaxMs: number;
  /** From the first join sent to the last `joined` received. */
  joinsSeconds: number;
  me: number;
  meFailed: number;
  meP50Ms: number;
  meP99Ms: number;
  meMaxMs: number;
  /** CPU of this process during the joins, in cores. */
  cpu: number;
  /** Whether the joins asked for `presence.diff` (BENCH_PRESENCE_DIFF). */
  presenceDiff: boolean;
  /** Presence frames the crowd received until the last joined, and their bytes. */
  presenceFrames: number;
  presenceBytes: number;
}

let sockets: RawWebSocket[] = [];

/** `GET /v1/me` at `rate` per second until `stop` says so; each request's latency (or failure). */
async function meLoad(
  baseUrl: string,
  apiKey: string,
  rate: number,
  stop: () => boolean,
): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let sent = 0; !stop(); ) {
    const due = Math.floor(((performance.now() - started) * rate) / 1000);
    for (; sent < due; sent++) {
      const at = performance.now();
      const request = fetch(`${baseUrl}/v1/me`, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(30_000),
      })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) ms.push(performance.now() - at);
          else failed += 1;
        })
        .catch(() => {
          failed += 1;
        })
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return { ms, failed };
}

async function crowd(command: CrowdCommand): Promise<CrowdResult> {
  const crowdOf = await openForJoins(command.baseUrl, command.tokens, command.room);
  sockets = crowdOf.sockets;
  // A few requests first, so the other tenant's key is verified and its connection open before the crowd.
  for (let i = 0; i < 5; i++) {
    await fetch(`${command.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${command.otherApiKey}` } });
  }
  let done = false;
  const load = meLoad(command.baseUrl, command.otherApiKey, command.meRate, () => done);
  await sleep(200);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const joined = await crowdOf.joinAll().finally(() => {
    done = true;
  });
  const joinsSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const received = { ...presenceReceived };
  const me = await load;
  const joinMs = joined.map((j) => j.joinMs);
  return {
    kind: 'crowd',
    joins: joined.length,
    joinP50Ms: percentile(joinMs, 50),
    joinP99Ms: percentile(joinMs, 99),
    joinMaxMs: Math.max(...joinMs),
    joinsSeconds,
    me: me.ms.length,
    meFailed: me.failed,
    meP50Ms: percentile(me.ms, 50),
    meP99Ms: percentile(me.ms, 99),
    meMaxMs: me.ms.length === 0 ? Number.NaN : Math.max(...me.ms),
    cpu: (cpu.user + cpu.system) / 1000 / (joinsSeconds * 1000),
    presenceDiff: PRESENCE_DIFF,
    presenceFrames: received.frames,
    presenceBytes: received.bytes,
  };
}

process.on('message', (command: CrowdCommand | { kind: 'exit' }) => {
  if (command.kind === 'crowd') {
    crowd(command).then(
      (result) => process.send?.(result),
      (error: unknown) =>
        process.send?.({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  for (const socket of sockets) socket.terminate();
  sockets = [];
  process.disconnect();
});
