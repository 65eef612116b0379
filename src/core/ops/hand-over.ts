import type { Workers } from '../modules/hooks.ts';

/**
 * The workers' part of a drain: they stop taking work, let what is in flight finish for up to `graceMs`,
 * and release the rest (a webhook attempt aborted is recorded `interrupted` and its row freed at once).
 * Then the other instances' workers are woken, so they take what was released now rather than at their
 * next poll (a stopped worker passes its wake on to the other instances).
 */
export async function handOverWork(
  workers: Workers,
  modules: readonly string[],
  graceMs: number,
): Promise<void> {
  await workers.stop({ graceMs });
  for (const module of modules) workers.wake(module);
}
