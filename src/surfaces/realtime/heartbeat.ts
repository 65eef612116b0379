import type { Timer } from '../../core/clock.ts';
import { CLOSE } from './close-codes.ts';
import type { Connection } from './connection.ts';
import type { Gateway } from './gateway.ts';

/**
 * Every `heartbeatMs`: pings every socket (a dead peer stops answering), closes the silent ones (4408),
 * and re-checks each token, so an expired or revoked one (4401) or a tenant that switched off all of its
 * modules (4403) ends the connection within one period.
 */
export class Heartbeat {
  private timer: Timer | undefined;
  private stopped = false;

  constructor(private readonly gateway: Gateway) {}

  start(): void {
    if (this.stopped) return;
    this.timer = this.gateway.clock.setTimeout(() => {
      this.beat()
        .catch((error: unknown) => this.gateway.report(error, 'realtime heartbeat'))
        .finally(() => this.start());
    }, this.gateway.limits.heartbeatMs);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private async beat(): Promise<void> {
    const now = this.gateway.clock.now();
    const checks: Promise<void>[] = [];
    for (const connection of this.gateway.open) {
      if (!connection.isOpen) continue;
      if (now - connection.lastHeardAt > this.gateway.limits.idleTimeoutMs) {
        connection.close(CLOSE.idle, 'idle timeout: nothing heard from the client');
        continue;
      }
      connection.socket.ping();
      checks.push(this.checkAccess(connection));
    }
    await Promise.all(checks);
  }

  private async checkAccess(connection: Connection): Promise<void> {
    if (!(await this.gateway.checkSession(connection))) return;
    const enabled = await this.gateway.services.enablement.enabledModules(connection.session.tenantId);
    if (![...connection.modules].some((module) => enabled.has(module))) {
      connection.close(CLOSE.forbidden, 'the tenant disabled every module of this session token');
    }
  }
}
