import { signal } from '@preact/signals';

/**
 * The signed-in console user's access token: in memory only (never localStorage, never a cookie the page
 * can read). A reload signs in again through the provider, which remembers the user.
 */
export const accessToken = signal<string | undefined>(undefined);

/** Called by the API layer on a 401: forget the token and send the user to sign in, then back here. */
export function sessionExpired(): void {
  accessToken.value = undefined;
  // The sign-in module (./sign-in.ts) watches `accessToken` and starts the flow, returning to this page.
}
