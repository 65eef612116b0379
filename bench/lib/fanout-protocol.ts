/** Messages between bench/fanout.ts and its client processes (bench/lib/fanout-clients.ts). */

export interface PhasePlan {
  name: string;
  /** Messages published per second, spread over the publisher connections. */
  rate: number;
  seconds: number;
}

export interface ConnectCommand {
  kind: 'connect';
  url: string;
  room: string;
  /** svc: a session token per connection of this process, publishers first. bare: none. */
  tokens: string[] | undefined;
  subscribers: number;
  /** Only one client process publishes; the others have 0. */
  publishers: number;
  /** Every `sampleEvery`-th chat frame a process receives has its latency read; the others are only counted. */
  sampleEvery: number;
}

export interface PhaseCommand {
  kind: 'phase';
  index: number;
  plan: PhasePlan;
  /** Chat frames this process's subscribers should get in the phase. */
  expected: number;
}

export type Command = ConnectCommand | PhaseCommand | { kind: 'exit' };

/** What one client process saw of one phase. */
export interface PhasePart {
  published: number;
  /** Chat frames received by this process's subscribers (publishers' copies not counted). */
  delivered: number;
  /** Latencies (ms) of the sampled frames. */
  samples: number[];
  /** Wall clock (ms, performance.timeOrigin + now) of the first publish (publishing process only) and last delivery. */
  startedAt: number;
  lastDeliveryAt: number;
  /** Subscriber sockets the server closed during the phase. */
  closed: number;
  /** `error` frames the publishers got (e.g. rate_limited): messages that were not published. */
  refused: number;
  /** CPU this process used during the phase, in cores (1 = one core busy). */
  cpu: number;
  /** How late the process's event loop ran its publishing timer, p99 (ms): a busy client delays its own stamps. */
  loopDelayP99Ms: number;
}

export type Report =
  | { kind: 'connected'; seconds: number }
  | { kind: 'phase'; index: number; part: PhasePart }
  | { kind: 'failed'; message: string };

/** The phase over every client process. */
export interface PhaseResult {
  name: string;
  rate: number;
  published: number;
  delivered: number;
  expected: number;
  /** From the first publish to the last delivery. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
  closed: number;
  refused: number;
  /** CPU of each client process during the phase, in cores. */
  clientCpu: number[];
  /** CPU of the process under test (the server) during the phase, in cores. */
  serverCpu: number;
  /** The server's CPU time (µs) per frame delivered: what the fan-out costs, however loaded the machine. */
  serverCpuUsPerDelivery: number;
  loopDelayP99Ms: number;
}
