#!/usr/bin/env node
// The web console's build (console/, a Preact single-page app), run by `npm run build` and so by `npm ci`,
// after the client SDK it imports: Vite writes console/dist/ (index.html and hashed assets), which the
// service serves at /console. Vite is a development dependency: an install without them (`npm ci
// --omit=dev` in the container's runtime stage, which copies a console built in the build stage) skips it.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export async function buildConsole() {
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn('console: vite is not installed (a production install); console/dist is left as it is');
    return;
  }
  await vite.build({ configFile: path.join(root, 'console/vite.config.ts'), logLevel: 'warn' });
}

if (import.meta.url === `file://${process.argv[1]}`) await buildConsole();
