import type { Identity } from '../../core/auth/identity.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { ModuleEnablement } from '../../core/modules/enablement.ts';
import type { SyncConnection } from './connection.ts';
import { SYNC_CLOSE } from './limits.ts';

export interface SyncAccessDeps {
  identity: Identity;
  enablement: Pick<ModuleEnablement, 'enabledModules'>;
  clock: Clock;
  accessCheckIntervalMs: number;
  /** The instance's open connections. */
  open: () => ReadonlySet<SyncConnection>;
  report: (error: unknown, context: string) => void;
}

const REVOKED = 'the credential was revoked or expired (a session token, or the API key that minted it)';

/**
 * Whether each connection may go on: its credential (session token or API key) not revoked nor expired,
 * and its tenant's sync module on. A revocation closes the connections it voids as soon as it reaches this
 * instance (at once where it was made, within `SVC_REVOCATION_POLL_MS` elsewhere, core/auth/revocations.ts);
 * a periodic check catches expiry of API keys and a module switched off.
 */
export class SyncAccess {
  private timer: Timer | undefined;
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly deps: SyncAccessDeps) {}

  start(): void {
    const { revocations } = this.deps.identity;
    // Sessions revoked by id, by actor, or with their API key: each session connection checks its token.
    this.stops.push(
      revocations.onSessionsRevoked(() => {
        for (const connection of this.deps.open()) {
          if (connection.session.principal.kind === 'session') void this.checkCredential(connection);
        }
      }),
    );
    // An API key's own connections: closed without asking the database.
    this.stops.push(
      revocations.onApiKeyRevoked((keyId) => {
        for (const connection of this.deps.open()) {
          const { principal } = connection.session;
          if (principal.kind === 'api_key' && principal.apiKeyId === keyId) {
            connection.close(SYNC_CLOSE.unauthorized, 'the API key was revoked');
          }
        }
      }),
    );
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    for (const stop of this.stops.splice(0)) stop();
  }

  /** A connection was opened: the periodic check runs while any is. */
  ensureScheduled(): void {
    if (this.timer === undefined) this.schedule();
  }

  /** Before a connection acts (an update is stored): false, and closed with 4401, once its credential fails. */
  async checkCredential(connection: SyncConnection): Promise<boolean> {
    const { principal, token } = connection.session;
    try {
      await this.deps.identity.recheck(principal, token);
      return true;
    } catch {
      connection.close(SYNC_CLOSE.unauthorized, REVOKED);
      return false;
    }
  }

  /** Checks every open connection's tenant (once per tenant) and credential (once per credential) now. */
  async checkAccess(): Promise<void> {
    const byTenant = new Map<string, SyncConnection[]>();
    for (const connection of this.deps.open()) {
      const tenantId = connection.session.key.tenantId;
      const list = byTenant.get(tenantId);
      if (list === undefined) byTenant.set(tenantId, [connection]);
      else list.push(connection);
    }
    await Promise.all(
      [...byTenant].map(async ([tenantId, connections]) => {
        const enabled = await this.deps.enablement.enabledModules(tenantId);
        if (!enabled.has('sync')) {
          for (const connection of connections) {
            connection.close(SYNC_CLOSE.forbidden, 'the tenant switched the sync module off');
          }
          return;
        }
        await this.checkCredentials(connections);
      }),
    );
  }

  /** One verification per distinct credential, however many connections share it. */
  private async checkCredentials(connections: readonly SyncConnection[]): Promise<void> {
    const byToken = new Map<string, SyncConnection[]>();
    for (const connection of connections) {
      const list = byToken.get(connection.session.token);
      if (list === undefined) byToken.set(connection.session.token, [connection]);
      else list.push(connection);
    }
    await Promise.all(
      [...byToken.values()].map(async (sharing) => {
        const [first] = sharing;
        if (first === undefined) return;
        try {
          await this.deps.identity.recheck(first.session.principal, first.session.token);
        } catch {
          for (const connection of sharing) connection.close(SYNC_CLOSE.unauthorized, REVOKED);
        }
      }),
    );
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.checkAccess()
        .catch((error: unknown) => this.deps.report(error, 'checking sync access'))
        .finally(() => {
          this.timer = undefined;
          if (!this.stopped && this.deps.open().size > 0) this.schedule();
        });
    }, this.deps.accessCheckIntervalMs);
  }
}
