import type { ActionDefinition, ModuleManifest } from './manifest.ts';

/** The modules this service runs, from the one explicit list in app.ts. */
export class ModuleRegistry {
  private readonly byName = new Map<string, ModuleManifest>();
  private readonly actions = new Map<string, { module: ModuleManifest; action: ActionDefinition }>();
  private readonly eventPrefixes: { prefix: string; module: string }[] = [];

  constructor(manifests: readonly ModuleManifest[]) {
    for (const manifest of manifests) {
      if (this.byName.has(manifest.name)) throw new Error(`module ${manifest.name} registered twice`);
      this.byName.set(manifest.name, manifest);
      for (const action of manifest.actions) {
        if (this.actions.has(action.name)) throw new Error(`action ${action.name} declared twice`);
        this.actions.set(action.name, { module: manifest, action });
      }
      for (const type of manifest.eventTypes) {
        this.eventPrefixes.push({ prefix: type, module: manifest.name });
      }
    }
  }

  get modules(): ModuleManifest[] {
    return [...this.byName.values()];
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

  /** The module that declares an event type (exactly), if any; platform events belong to none. */
  moduleOfEvent(type: string): string | undefined {
    return this.eventPrefixes.find((e) => e.prefix === type)?.module;
  }
}
