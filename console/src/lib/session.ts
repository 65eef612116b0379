import { signal } from '@preact/signals';

/**
 * The signed-in console user's access token: in memory only (never localStorage, never a cookie the page
 * can read). A reload signs in again through the provider.
 */
export const accessToken = signal<string | undefined>(undefined);

/** True after the user signed out: the shell offers to sign in again instead of doing it at once. */
export const signedOut = signal(false);

/** True once the service answered 401 to this page's token (the next sign-in is a recovery). */
export const expired = signal(false);

/**
 * Called by the API layer on a 401: forget the token. The shell (shell.tsx) then starts the sign-in
 * (lib/sign-in.ts), which comes back to this page.
 */
export function sessionExpired(): void {
  expired.value = true;
  accessToken.value = undefined;
}

/** Forgets the token; nothing else holds it. */
export function signOut(): void {
  signedOut.value = true;
  accessToken.value = undefined;
}
