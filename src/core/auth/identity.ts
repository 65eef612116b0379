import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import type { SystemContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import { AppError } from '../http/errors.ts';
import type { PubSub } from '../realtime/index.ts';
import type { SecretEncryption } from '../secrets/encryption.ts';
import { membershipRole } from '../tenancy/tenants.ts';
import { resolveHostedUser } from '../tenancy/users.ts';
import { ApiKeyVerifier } from './api-keys.ts';
import { FailureLimiter, type SharedFailureCounts } from './failure-limiter.ts';
import { createHostedJwtVerifier, type HostedJwtVerifier } from './hosted-jwt.ts';
import type { HostedUserPrincipal, Principal, PrincipalKind } from './principal.ts';
import { PRODUCT_REQUEST_WINDOW_MS, ProductKeyGate } from './product-access.ts';
import { ProductKeyVerifier } from './product-keys.ts';
import { RevocationList } from './revocations.ts';
import { SessionTokens } from './session-tokens.ts';
import { SessionKeyRing } from './signing-keys.ts';
import { roleScopes } from './tenant-header.ts';

/** Every credential the service accepts, verified in one place. One instance per running app. */
export class Identity {
  private constructor(
    readonly apiKeys: ApiKeyVerifier,
    readonly sessions: SessionTokens,
    readonly hosted: HostedJwtVerifier,
    readonly keyRing: SessionKeyRing,
    readonly revocations: RevocationList,
    readonly failures: FailureLimiter,
    readonly productKeys: ProductKeyVerifier,
    /** Origin and request-rate limits of product keys, applied once a key verified. */
    readonly productGate: ProductKeyGate,
    private readonly system: SystemContext,
    private readonly onError: (e: unknown) => void,
    /** The longest a session token lives (ms): how long a revoked key's sessions must be refused here. */
    private readonly sessionTtlMs: number,
  ) {}

  static async create(deps: {
    config: Config;
    db: Database;
    clock: Clock;
    /** Encrypts the stored private halves of the session signing keys. */
    encryption: SecretEncryption;
    onError: (e: unknown) => void;
    /** Failure counts shared by every instance, and the pub/sub that spreads blocks (with REDIS_URL). */
    sharedFailures?: { counts: SharedFailureCounts; pubsub: PubSub };
    /** Product-key request counts shared by every instance (with REDIS_URL). */
    sharedProductRequests?: { counts: SharedFailureCounts; pubsub: PubSub };
  }) {
    const { config, db, clock } = deps;
    const keyRing = new SessionKeyRing(db, deps.encryption, clock);
    const revocations = new RevocationList(db, clock, config.revocationPollMs, deps.onError);
    const apiKeys = new ApiKeyVerifier(db, clock);
    revocations.onApiKeyRevoked((keyId) => apiKeys.evict(keyId));
    const productKeys = new ProductKeyVerifier(db, clock);
    revocations.onProductKeyChanged((keyId) => productKeys.evict(keyId));
    const shared = (counts?: { counts: SharedFailureCounts; pubsub: PubSub }) =>
      counts === undefined ? undefined : { ...counts, report: deps.onError };
    return new Identity(
      apiKeys,
      new SessionTokens(keyRing, revocations, clock),
      await createHostedJwtVerifier(config, clock),
      keyRing,
      revocations,
      new FailureLimiter(config.authFailureLimit, 60_000, clock, shared(deps.sharedFailures)),
      productKeys,
      new ProductKeyGate(
        // The limit is each key's own (passed per request); this default is never used.
        new FailureLimiter(
          Number.MAX_SAFE_INTEGER,
          PRODUCT_REQUEST_WINDOW_MS,
          clock,
          shared(deps.sharedProductRequests),
          'svc:product-keys:limited',
        ),
      ),
      { db, clock },
      deps.onError,
      config.sessionTtlSeconds * 1000,
    );
  }

  /**
   * Loads what verifying needs from the database (the session signing keys, the revocations) and starts
   * the background tasks: before the first request, once the migrations are applied.
   */
  async start(): Promise<void> {
    await this.keyRing.load();
    await this.revocations.start();
    await this.failures.start();
    await this.productGate.start();
    this.apiKeys.start(this.onError);
  }

  /** The hot path: a credential verified recently answers from memory. Undefined -> call `verify`. */
  verifyCached(kind: PrincipalKind, credential: string): Principal | undefined {
    if (kind === 'api_key') return this.apiKeys.verifyCached(credential);
    if (kind === 'session') return this.sessions.verifyCached(credential);
    if (kind === 'product') return this.productKeys.verifyCached(credential);
    return undefined;
  }

  async verify(kind: PrincipalKind, credential: string): Promise<Principal> {
    switch (kind) {
      case 'api_key':
        return this.apiKeys.verify(credential);
      case 'session':
        return this.sessions.verify(credential);
      case 'hosted_user': {
        const verified = await this.hosted.verify(credential);
        const user = await resolveHostedUser(this.system, verified);
        return { kind: 'hosted_user', tenantId: undefined, userId: user.id, scopes: [] };
      }
      case 'product':
        return this.productKeys.verify(credential);
    }
  }

  /**
   * A console user acting in `tenantId` (`X-SVC-Tenant`): their membership, read now (a removed member or
   * a changed role counts from the next request), gives the tenant and the role's scopes. Not a member (or
   * no such tenant: the two are not told apart) -> 403.
   */
  async actInTenant(user: HostedUserPrincipal, tenantId: string): Promise<HostedUserPrincipal> {
    const role = await membershipRole(this.system.db, tenantId, user.userId);
    if (role === undefined) {
      throw new AppError('forbidden', `you are not a member of tenant ${tenantId} (X-SVC-Tenant)`);
    }
    return { ...user, tenantId, role, scopes: roleScopes(role) };
  }

  /**
   * An API key was revoked through this instance: applied here at once (its cached copy, its sockets, the
   * session tokens it minted); the other instances apply its `credential_revocations` row at their next poll.
   */
  apiKeyRevoked(tenantId: string, keyId: string): void {
    const now = this.system.clock.now();
    this.revocations.apply('api_key', tenantId, keyId, now, now + this.sessionTtlMs + 60_000);
  }

  /**
   * Whether a credential admitted earlier still holds (throws as `verify` does when it does not): for
   * long-lived connections, checked again when a revocation arrives and before they act. An API key known
   * to be revoked fails without a database read; a session token also fails once its API key was revoked,
   * and a console user acting in a tenant once they are no longer its member.
   */
  async recheck(principal: Principal, credential: string): Promise<void> {
    if (
      principal.kind === 'api_key' &&
      this.revocations.isApiKeyRevoked(principal.tenantId, principal.apiKeyId)
    ) {
      throw new AppError('invalid_api_key', 'the API key was revoked');
    }
    const verified = await this.verify(principal.kind, credential);
    // A console user acting in a tenant (X-SVC-Tenant) holds the connection while a member only.
    if (
      principal.kind === 'hosted_user' &&
      principal.role !== undefined &&
      principal.tenantId !== undefined
    ) {
      if (verified.kind !== 'hosted_user') throw new AppError('invalid_token', 'the credential changed kind');
      await this.actInTenant(verified, principal.tenantId);
    }
  }

  async stop(): Promise<void> {
    await this.failures.stop();
    await this.productGate.stop();
    await this.revocations.stop();
    await this.apiKeys.stop();
  }
}
