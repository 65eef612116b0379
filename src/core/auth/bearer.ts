import { AppError } from '../http/errors.ts';
import { looksLikeApiKey } from './api-key-format.ts';
import type { PrincipalKind } from './principal.ts';

/** A credential a request presents, and what kind it is by its text. */
export interface Presented {
  kind: PrincipalKind;
  value: string;
}

/** What a bearer credential is, by its text alone (so the answer may be remembered per header value). */
interface Bearer {
  header: string;
  presented: Presented;
}

/** Remembered bearer parses, by the JWT's signature (distinct per token); the whole header is compared. */
const BEARER_MEMO_MAX = 10_000;

function bearerOf(authorization: string, isSession: (jwt: string) => boolean): Presented {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (match === null) {
    throw new AppError('unauthorized', 'use the Authorization: Bearer <credential> scheme');
  }
  return bearerCredential(match[1] as string, isSession);
}

export function bearerCredential(bearer: string, isSession: (jwt: string) => boolean): Presented {
  if (looksLikeApiKey(bearer)) return { kind: 'api_key', value: bearer };
  const first = bearer.indexOf('.');
  const second = first < 0 ? -1 : bearer.indexOf('.', first + 1);
  if (second < 0 || bearer.indexOf('.', second + 1) >= 0) {
    throw new AppError('invalid_token', 'the bearer credential is neither an API key nor a JWT');
  }
  return { kind: isSession(bearer) ? 'session' : 'hosted_user', value: bearer };
}

/**
 * `Authorization: Bearer <JWT>` parsed once per distinct header value: a session token's every request
 * then skips the pattern match over its ~700 characters and hashes only its signature. API keys (no dot)
 * are not remembered: their text is the secret, compared in constant time where it is verified.
 */
export class BearerMemo {
  private readonly byTail = new Map<string, Bearer>();

  constructor(private readonly isSession: (jwt: string) => boolean) {}

  presented(authorization: string): Presented {
    const dot = authorization.lastIndexOf('.');
    if (dot < 0) return bearerOf(authorization, this.isSession);
    const tail = authorization.slice(dot + 1);
    const hit = this.byTail.get(tail);
    if (hit !== undefined && hit.header === authorization) return hit.presented;
    const presented = bearerOf(authorization, this.isSession);
    if (this.byTail.size >= BEARER_MEMO_MAX) this.byTail.clear();
    this.byTail.set(tail, { header: authorization, presented });
    return presented;
  }
}
