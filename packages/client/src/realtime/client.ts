import { SvcError } from '../errors.js';
import { type BackoffOptions, DEFAULT_BACKOFF, reconnectDelay } from './backoff.js';
import { type CloseAction, closeAction } from './close-codes.js';
import { Emitter } from './emitter.js';
import { RealtimeError } from './errors.js';
import type { RealtimeEvents, RealtimeOptions, RealtimeStatus } from './options.js';
import { Outbox } from './outbox.js';
import { Room } from './room.js';
import type { HistoryQuery, RoomHost } from './room-types.js';
import { defaultTimers, type Timers } from './timers.js';
import type {
  ChatMessagePage,
  ClientFrame,
  JsonObject,
  ServerFrame,
  WebSocketConstructor,
  WebSocketLike,
} from './types.js';
import { frameText, newClientId, socketUrl } from './wire.js';

/** Consecutive 4401 closes (the fresh token refused as well) after which the client stops. */
const MAX_AUTH_FAILURES = 2;

/**
 * One socket to `/v1/realtime` for every room the app joins. It reconnects on its own with full-jitter
 * backoff and a fresh token each time, rejoins each room where it stood, and stops (`closed`) on a close
 * code that reconnecting cannot fix.
 */
export class Realtime extends Emitter<RealtimeEvents> {
  private current: RealtimeStatus = 'connecting';
  private closeInfo: { code: number; reason: string } | undefined;
  private socket: WebSocketLike | undefined;
  private token: string | undefined;
  private attempt = 0;
  private authFailures = 0;
  private reconnectTimer: unknown;
  private heartbeatTimer: unknown;
  private lastHeardAt = 0;
  private readonly rooms = new Map<string, Room>();
  private readonly timers: Timers;
  private readonly outbox: Outbox;
  private readonly backoff: Required<BackoffOptions>;
  private readonly WS: WebSocketConstructor;
  private readonly host: RoomHost;

  constructor(private readonly options: RealtimeOptions) {
    super();
    this.timers = defaultTimers(options);
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    const WS = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (WS === undefined) throw new Error('no WebSocket: pass one (in Node 20: `WebSocket` from `ws`)');
    this.WS = WS;
    this.outbox = new Outbox(this.timers, options.framesPerSecond ?? 15, options.frameBurst ?? 20);
    this.host = {
      timers: this.timers,
      send: (frame) => this.send(frame),
      retryDelay: (attempt) => reconnectDelay(attempt, false, this.random, this.backoff),
      history: (roomId, query) => this.history(roomId, query),
      forget: (room) => {
        if (this.rooms.get(room.id) === room) this.rooms.delete(room.id);
      },
    };
    void this.open();
  }

  get status(): RealtimeStatus {
    return this.current;
  }

  /** Why the client stopped (its close code and reason), once `status` is `closed`. */
  get closeReason(): { code: number; reason: string } | undefined {
    return this.closeInfo;
  }

  /** Enters a room on the shared socket (now, or as soon as it is open). */
  join(roomId: string, options: { presence?: JsonObject } = {}): Room {
    if (this.current === 'closed') throw new RealtimeError('closed', 'the realtime client is closed');
    if (this.rooms.has(roomId))
      throw new Error(`already in room ${roomId}: use its handle, or leave it first`);
    const room = new Room(
      roomId,
      this.host,
      {
        maxQueuedSends: this.options.maxQueuedSends ?? 100,
        sendTimeoutMs: this.options.sendTimeoutMs ?? 15_000,
        newClientId,
      },
      options.presence,
    );
    this.rooms.set(roomId, room);
    if (this.socket !== undefined && this.current === 'connected') room.connected();
    return room;
  }

  /** Closes the socket for good: status `closed`, waiting sends rejected with `closed`. */
  close(): void {
    this.stop(1000, 'closed by the client');
  }

  private get random(): () => number {
    return this.options.random ?? Math.random;
  }

  private send(frame: ClientFrame): boolean {
    if (this.socket === undefined || this.current !== 'connected') return false;
    this.outbox.push(JSON.stringify(frame));
    return true;
  }

  private setStatus(status: RealtimeStatus, code?: number, reason?: string): void {
    if (status === this.current) return;
    this.current = status;
    this.emit('status', { status, ...(code === undefined ? {} : { code, reason: reason ?? '' }) });
  }

  private async open(): Promise<void> {
    this.reconnectTimer = undefined;
    let token: string;
    try {
      token = await this.options.getToken();
    } catch (error) {
      if (this.current === 'closed') return;
      this.emit('error', error);
      return this.retry(1006, 'getToken failed', 'retry');
    }
    if (this.current === 'closed') return;
    this.token = token;
    let socket: WebSocketLike;
    try {
      socket = new this.WS(socketUrl(this.options.baseUrl, token));
    } catch (error) {
      return this.stop(1006, error instanceof Error ? error.message : String(error));
    }
    this.socket = socket;
    socket.onopen = () => this.opened(socket);
    socket.onmessage = (event: { data: unknown }) => this.received(socket, event.data);
    socket.onclose = (event: { code: number; reason: string }) =>
      this.closed(socket, event.code, event.reason);
    // The close that follows an error says what happened.
    socket.onerror = () => {};
  }

