import { PLATFORM_SCOPES } from '../auth/scopes.ts';
import { type ActionDefinition, checkManifest, type ModuleManifest } from './manifest.ts';

// Every app's services carry the registry (see `Services`): declared from here, where it is defined.
declare module '../services.ts' {
  interface Services {
    /** The modules this app runs, from the one list in app.ts. */
    registry: ModuleRegistry;
  }
}

/** What a route asks of its callers, as the REST guard reads it from the route's config. */
export interface RouteAccess {
  module: string | undefined;
  scope: string | undefined;
  credentials: readonly string[];
  /** Whether the route's path names a room (`:roomId`): the one place the REST guard reads a room from. */
  roomInPath: boolean;
}

/** The modules this service runs, from the one explicit list in app.ts; everything else derives from it. */
export class ModuleRegistry {
  private readonly byName = new Map<string, ModuleManifest>();
  private readonly actions = new Map<string, { module: ModuleManifest; action: ActionDefinition }>();
  private readonly eventModules = new Map<string, string>();
  /** `kind <name>` and `prefix <prefix>` of every module's ids, each with the module that declares it. */
  private readonly idOwners = new Map<string, string>();
  /** The app's REST routes by operationId, as they registered (action-routes.ts): what actions mirror. */
  private readonly routeAccess = new Map<string, RouteAccess>();
  /** Every scope a credential may carry: `*`, each module's, and the platform's. */
  readonly knownScopes: readonly string[];

  constructor(manifests: readonly ModuleManifest[]) {
    for (const manifest of manifests) {
      checkManifest(manifest);
      if (this.byName.has(manifest.name)) throw new Error(`module ${manifest.name} registered twice`);
      this.byName.set(manifest.name, manifest);
      for (const action of manifest.actions) {
        if (this.actions.has(action.name)) throw new Error(`action ${action.name} declared twice`);
        this.actions.set(action.name, { module: manifest, action });
      }
      for (const type of manifest.eventTypes) {
        const owner = this.eventModules.get(type);
        if (owner !== undefined)
          throw new Error(`event type ${type} declared by ${owner} and ${manifest.name}`);
        this.eventModules.set(type, manifest.name);
      }
      this.claimIds(manifest);
    }
    this.knownScopes = [
      ...new Set(['*', ...manifests.flatMap((m) => m.scopes), ...Object.keys(PLATFORM_SCOPES)]),
    ];
  }

  /** Refuses an id kind or prefix that a module registered before declares too. */
  private claimIds(manifest: ModuleManifest): void {
    for (const [kind, prefix] of Object.entries(manifest.idPrefixes ?? {})) {
      for (const claim of [`id kind ${kind}`, `id prefix ${prefix}`]) {
        const owner = this.idOwners.get(claim);
        if (owner !== undefined) throw new Error(`${claim} declared by ${owner} and ${manifest.name}`);
        this.idOwners.set(claim, manifest.name);
      }
    }
  }

  /** Every module's id kinds and their prefixes. */
  get idPrefixes(): Record<string, string> {
    return Object.assign({}, ...this.modules.map((m) => m.idPrefixes ?? {}));
  }

  get modules(): ModuleManifest[] {
    return [...this.byName.values()];
  }

  /** Module names in registration order. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  module(name: string): ModuleManifest | undefined {
    return this.byName.get(name);
  }

  action(name: string): { module: ModuleManifest; action: ActionDefinition } | undefined {
    return this.actions.get(name);
  }

  allActions(): { module: ModuleManifest; action: ActionDefinition }[] {
    return [...this.actions.values()];
  }

  recordRoute(operationId: string, access: RouteAccess): void {
    this.routeAccess.set(operationId, access);
  }

  get routes(): ReadonlyMap<string, RouteAccess> {
    return this.routeAccess;
  }

  /** The REST route `action` mirrors, once the app's routes registered. */
  routeOf(action: ActionDefinition): RouteAccess | undefined {
    return this.routeAccess.get(action.route);
  }

  /** The module that declares an event type (exactly), if any; platform events belong to none. */
  moduleOfEvent(type: string): string | undefined {
    return this.eventModules.get(type);
  }

  isKnownScope(scope: string): boolean {
    return this.knownScopes.includes(scope);
  }

  /** What a session token minted for `modules` carries: the union of their session scopes, sorted. */
  sessionScopesFor(modules: readonly string[]): string[] {
    return [...new Set(modules.flatMap((m) => this.byName.get(m)?.sessionScopes ?? []))].sort();
  }

  /** The modules a new tenant starts with switched on. */
  get enabledByDefault(): string[] {
    return this.modules.filter((m) => m.enabledByDefault !== false).map((m) => m.name);
  }
}
