// The client side of `npm run bench:fanout`, in processes of their own so they share neither an event
// loop nor a heap with the server being measured. Driven over IPC by bench/fanout.ts (see
// fanout-protocol.ts); each process holds a share of the subscribers, one of them the publishers too.
//
// Per frame a subscriber does as little as it can: RawWebSocket frames it out of a shared read buffer, and
// a chat frame is recognised by one byte (`{"type":"c…`) and counted. Only every `sampleEvery`-th one has
// its stamp read (a prefix scan for `"text":"<phase>:<publish time>"`), so measuring does not take the
// core the server needs. Publish times are wall-clock milliseconds (performance.timeOrigin + now), which
// the processes of one machine share.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Command, ConnectCommand, PhaseCommand, PhasePart, Report } from './fanout-protocol.ts';
import { RawWebSocket } from './raw-ws.ts';

const TYPE_AT = '{"type":"'.length;
const C = 0x63;
const TEXT = Buffer.from('"text":"');
const QUOTE = 0x22;
const COLON = 0x3a;

let subscribers: RawWebSocket[] = [];
let publishers: WebSocket[] = [];
let room = '';
let sampleEvery = 10;
let closedDuring = 0;
let refusedDuring = 0;
/** The phase being measured (-1: none). */
let current = -1;
let delivered = 0;
let seen = 0;
let lastDeliveryAt = 0;
let samples: number[] = [];

const now = () => performance.timeOrigin + performance.now();

function report(message: Report): void {
  process.send?.(message);
}

/** Reads `<phase>:<publish time>` of a sampled chat frame; the latency when the phase is the current one. */
function sample(data: Buffer, at: number): void {
  const start = data.indexOf(TEXT, TYPE_AT);
  if (start < 0) return;
  const from = start + TEXT.length;
  const colon = data.indexOf(COLON, from);
  const end = data.indexOf(QUOTE, colon);
  if (colon < 0 || end < 0) return;
  if (Number(data.toString('latin1', from, colon)) !== current) return;
  samples.push(at - Number(data.toString('latin1', colon + 1, end)));
}

function onDelivery(data: Buffer): void {
  if (current < 0 || data[TYPE_AT] !== C) return;
  delivered += 1;
  seen += 1;
  lastDeliveryAt = now();
  if (seen >= sampleEvery) {
    seen = 0;
    sample(data, lastDeliveryAt);
  }
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

/** Subscribers use the lighter RawWebSocket (hundreds of connections, receiving). */
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
  sampleEvery = Math.max(1, command.sampleEvery);
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

/** Publishes at a fixed rate (due = elapsed x rate, checked every few ms), round-robin over publishers. */
async function publish(command: PhaseCommand): Promise<number> {
  const { plan, index } = command;
  const total = Math.round(plan.rate * plan.seconds);
  const startedAt = performance.now();
  let published = 0;
  while (published < total) {
    const due = Math.min(total, Math.floor(((performance.now() - startedAt) * plan.rate) / 1000));
    for (; published < due; published++) {
      const socket = publishers[published % publishers.length];
      socket?.send(`{"type":"chat.send","room":"${room}","text":"${index}:${now()}"}`);
    }
    await sleep(2);
  }
  return published;
}

async function phase(command: PhaseCommand): Promise<void> {
  const { plan, index, expected } = command;
  current = index;
  delivered = 0;
  seen = 0;
  lastDeliveryAt = 0;
  samples = [];
  closedDuring = 0;
  refusedDuring = 0;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const startedAt = now();
  const published = publishers.length > 0 ? await publish(command) : 0;
  // Stragglers: wait until everything arrived, or nothing arrived for 3 s after the publishing time.
  const publishEnd = wallBefore + plan.seconds * 1000;
  for (let quiet = 0; delivered < expected && quiet < 30; ) {
    const before = delivered;
    await sleep(100);
    quiet = delivered === before && performance.now() > publishEnd ? quiet + 1 : 0;
  }
  const cpu = process.cpuUsage(cpuBefore);
  loop.disable();
  current = -1;
  const part: PhasePart = {
    published,
    delivered,
    samples,
    startedAt,
    lastDeliveryAt,
    closed: closedDuring,
    refused: refusedDuring,
    cpu: (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore),
    loopDelayP99Ms: loop.percentile(99) / 1e6,
  };
  report({ kind: 'phase', index, part });
}

process.on('message', (command: Command) => {
  const done = (error: unknown) =>
    report({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  if (command.kind === 'connect') connect(command).catch(done);
  else if (command.kind === 'phase') phase(command).catch(done);
  else {
    for (const socket of [...subscribers, ...publishers]) socket.terminate();
    subscribers = [];
    publishers = [];
    process.disconnect();
  }
});
