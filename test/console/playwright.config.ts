import { defineConfig } from '@playwright/test';

/**
 * The console's browser tests (`npm run test:console`): Debian's chromium (installed by .ci/run when
 * missing; Playwright never downloads a browser here) against one service the run starts (service.ts).
 */
export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  globalSetup: './service.ts',
  workers: 2,
  fullyParallel: true,
  reporter: 'list',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: process.env.CI !== undefined,
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: '/usr/lib/chromium/chromium', args: ['--no-sandbox'] },
    trace: 'retain-on-failure',
  },
});
