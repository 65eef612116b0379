/**
 * `@svc/client/sync`: the stock `y-websocket` `WebsocketProvider` for a room's Yjs document
 * (`/v1/sync/:roomId[/:docName]`, docs/sync.md), with a session token from `getToken()` fresh on every
 * (re)connect. Not a fork: the provider is given a WebSocket class (its `WebSocketPolyfill` option) that
 * asks for the token, then opens the real socket with it. `yjs` and `y-websocket` are the app's own
 * (optional peer dependencies of `@svc/client`).
 */
import { WebsocketProvider } from 'y-websocket';
import type * as Y from 'yjs';

type ProviderOptions = NonNullable<ConstructorParameters<typeof WebsocketProvider>[3]>;
type PolyfillClass = NonNullable<ProviderOptions['WebSocketPolyfill']>;

/** What the provider needs of a socket (it sets the handlers, sends, closes). */
interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: unknown): void;
  close(code?: number, reason?: string): void;
}

/**
 * The WebSocket class to open (browsers', React Native's, Node 22's, or `ws`'s, as they are): only its
 * handlers are set, so their types are left open.
 */
interface BaseSocket {
  binaryType: unknown;
  readonly readyState: number;
  onopen: unknown;
  onmessage: unknown;
  onclose: unknown;
  onerror: unknown;
  send(data: unknown): void;
  close(code?: number, reason?: string): void;
}

export type SyncWebSocketConstructor = new (url: string, protocols?: string | string[]) => BaseSocket;

export interface SyncProviderOptions {
  /** The service's address, `https://api.example.com`. */
  baseUrl: string;
  /** A session token minted for the `sync` module by your backend; called before every (re)connect. */
  getToken: () => string | Promise<string>;
  roomId: string;
  /** One of the room's documents (1 to 64 of `A-Z a-z 0-9 _ . -`); the room's default document without it. */
  docName?: string;
  doc: Y.Doc;
  /** The WebSocket class: the global one by default; pass `ws`'s in Node 20. */
  WebSocket?: SyncWebSocketConstructor;
  /** The stock provider's other options (`awareness`, `connect`, `disableBc`, `maxBackoffTime`, `shouldReconnect`, ...). */
  provider?: Omit<ProviderOptions, 'params' | 'WebSocketPolyfill'>;
}

/**
 * Reconnect on every code the stock provider retries, and on 4401 too (the token expired or was revoked):
 * the next connect asks `getToken()` for a fresh one. 4403, 4404, 4413 and 4429 still stop it (`closed`).
 */
export function reconnectsAfter(event: { code: number }): boolean {
  return event.code === 4401 || !(event.code >= 4400 && event.code < 4500);
}

function withToken(url: string, token: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

/** A WebSocket class that first asks for a token, then opens `Base` with it; events pass through. */
function tokenSocket(getToken: () => string | Promise<string>, Base: SyncWebSocketConstructor) {
  return class TokenSocket implements SocketLike {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    readonly CONNECTING = 0;
    readonly OPEN = 1;
    readonly CLOSING = 2;
    readonly CLOSED = 3;
    binaryType = 'arraybuffer';
    onopen: SocketLike['onopen'] = null;
    onmessage: SocketLike['onmessage'] = null;
    onclose: SocketLike['onclose'] = null;
    onerror: SocketLike['onerror'] = null;
    private inner: BaseSocket | undefined;
    private closedEarly = false;

    constructor(url: string, protocols?: string | string[]) {
      Promise.resolve()
        .then(getToken)
        .then(
          (token) => this.open(withToken(url, token), protocols),
          (error: unknown) => {
            this.onerror?.(error);
            this.onclose?.({ code: 1006, reason: 'getToken failed' });
          },
        );
    }

    get readyState(): number {
      if (this.inner !== undefined) return this.inner.readyState;
      return this.closedEarly ? 3 : 0;
    }

    send(data: unknown): void {
      this.inner?.send(data);
    }

    close(code?: number, reason?: string): void {
      if (this.inner === undefined) this.closedEarly = true;
      else this.inner.close(code, reason);
    }

    private open(url: string, protocols: string | string[] | undefined): void {
      if (this.closedEarly) return;
      const socket = protocols === undefined ? new Base(url) : new Base(url, protocols);
      socket.binaryType = this.binaryType;
      socket.onopen = (event: unknown) => this.onopen?.(event);
      socket.onmessage = (event: unknown) => this.onmessage?.(event);
      socket.onclose = (event: { code: number; reason: string }) => this.onclose?.(event);
      socket.onerror = (event: unknown) => this.onerror?.(event);
      this.inner = socket;
    }
  };
}

/** The stock `WebsocketProvider` for a room's document, with a fresh token on every connect. */
export function createSyncProvider(options: SyncProviderOptions): WebsocketProvider {
  const Base = options.WebSocket ?? (globalThis as { WebSocket?: SyncWebSocketConstructor }).WebSocket;
  if (Base === undefined) throw new Error('no WebSocket: pass one (in Node 20: `WebSocket` from `ws`)');
  const serverUrl = `${options.baseUrl.replace(/\/+$/, '').replace(/^http/i, 'ws')}/v1/sync`;
  const room = options.docName === undefined ? options.roomId : `${options.roomId}/${options.docName}`;
  return new WebsocketProvider(serverUrl, room, options.doc, {
    shouldReconnect: reconnectsAfter,
    ...options.provider,
    WebSocketPolyfill: tokenSocket(options.getToken, Base) as unknown as PolyfillClass,
  });
}

export { WebsocketProvider };
