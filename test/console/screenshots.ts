import path from 'node:path';
import type { Page } from '@playwright/test';

const DOCS = path.resolve(import.meta.dirname, '../../docs/console');

/** Saves what the page shows as docs/console/<name>.png (a `*.shots.ts` file calls it; see docs/console.md). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`screenshot names are kebab-case: ${name}`);
  // No caret, focus ring or animation in a committed picture: the same page makes the same file.
  await page.evaluate('document.activeElement instanceof HTMLElement && document.activeElement.blur()');
  await page.screenshot({ path: path.join(DOCS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}
