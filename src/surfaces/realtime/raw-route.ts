import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { Identity } from '../../core/auth/identity.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../core/clock.ts';
import { AppError } from '../../core/http/errors.ts';
import type { ModuleEnablement } from '../../core/modules/enablement.ts';
import type { InstalledHooks } from '../../core/modules/hooks.ts';
import type { ServiceMetrics } from '../../core/ops/metrics/service-metrics.ts';
import type { SocketCounts } from '../../core/ops/metrics/socket-counts.ts';
import { type AdmittedSocket, holderOf, type SocketRoute } from '../../core/realtime/socket-routes.ts';
import { CLOSE } from './close-codes.ts';
import { RawConnection } from './raw-connection.ts';
import { presentedToken } from './session.ts';
import { SocketCaps } from './socket-caps.ts';
import { SocketGuard } from './socket-guard.ts';

export interface RawRouteDeps {
  identity: Identity;
  enablement: Pick<ModuleEnablement, 'enabledModules'>;
  clock: Clock;
  log: FastifyBaseLogger;
  closeGraceMs: number;
  /** The gateway is shutting down: upgrades are refused. */
  closing: () => boolean;
  report: (error: unknown, context: string) => void;
  /** The route's counts, when metrics are on. */
  counts?: SocketCounts | undefined;
}

/** What every module's raw routes share: the gateway's guard parts, its log, and the app's metrics. */
export interface RawRoutesDeps extends Omit<RawRouteDeps, 'counts'> {
  metrics: ServiceMetrics | undefined;
}

/** The raw socket routes the modules contribute (`hooks.realtime.sockets`), in module order. */
export function rawRoutesOf(modules: readonly InstalledHooks[], deps: RawRoutesDeps): RawRoute[] {
  const { metrics, ...shared } = deps;
  return modules.flatMap(({ module, hooks }) =>
    (hooks.realtime?.sockets ?? []).map(
      (route) =>
        new RawRoute(route, {
          ...shared,
          log: deps.log.child({ module }),
          counts: metrics?.rawSocketCounts(module),
        }),
    ),
  );
}

function frameBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** What the HTTP phase of an upgrade admitted, for its socket. */
interface Admission {
  principal: Principal;
  token: string;
  tenantId: string;
  socket: AdmittedSocket;
}

/**
 * A module's raw socket route on the gateway: the upgrade is authenticated and counted against the
 * route's caps before it happens, then the connection is the gateway's to keep (SocketGuard) and the
 * module's to speak on (its session gets every frame that passed the size limit).
 */
export class RawRoute {
  readonly guard: SocketGuard<RawConnection>;
  private readonly caps: SocketCaps;
  private readonly admitted = new WeakMap<FastifyRequest, Admission>();
  private stopBackground: (() => void) | undefined;

  constructor(
    readonly route: SocketRoute,
    private readonly deps: RawRouteDeps,
  ) {
    const { limits } = route;
    this.guard = new SocketGuard({ ...deps, ...limits });
    this.caps = new SocketCaps(limits, {
      label: route.module,
      instanceFull: route.instanceFull,
      ...(route.shareSettings === undefined ? {} : { variables: route.shareSettings }),
    });
  }

  get maxFrameBytes(): number {
    return this.route.limits.maxFrameBytes;
  }

  register(app: FastifyInstance): void {
    const { route } = this;
    for (const url of route.urls) {
      app.route({
        method: 'GET',
        url,
        exposeHeadRoute: false,
        config: { module: route.module, auth: { ...route.auth, queryToken: true } },
        schema: route.schema(url),
        preHandler: (request) => this.admit(request),
        // Only a request without `Upgrade: websocket` gets here.
        handler: (request) => route.describe(request),
        wsHandler: (socket, request) => this.accept(socket, request),
      });
    }
  }

  start(): void {
    this.guard.start();
    this.stopBackground = this.route.start?.();
  }

  /** Shutdown, first step: clients are told to reconnect elsewhere (1012). */
  drain(): void {
    this.guard.stop();
    this.guard.drain();
  }

  /** Shutdown, once the connections are gone: the module's own flush. */
  async stop(): Promise<void> {
    this.stopBackground?.();
    await this.route.stop?.();
  }

  /** The HTTP phase: the module's checks, then (upgrades only) the caps and the module's admission. */
  private async admit(request: FastifyRequest): Promise<void> {
    await this.route.check?.(request);
    // Draining: the upgrade goes ahead and `accept` closes it with 1012, the reconnect code.
    if (!request.ws || this.deps.closing()) return;
    const principal = request.principal;
    const token = presentedToken(request);
    const tenantId = principal?.tenantId;
    if (principal === undefined || token === undefined || tenantId === undefined) {
      throw new AppError('unauthorized', `send a credential for the ${this.route.module} module`);
    }
    // The slots are held as long as the TCP connection: given back however it ends.
    const release = this.caps.take(tenantId, holderOf(principal));
    const tcp = request.raw.socket;
    if (tcp.closed) release();
    else tcp.once('close', release);
    const socket = await this.route.admit(request, { principal, token });
    const moduleRelease = socket.release;
    if (moduleRelease !== undefined) {
      if (tcp.closed) moduleRelease();
      else tcp.once('close', moduleRelease);
    }
    this.admitted.set(request, { principal, token, tenantId, socket });
  }

  private accept(socket: WebSocket, request: FastifyRequest): void {
    if (this.deps.closing()) {
      socket.close(CLOSE.restart, 'server restarting');
      return;
    }
    const admission = this.admitted.get(request);
    if (admission === undefined) {
      socket.close(CLOSE.unauthorized, 'a credential is required');
      return;
    }
    const { route, guard } = this;
    const connection = new RawConnection(
      socket,
      admission.principal,
      admission.token,
      admission.tenantId,
      request.log,
      {
        module: route.module,
        maxBufferedBytes: route.limits.maxBufferedBytes,
        slowReaderClose: route.slowReaderClose,
        closeGraceMs: this.deps.closeGraceMs,
        clock: this.deps.clock,
        stillAuthorized: (c) => guard.stillAuthorized(c),
        counts: this.deps.counts,
      },
    );
    guard.add(connection);
    const session = admission.socket.open(connection);
    const { maxFrameBytes } = route.limits;
    socket.on('message', (data, isBinary) => {
      connection.heard();
      if (!connection.isOpen) return;
      const frame = frameBytes(data);
      if (frame.byteLength > maxFrameBytes) {
        connection.close(CLOSE.tooBig, `frames are limited to ${maxFrameBytes} bytes`);
        return;
      }
      session.message(frame, isBinary);
    });
    socket.on('pong', () => connection.heard());
    socket.on('close', () => {
      connection.closed();
      guard.remove(connection);
      session.closed();
    });
  }
}
