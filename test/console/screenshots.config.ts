import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

/**
 * `npm run console:screenshots`: the `*.shots.ts` files, which save the PNGs docs/console.md shows
 * (docs/console/*.png, committed). Same service and browser as the tests.
 */
export default defineConfig({
  ...base,
  testMatch: /.*\.shots\.ts$/,
  use: { ...base.use, viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
});
