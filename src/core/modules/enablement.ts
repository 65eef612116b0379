import type { Static, TSchema } from 'typebox';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { tenantRead } from '../db/tenant-tx.ts';
import { AppError } from '../http/errors.ts';
import type { TenantSetupStep } from '../tenancy/tenants.ts';
import { validated } from './validate.ts';

/** The setup step that switches `modules` on for a new tenant (the registry's `enabledByDefault`). */
export function enableModules(modules: readonly string[]): TenantSetupStep {
  return async (tx, tenantId) => {
    await tx.query(
      `insert into tenant_modules (tenant_id, module, enabled)
       select $1, m, true from unnest($2::text[]) as m
       on conflict (tenant_id, module) do nothing`,
      [tenantId, [...modules]],
    );
  };
}

export interface ModuleState {
  enabled: boolean;
  config: Record<string, unknown>;
}

const TTL_MS = 1_000;

/**
 * Which modules each tenant has on, cached for a second: a change made on one instance reaches the
 * others within that second, and the instance that made it sees it at once. The calls that miss the
 * cache while a tenant's read is under way share it: a crowd of a thousand sockets joining at once read
 * the tenant's modules once, where each join sent its own read and the embedded database's one
 * connection answered the last of them ~100 ms later, the joins waiting behind them (bench:fanout's crowd).
 */
export class ModuleEnablement {
  private readonly cache = new Map<string, { at: number; states: Map<string, ModuleState> }>();
  /** Each tenant's read under way, shared by the calls that miss the cache meanwhile. */
  private readonly reading = new Map<string, Promise<Map<string, ModuleState>>>();
  /** Bumped by every invalidation: a read that raced one must not cache what it read before it. */
  private invalidations = 0;
  private readonly validatedConfigs = new WeakMap<ModuleState, unknown>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The states when the cache holds them fresh, else undefined (then call `states`). */
  cachedStates(tenantId: string): Map<string, ModuleState> | undefined {
    const hit = this.cache.get(tenantId);
    return hit !== undefined && this.clock.now() - hit.at < TTL_MS ? hit.states : undefined;
  }

  states(tenantId: string): Promise<Map<string, ModuleState>> {
    const hit = this.cachedStates(tenantId);
    if (hit !== undefined) return Promise.resolve(hit);
    const under = this.reading.get(tenantId);
    if (under !== undefined) return under;
    const read = this.read(tenantId).finally(() => {
      if (this.reading.get(tenantId) === read) this.reading.delete(tenantId);
    });
    this.reading.set(tenantId, read);
    return read;
  }

  private async read(tenantId: string): Promise<Map<string, ModuleState>> {
    const invalidationsBefore = this.invalidations;
    const { rows } = await tenantRead<{ module: string; enabled: boolean; config: Record<string, unknown> }>(
      this.db,
      { tenantId },
      'select module, enabled, config from tenant_modules',
    );
    const states = new Map(rows.map((r) => [r.module, { enabled: r.enabled, config: r.config }]));
    if (this.invalidations !== invalidationsBefore) return states;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(tenantId, { at: this.clock.now(), states });
    return states;
  }

  /**
   * The tenant's configuration of `module`, validated against `schema` (the manifest's `configSchema`) with
   * defaults filled in, typed by the schema: `config(ctx.tenantId, 'polls', PollsConfig)`. Worked out once
   * per cached state (every request of a busy tenant shares it): treat it as read-only.
   */
  config<S extends TSchema>(tenantId: string, module: string, schema: S): Promise<Static<S>>;
  /** The same, typed by the caller (the older form: prefer the one typed by the schema). */
  config<T>(tenantId: string, module: string, schema: TSchema): Promise<T>;
  async config<T>(tenantId: string, module: string, schema: TSchema): Promise<T> {
    const state = (await this.states(tenantId)).get(module);
    if (state === undefined) return validated<T>(schema, {}, 'config');
    let config = this.validatedConfigs.get(state);
    if (config === undefined) {
      config = validated<T>(schema, state.config, 'config');
      this.validatedConfigs.set(state, config);
    }
    return config as T;
  }

  async enabledModules(tenantId: string): Promise<Set<string>> {
    const states = await this.states(tenantId);
    return new Set([...states].filter(([, s]) => s.enabled).map(([name]) => name));
  }

  /** A change made here: the next call reads it (a read under way is neither shared nor cached). */
  invalidate(tenantId: string): void {
    this.invalidations += 1;
    this.cache.delete(tenantId);
    this.reading.delete(tenantId);
  }

  /** 403 module_disabled naming the first of `modules` the tenant has switched off. */
  async assertEnabled(tenantId: string, modules: readonly string[]): Promise<void> {
    assertAllEnabled(await this.states(tenantId), modules);
  }
}

/** Throws 403 module_disabled naming the first of `modules` that `states` has switched off. */
export function assertAllEnabled(states: Map<string, ModuleState>, modules: readonly string[]): void {
  const disabled = modules.find((m) => states.get(m)?.enabled !== true);
  if (disabled !== undefined) {
    throw new AppError('module_disabled', `the ${disabled} module is disabled for this tenant`);
  }
}
