// The client side of `npm run bench:fanout`, in its own process so it shares neither an event loop nor a
// heap with the server being measured. Driven over IPC by bench/fanout.ts (see fanout-protocol.ts).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Command, ConnectCommand, PhasePlan, PhaseResult, Report } from './fanout-protocol.ts';
import { RawWebSocket } from './raw-ws.ts';

const CHAT = Buffer.from('"type":"chat.message"');
const TEXT = Buffer.from('"text":"');
const QUOTE = 0x22;

interface Phase {
  plan: PhasePlan;
  latencies: Float64Array;
  delivered: number;
  published: number;
  startedAt: number;
  lastDeliveryAt: number;
}

let subscribers: RawWebSocket[] = [];
let publishers: WebSocket[] = [];
let room = '';
const phases: Phase[] = [];
let closedDuring = 0;
let refusedDuring = 0;

function report(message: Report): void {
  process.send?.(message);
}

/** `<phase>:<performance.now() at publish>` out of a chat frame, without parsing the whole JSON. */
function stampOf(data: Buffer): { phase: number; sentAt: number } | undefined {
  if (data.indexOf(CHAT) < 0) return undefined;
  const start = data.indexOf(TEXT);
  if (start < 0) return undefined;
  const from = start + TEXT.length;
  const end = data.indexOf(QUOTE, from);
  const [phase, sentAt] = data.toString('latin1', from, end).split(':');
  if (phase === undefined || sentAt === undefined) return undefined;
  return { phase: Number(phase), sentAt: Number(sentAt) };
}

function onDelivery(data: Buffer): void {
  const stamp = stampOf(data);
  const phase = stamp === undefined ? undefined : phases[stamp.phase];
  if (stamp === undefined || phase === undefined) return;
  const now = performance.now();
  if (phase.delivered < phase.latencies.length) phase.latencies[phase.delivered] = now - stamp.sentAt;
  phase.delivered += 1;
  phase.lastDeliveryAt = now;
}

function urlFor(command: ConnectCommand, index: number): string {
  const token = command.tokens?.[index];
  return token === undefined ? command.url : `${command.url}?token=${encodeURIComponent(token)}`;
}

/**
 * Resolves on `joined`; an `error` frame first rejects (and counts as refused). `onFrame` answers whether
 * the frame was taken as part of the join (false once joined).
 */
function joinWatcher(): { joined: Promise<void>; onFrame(data: Buffer): boolean } {
  let settle: { resolve(): void; reject(error: Error): void } | undefined;
  const joined = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let done = false;
  return {
    joined,
    onFrame(data) {
      if (done) return false;
      if (data.indexOf('"type":"joined"') >= 0) {
        done = true;
        settle?.resolve();
      } else if (data.indexOf('"type":"error"') >= 0) {
        refusedDuring += 1;
        settle?.reject(new Error(`server error: ${data.toString()}`));
      }
      return true;
    },
  };
}

/** Publishers use `ws` (a few connections, sending). */
async function openPublisher(command: ConnectCommand, index: number): Promise<WebSocket> {
  const socket = new WebSocket(urlFor(command, index), { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade refused: ${res.statusCode}`)),
    );
  });
  const watch = joinWatcher();
  socket.on('message', (data: Buffer) => {
    // After the join, an error frame means a message was not published (e.g. rate_limited).
    if (!watch.onFrame(data) && data.indexOf('"type":"error"') >= 0) refusedDuring += 1;
  });
  socket.send(JSON.stringify({ type: 'join', room }));
  await watch.joined;
  return socket;
}

/** Subscribers use the lighter RawWebSocket (1,000 connections, receiving). */
async function openSubscriber(command: ConnectCommand, index: number): Promise<RawWebSocket> {
  const watch = joinWatcher();
  const socket = await RawWebSocket.connect(urlFor(command, index), {
    message: (data) => {
      if (!watch.onFrame(data)) onDelivery(data);
    },
    close: () => {
      closedDuring += 1;
    },
  });
  socket.sendText(JSON.stringify({ type: 'join', room }));
  await watch.joined;
  return socket;
}

async function connect(command: ConnectCommand): Promise<void> {
  room = command.room;
  const started = performance.now();
  const batch = 50;
  for (let at = 0; at < command.publishers; at += batch) {
    const count = Math.min(batch, command.publishers - at);
    publishers.push(
      ...(await Promise.all(Array.from({ length: count }, (_, i) => openPublisher(command, at + i)))),
    );
  }
  for (let at = 0; at < command.subscribers; at += batch) {
    const count = Math.min(batch, command.subscribers - at);
    subscribers.push(
      ...(await Promise.all(
        Array.from({ length: count }, (_, i) => openSubscriber(command, command.publishers + at + i)),
      )),
    );
  }
  report({ kind: 'connected', seconds: (performance.now() - started) / 1000 });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Publishes at a fixed rate (due = elapsed x rate, checked every few ms), round-robin over publishers. */
async function publish(index: number, phase: Phase): Promise<void> {
  const total = Math.round(phase.plan.rate * phase.plan.seconds);
  phase.startedAt = performance.now();
  let next = 0;
  while (phase.published < total) {
    const due = Math.min(total, Math.floor(((performance.now() - phase.startedAt) * phase.plan.rate) / 1000));
    for (; phase.published < due; phase.published++) {
      const socket = publishers[next % publishers.length];
      next += 1;
      socket?.send(`{"type":"chat.send","room":"${room}","text":"${index}:${performance.now()}"}`);
    }
    await sleep(2);
  }
}

async function run(plans: PhasePlan[]): Promise<void> {
  const results: PhaseResult[] = [];
  for (const [index, plan] of plans.entries()) {
    const expected = Math.round(plan.rate * plan.seconds) * subscribers.length;
    const phase: Phase = {
      plan,
      latencies: new Float64Array(expected),
      delivered: 0,
      published: 0,
      startedAt: 0,
      lastDeliveryAt: 0,
    };
    phases[index] = phase;
    closedDuring = 0;
    refusedDuring = 0;
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    await publish(index, phase);
    // Stragglers: wait until everything arrived, or nothing arrived for 3 s.
    for (let quiet = 0; phase.delivered < expected && quiet < 30; ) {
      const before = phase.delivered;
      await sleep(100);
      quiet = phase.delivered === before ? quiet + 1 : 0;
    }
    const cpu = process.cpuUsage(cpuBefore);
    const clientCpu = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
    const sorted = phase.latencies.subarray(0, Math.min(phase.delivered, expected)).sort();
    results.push({
      name: plan.name,
      rate: plan.rate,
      published: phase.published,
      delivered: phase.delivered,
      expected,
      seconds: (phase.lastDeliveryAt - phase.startedAt) / 1000,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: percentile(sorted, 100),
      closed: closedDuring,
      refused: refusedDuring,
      clientCpu,
    });
    await sleep(500);
  }
  report({ kind: 'result', phases: results });
}

process.on('message', (command: Command) => {
  const done = (error: unknown) =>
    report({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  if (command.kind === 'connect') connect(command).catch(done);
  else if (command.kind === 'run') run(command.phases).catch(done);
  else {
    for (const socket of [...subscribers, ...publishers]) socket.terminate();
    subscribers = [];
    publishers = [];
    process.disconnect();
  }
});