  private opened(socket: WebSocketLike): void {
    if (socket !== this.socket) return;
    this.lastHeardAt = this.timers.now();
    this.setStatus('connected');
    this.outbox.attach(socket);
    for (const room of this.rooms.values()) room.connected();
    this.scheduleHeartbeat();
  }

  private received(socket: WebSocketLike, data: unknown): void {
    if (socket !== this.socket) return;
    this.lastHeardAt = this.timers.now();
    const text = frameText(data);
    let frame: ServerFrame;
    try {
      frame = JSON.parse(text ?? '') as ServerFrame;
    } catch {
      this.emit('error', new Error('the server sent a frame that is not JSON'));
      return;
    }
    if (frame.type === 'joined') this.healthy();
    if (frame.type === 'error') this.refused(frame);
    else if ('room' in frame && typeof frame.room === 'string') this.rooms.get(frame.room)?.receive(frame);
  }

  /**
   * The connection did something useful (a room joined, or it stayed open past the first heartbeat): the
   * backoff starts over. A pong is no such sign: the server answers pings even for a revoked token.
   */
  private healthy(): void {
    this.attempt = 0;
    this.authFailures = 0;
  }

  private refused(frame: Extract<ServerFrame, { type: 'error' }>): void {
    const { ref, code, message } = frame;
    const details = frame.details ?? [];
    if (ref !== undefined) {
      for (const room of this.rooms.values()) if (room.refused(ref, code, message, details)) return;
    }
    this.emit('error', new RealtimeError(code, message, details));
  }

  private closed(socket: WebSocketLike, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    this.outbox.detach();
    this.clearTimer('heartbeatTimer');
    for (const room of this.rooms.values()) room.disconnected();
    if (this.current === 'closed') return;
    const action = closeAction(code);
    if (action === 'stop') this.stop(code, reason);
    else if (action === 'reauthenticate' && ++this.authFailures >= MAX_AUTH_FAILURES) {
      this.stop(code, reason || 'the session token was refused');
    } else this.retry(code, reason, action);
  }

  private retry(code: number, reason: string, action: CloseAction): void {
    this.setStatus(this.current === 'connecting' ? 'connecting' : 'reconnecting', code, reason);
    const attempt = this.attempt++;
    const delayMs = reconnectDelay(attempt, action === 'retry-crowd', this.random, this.backoff);
    this.emit('reconnect', { attempt, delayMs, code });
    this.reconnectTimer = this.timers.setTimeout(() => void this.open(), delayMs);
  }

  private stop(code: number, reason: string): void {
    if (this.current === 'closed') return;
    this.closeInfo = { code, reason };
    this.clearTimer('reconnectTimer');
    this.clearTimer('heartbeatTimer');
    const socket = this.socket;
    this.socket = undefined;
    this.outbox.detach();
    if (socket !== undefined) {
      socket.onclose = null;
      socket.close(1000);
    }
    const error = new RealtimeError('closed', `the realtime client is closed (${code} ${reason})`.trim());
    for (const room of this.rooms.values()) room.shutDown(error);
    this.rooms.clear();
    this.setStatus('closed', code, reason);
  }

  /** Pings when the server was quiet; drops a socket that stayed silent (a connection gone without a close). */
  private scheduleHeartbeat(): void {
    const everyMs = this.options.heartbeatMs ?? 25_000;
    this.heartbeatTimer = this.timers.setTimeout(() => {
      const socket = this.socket;
      if (socket === undefined) return;
      const silentMs = this.timers.now() - this.lastHeardAt;
      if (silentMs >= 2 * everyMs) {
        socket.onclose = null;
        socket.close(4000, 'no answer');
        return this.closed(socket, 1006, 'no answer from the server');
      }
      if (silentMs >= everyMs) this.send({ type: 'ping' });
      this.healthy();
      for (const room of this.rooms.values()) room.tick();
      this.scheduleHeartbeat();
    }, everyMs / 2);
  }

  private clearTimer(name: 'reconnectTimer' | 'heartbeatTimer'): void {
    if (this[name] !== undefined) this.timers.clearTimeout(this[name]);
    this[name] = undefined;
  }

  private async history(roomId: string, query: HistoryQuery): Promise<ChatMessagePage> {
    const search = Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
      .join('&');
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const url = `${base}/v1/rooms/${encodeURIComponent(roomId)}/messages${search === '' ? '' : `?${search}`}`;
    const doFetch = this.options.fetch ?? globalThis.fetch;
    const get = (token: string) => doFetch(url, { headers: { authorization: `Bearer ${token}` } });
    this.token ??= await this.options.getToken();
    let response = await get(this.token);
    if (response.status === 401) {
      this.token = await this.options.getToken();
      response = await get(this.token);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw new SvcError(body, response);
    return body as ChatMessagePage;
  }
}
