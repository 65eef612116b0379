import { DEV_OWNER_EMAIL } from './dev-issuer.ts';

/** The dev sign-in page and its errors: nothing but markup (no script, no style), so its CSP can be `'none'`. */
export const DEV_PAGE_CSP = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

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
