import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Agents } from './send.ts';

export interface EndpointAgentOptions {
  lookup: LookupFunction;
  ca?: string | Buffer | (string | Buffer)[] | undefined;
  /** Connections per endpoint: its concurrency (a request beyond it waits for a free one). */
  maxSockets: number;
  /** Endpoints whose agents are kept; the least recently used beyond it is let go. */
  maxEndpoints?: number;
}

/** An idle kept-alive connection is closed after this (the receiver may close it sooner). */
const FREE_SOCKET_TIMEOUT_MS = 30_000;

/** True when an agent has no request under way or waiting (its free sockets alone may be closed). */
function unused(agent: http.Agent): boolean {
  return Object.keys(agent.sockets).length === 0 && Object.keys(agent.requests).length === 0;
}

/**
 * Kept-alive connections per endpoint: an http and an https agent of its own, so one endpoint's
 * connections neither crowd out another's nor outnumber its concurrency. Bounded: past `maxEndpoints` the
 * least recently used endpoint's agents are let go (closed at once when idle, else once their sockets are).
 */
export class EndpointAgents {
  private readonly byEndpoint = new Map<string, Agents>();
  private readonly maxEndpoints: number;

  constructor(private readonly options: EndpointAgentOptions) {
    this.maxEndpoints = options.maxEndpoints ?? 512;
  }

  of(endpointKey: string): Agents {
    let agents = this.byEndpoint.get(endpointKey);
    if (agents !== undefined) {
      // Most recently used last.
      this.byEndpoint.delete(endpointKey);
      this.byEndpoint.set(endpointKey, agents);
      return agents;
    }
    const { lookup, maxSockets } = this.options;
    const common = { keepAlive: true, lookup, maxSockets, timeout: FREE_SOCKET_TIMEOUT_MS };
    agents = {
      http: new http.Agent(common),
      https: new https.Agent({
        ...common,
        ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
      }),
    };
    this.byEndpoint.set(endpointKey, agents);
    if (this.byEndpoint.size > this.maxEndpoints) {
      const [oldest] = this.byEndpoint;
      if (oldest !== undefined) {
        this.byEndpoint.delete(oldest[0]);
        for (const agent of [oldest[1].http, oldest[1].https]) if (unused(agent)) agent.destroy();
      }
    }
    return agents;
  }

  /** Closes every connection (the worker stopped). */
  destroy(): void {
    for (const agents of this.byEndpoint.values()) {
      agents.http.destroy();
      agents.https.destroy();
    }
    this.byEndpoint.clear();
  }
}
