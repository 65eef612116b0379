import type { WebSocket } from 'ws';
import type { Identity } from '../../core/auth/identity.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { ModuleEnablement } from '../../core/modules/enablement.ts';
import { CLOSE } from './close-codes.ts';

/** What the guard needs of a connection: the gateway's JSON ones and the modules' raw ones alike. */
export interface GuardedSocket {
  readonly socket: WebSocket;
  readonly principal: Principal;
  /** The credential as sent (session token or API key), verified again on revocations and every check. */
  readonly token: string;
  readonly tenantId: string;
  readonly isOpen: boolean;
  /** No sign of life for too long, as the connection's protocol counts it. */
  isDead(now: number): boolean;
  /** Drops a dead peer (the protocol's way: a close code, or cut off). */
  dropDead(): void;
  /** A ping goes out now. */
  pinged(): void;
  /** Why the tenant's enabled modules no longer allow the connection; undefined while they do. */
  refusedBy(enabled: ReadonlySet<string>): string | undefined;
  close(code: number, reason: string): void;
}

export interface SocketGuardDeps {
  identity: Identity;
  enablement: Pick<ModuleEnablement, 'enabledModules'>;
  clock: Clock;
  report: (error: unknown, context: string) => void;
  pingIntervalMs: number;
  accessCheckIntervalMs: number;
}

const VOID = 'the credential expired or was revoked (a session token, or the API key that minted it)';

function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

/**
 * The open connections of one WebSocket route of the gateway and what keeps them honest: pings (a dead peer
 * is dropped), the token's expiry (4401 at `exp`), revocations as they reach this instance (4401 at once),
 * and a periodic check of every credential (once per credential) and of the tenant's modules (4403).
 */
export class SocketGuard<S extends GuardedSocket> {
  readonly open = new Set<S>();
  private readonly expiries = new Map<S, Timer>();
  private readonly timers: { ping?: Timer; access?: Timer } = {};
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly deps: SocketGuardDeps) {}

  start(): void {
    const { revocations } = this.deps.identity;
    // Sessions revoked by id, by actor, or with their API key: each session connection checks its token.
    this.stops.push(
      revocations.onSessionsRevoked(() => {
        for (const socket of this.open) {
          if (socket.principal.kind === 'session') void this.stillAuthorized(socket);
        }
      }),
      // An API key's own connections: closed without asking the database.
      revocations.onApiKeyRevoked((keyId) => {
        for (const socket of this.open) {
          const { principal } = socket;
          if (principal.kind === 'api_key' && principal.apiKeyId === keyId) {
            socket.close(CLOSE.unauthorized, 'the API key was revoked');
          }
        }
      }),
    );
  }

  stop(): void {
    this.stopped = true;
    this.stopTimers();
    for (const stop of this.stops.splice(0)) stop();
  }

  /** A connection opened: the token's end is the connection's end, closed at `exp` even between checks. */
  add(socket: S): void {
    this.open.add(socket);
    // The timers run while connections are open: an idle route schedules nothing.
    if (this.timers.ping === undefined) this.schedulePing();
    if (this.timers.access === undefined) this.scheduleAccess();
    const { principal } = socket;
    if (principal.kind !== 'session') return;
    const { clock } = this.deps;
    const expiry = clock.setTimeout(
      () => socket.close(CLOSE.unauthorized, 'the session token expired'),
      Math.max(0, principal.expiresAt - clock.now()),
    );
    this.expiries.set(socket, expiry);
  }

  /** The socket closed; false when it was not (or no longer) held. */
  remove(socket: S): boolean {
    this.expiries.get(socket)?.cancel();
    this.expiries.delete(socket);
    const held = this.open.delete(socket);
    if (this.open.size === 0) this.stopTimers();
    return held;
  }

  private stopTimers(): void {
    this.timers.ping?.cancel();
    this.timers.access?.cancel();
    this.timers.ping = undefined;
    this.timers.access = undefined;
  }

  /** Before a connection acts: false, and closed with 4401, once its credential is expired or revoked. */
  async stillAuthorized(socket: S): Promise<boolean> {
    try {
      await this.deps.identity.recheck(socket.principal, socket.token);
      return true;
    } catch {
      socket.close(CLOSE.unauthorized, VOID);
      return false;
    }
  }

  /** Checks every open connection's tenant (once per tenant) and credential (once per credential) now. */
  async checkAccess(): Promise<void> {
    const byTenant = groupBy(this.open, (socket) => socket.tenantId);
    await Promise.all(
      [...byTenant].map(async ([tenantId, sockets]) => {
        const enabled = await this.deps.enablement.enabledModules(tenantId);
        const allowed = sockets.filter((socket) => {
          const refusal = socket.refusedBy(enabled);
          if (refusal !== undefined) socket.close(CLOSE.forbidden, refusal);
          return refusal === undefined;
        });
        await Promise.all(
          [...groupBy(allowed, (socket) => socket.token).values()].map(async (sharing) => {
            const [first] = sharing;
            if (first === undefined) return;
            try {
              await this.deps.identity.recheck(first.principal, first.token);
            } catch {
              for (const socket of sharing) socket.close(CLOSE.unauthorized, VOID);
            }
          }),
        );
      }),
    );
  }

  /** Shutdown: every client is told to reconnect, to another instance (1012). */
  drain(): void {
    for (const socket of this.open) socket.close(CLOSE.restart, 'server restarting');
  }

  /** Every `pingIntervalMs`: dead peers are dropped, the others pinged. */
  private schedulePing(): void {
    if (this.stopped || this.open.size === 0) return;
    this.timers.ping = this.deps.clock.setTimeout(() => {
      const now = this.deps.clock.now();
      for (const socket of this.open) {
        if (!socket.isOpen) continue;
        if (socket.isDead(now)) {
          socket.dropDead();
          continue;
        }
        socket.pinged();
        socket.socket.ping();
      }
      this.schedulePing();
    }, this.deps.pingIntervalMs);
  }

  private scheduleAccess(): void {
    if (this.stopped || this.open.size === 0) return;
    const timer = this.deps.clock.setTimeout(() => {
      void this.checkAccess()
        .catch((error: unknown) => this.deps.report(error, 'checking realtime access'))
        // Not when the route went idle (and maybe busy again, with a timer of its own) meanwhile.
        .finally(() => {
          if (this.timers.access === timer) this.scheduleAccess();
        });
    }, this.deps.accessCheckIntervalMs);
    this.timers.access = timer;
  }
}
