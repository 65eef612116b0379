import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from './series-histogram.ts';
import { SocketCounts } from './socket-counts.ts';

/** The WebSocket surfaces counted apart: `/v1/realtime`, and the modules' raw socket routes (sync). */
export type SocketSurface = 'realtime' | 'sync';

/**
 * A close code as a label: the standard codes and the 44xx codes that mirror HTTP statuses (every code
 * this service sends), else `other`, so a client choosing its own close codes cannot add series.
 */
function codeLabel(code: number): string {
  return (code >= 1000 && code <= 1015) || (code >= 4400 && code <= 4499) ? String(code) : 'other';
}

/**
 * One app's metrics: its own registry (never prom-client's global one, so two apps in one process never
 * share a series) and every `svc_*` family. No family has a tenant label: a tenant's figures come from the
 * analytics and events APIs (docs/operations.md, metrics). Built with every app; served only when the
 * internal listener is on (`SVC_METRICS_PORT`, listener.ts).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly sockets: Readonly<Record<SocketSurface, SocketCounts>> = {
    realtime: new SocketCounts(),
    sync: new SocketCounts(),
  };
  private openDocuments: () => number = () => 0;

  /** Observed on every request: a SeriesHistogram, which costs a request far less than prom-client's. */
  readonly httpDuration = new SeriesHistogram(
    'svc_http_request_duration_seconds',
    'HTTP requests by method, route template (unmatched for unknown paths) and status class',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    this.registry,
  );

  readonly webhookDeliveries = new Counter({
    name: 'svc_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded by this instance, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly bids = new Counter({
    name: 'svc_auction_bids_total',
    help: 'Auction bids answered by this instance: accepted or refused',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly paymentTransitions = new Counter({
    name: 'svc_payment_transitions_total',
    help: 'Payment status transitions committed by this instance, by the status entered',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly analyticsEvents = new Counter({
    name: 'svc_analytics_events_total',
    help: 'Analytics events received by this instance: accepted, duplicate (deduplicated by messageId) or rejected',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly syncUpdateBytes = new Counter({
    name: 'svc_sync_update_bytes_total',
    help: 'Bytes of Yjs updates received from sync clients by this instance',
    registers: [this.registry],
  });

  readonly groupSizes = new Histogram({
    name: 'svc_group_commit_group_size',
    help: 'Writes per group-commit transaction, by queue (chat.send, auctions.bid)',
    labelNames: ['queue'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });

  /** A group-commit queue formed a group (GroupCommits' observer). */
  readonly observeGroup = (queue: string, size: number): void => this.groupSizes.observe({ queue }, size);

  constructor() {
    const { realtime, sync } = this.sockets;
    const surfaces = Object.entries(this.sockets) as [SocketSurface, SocketCounts][];
    new Gauge({
      name: 'svc_realtime_connections',
      help: 'Open /v1/realtime WebSocket connections on this instance',
      registers: [this.registry],
      collect() {
        this.set(realtime.open);
      },
    });
    new Gauge({
      name: 'svc_sync_connections',
      help: 'Open /v1/sync WebSocket connections on this instance',
      registers: [this.registry],
      collect() {
        this.set(sync.open);
      },
    });
    const read = (name: string, help: string, value: (counts: SocketCounts) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['surface'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const [surface, counts] of surfaces) this.inc({ surface }, value(counts));
        },
      });
    read('svc_websocket_frames_received_total', 'WebSocket frames received, by surface', (c) => c.framesIn);
    read('svc_websocket_frames_sent_total', 'WebSocket frames sent, by surface', (c) => c.framesOut);
    read(
      'svc_websocket_slow_consumer_drops_total',
      'WebSocket connections closed because the client read too slowly, by surface',
      (c) => c.slowConsumerDrops,
    );
    new Counter({
      name: 'svc_websocket_closes_total',
      help: 'WebSocket connections ended, by surface and close code (1006: cut off without a close frame)',
      labelNames: ['surface', 'code'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [surface, counts] of surfaces) {
          for (const [code, n] of counts.closes) this.inc({ surface, code: codeLabel(code) }, n);
        }
      },
    });
    const openDocuments = () => this.openDocuments();
    new Gauge({
      name: 'svc_sync_documents_open',
      help: 'Sync documents held in memory by this instance',
      registers: [this.registry],
      collect() {
        this.set(openDocuments());
      },
    });
  }

  /** The counts of a module's raw socket route: sync's; undefined for a route no family counts. */
  rawSocketCounts(module: string): SocketCounts | undefined {
    return module === 'sync' ? this.sockets.sync : undefined;
  }

  /** One ingest call's answer (analytics): its accepted, duplicate and rejected events. */
  analyticsIngested(accepted: number, duplicates: number, rejected: number): void {
    this.analyticsEvents.inc({ result: 'accepted' }, accepted);
    this.analyticsEvents.inc({ result: 'duplicate' }, duplicates);
    this.analyticsEvents.inc({ result: 'rejected' }, rejected);
  }

  /** The sync module's hub tells how many documents it holds open. */
  watchOpenDocuments(read: () => number): void {
    this.openDocuments = read;
  }

  /** The process defaults (CPU, memory, event loop lag, GC, handles), as `svc_process_*` and `svc_nodejs_*`. */
  collectProcessDefaults(): void {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  /** Prometheus text of every family, collected now. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
