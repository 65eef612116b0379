/** Messages between bench/fanout.ts and its client process (bench/lib/fanout-clients.ts). */

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
  /** svc: a session token per connection, publishers first. bare: none. */
  tokens: string[] | undefined;
  subscribers: number;
  publishers: number;
}

export interface RunCommand {
  kind: 'run';
  phases: PhasePlan[];
}

export type Command = ConnectCommand | RunCommand | { kind: 'exit' };

export interface PhaseResult {
  name: string;
  rate: number;
  published: number;
  /** Chat frames received by the subscribers (publishers' copies not counted). */
  delivered: number;
  expected: number;
  /** From the first publish to the last delivery. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Subscriber sockets the server closed during the phase. */
  closed: number;
  /** `error` frames the publishers got (e.g. rate_limited): messages that were not published. */
  refused: number;
  /** CPU the client process used during the phase, in cores (1 = one core busy): near 1, it is the bottleneck. */
  clientCpu: number;
}

export type Report =
  | { kind: 'connected'; seconds: number }
  | { kind: 'result'; phases: PhaseResult[] }
  | { kind: 'failed'; message: string };
