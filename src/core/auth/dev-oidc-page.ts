import { createHash } from 'node:crypto';
import { DEV_OWNER_EMAIL } from './dev-issuer.ts';

/** The pages' one style block, allowed by its hash: no script, no other style, nothing loaded. */
const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;color:#1a1d21;margin:0}' +
  'main{max-width:32rem;margin:4rem auto;padding:0 1rem}h1{font-size:1.5rem}' +
  'button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid #1f5fbf;background:#1f5fbf;' +
  'color:#fff;cursor:pointer}button:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}';

/** The dev sign-in page and its errors: markup and that style, nothing else. */
export const DEV_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** One button: it posts the request's parameters back, and the provider answers with the redirect. */
export function signInPage(action: string, fields: Record<string, string>): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return document(
    'Sign in · svc (development)',
    `<h1>Sign in to the svc console</h1>
<p>This is the service's built-in development sign-in provider. It signs you in as the demo tenant's owner;
in production the console signs in with the provider named by <code>SVC_CONSOLE_OIDC_ISSUER</code>.</p>
<form method="post" action="${escapeHtml(action)}">
${hidden}
<button type="submit">Sign in as the demo owner (${DEV_OWNER_EMAIL})</button>
</form>`,
  );
}

/** A request the provider cannot send back to its client (unknown client, foreign redirect_uri). */
export function refusalPage(reason: string): string {
  return document(
    'Sign-in refused · svc (development)',
    `<h1>Sign-in refused</h1>
<p>${escapeHtml(reason)}</p>`,
  );
}
