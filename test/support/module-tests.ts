import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';

/**
 * Each module keeps its own security and isolation cases in its folder, `__tests__/security.ts` and
 * `__tests__/isolation.ts`; the platform suites find them from the module list, so a new module needs
 * nothing outside its folder but its line in `src/app.ts`.
 */
export type ModuleTestFile = 'security' | 'isolation';

/** Where modules not under `src/modules/<name>/` live (fixture modules), by module name. */
export type ModuleFolders = Readonly<Record<string, URL>>;

const SRC_MODULES = new URL('../../src/modules/', import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `modules` with a fixture module added, in place of a module of the same name: the polls fixture is the
 * guide's example, and someone who follows the guide has a `polls` module of their own.
 */
export function withFixture(modules: readonly ModuleManifest[], fixture: ModuleManifest): ModuleManifest[] {
  return [...modules.filter((module) => module.name !== fixture.name), fixture];
}

/** The module's folder: `src/modules/<name>/`, unless `folders` names another. */
export function moduleFolder(module: ModuleManifest, folders: ModuleFolders = {}): URL {
  return folders[module.name] ?? new URL(`${module.name}/`, SRC_MODULES);
}

/** What the suites found: the registration of each module that has the file, and the files missing. */
export interface Discovered<T> {
  found: T[];
  missing: string[];
}

/**
 * Imports `__tests__/<file>.ts` of every module and takes its export named `file` (`security` or
 * `isolation`); `accepts` checks it is a registration of that module. A module without the file, or whose
 * file exports no such registration, is listed in `missing` with the path to write.
 */
export async function discoverModuleTests<T>(
  modules: readonly ModuleManifest[],
  file: ModuleTestFile,
  accepts: (value: unknown, module: string) => value is T,
  folders: ModuleFolders = {},
): Promise<Discovered<T>> {
  const found: T[] = [];
  const missing: string[] = [];
  for (const module of modules) {
    const url = new URL(`__tests__/${file}.ts`, moduleFolder(module, folders));
    const path = fileURLToPath(url).slice(ROOT.length);
    if (!fs.existsSync(url)) {
      missing.push(`module ${module.name} has no ${path}`);
      continue;
    }
    const exported: unknown = (await import(url.href))[file];
    if (accepts(exported, module.name)) found.push(exported);
    else missing.push(`${path} exports no \`${file}\` registration of module ${module.name}`);
  }
  return { found, missing };
}

/** An object whose `module` is `module` and whose listed properties are there: a registration's shape. */
export function isRegistrationOf(value: unknown, module: string, keys: readonly string[]): value is object {
  if (typeof value !== 'object' || value === null) return false;
  return 'module' in value && value.module === module && keys.every((key) => key in value);
}
