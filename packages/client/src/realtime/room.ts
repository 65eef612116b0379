import type { ErrorDetail } from '../errors.js';
import { Emitter } from './emitter.js';
import { RealtimeError } from './errors.js';
import { Members } from './members.js';
import { Revisions } from './revisions.js';
import type { HistoryQuery, RoomEvents, RoomHost, RoomSettings } from './room-types.js';
import { type SendInput, SendQueue } from './sends.js';
import type {
  AuctionFrame,
  ChatFrame,
  ChatMessage,
  ChatMessagePage,
  JsonObject,
  Member,
  ServerFrame,
} from './types.js';

const RESYNC_CODES = new Set(['resync_required', 'unknown_change', 'unknown_seq']);
const JOIN_RETRY_CODES = new Set(['rate_limited', 'service_unavailable', 'internal_error', 'room_full']);

/**
 * One room on the shared socket. It remembers where its chat stands (`changeSeq`, and each auction's
 * `seq`), joins again from there after every reconnect, and gives the app each change once, in order:
 * a change at or below the last one given is dropped. Sends wait here until the server stored them.
 */
export class Room extends Emitter<RoomEvents> {
  private readonly memberList = new Members();
  private readonly revisions = new Revisions();
  private readonly sends: SendQueue;
  private presenceState: JsonObject | undefined;
  private changeSeq: number | undefined;
  private lastSeq = 0;
  private readonly auctions = new Map<string, number>();
  private joinRef: string | undefined;
  private joins = 0;
  private joinRetries = 0;
  private retryTimer: unknown;
  private isJoined = false;
  private left = false;
  /** Asks for one `presence.diff` per tick; off for good if the server does not know the field (older). */
  private presenceDiff = true;
  private waiters: (() => void)[] = [];

  constructor(
    readonly id: string,
    private readonly host: RoomHost,
    private readonly settings: RoomSettings,
    presence: JsonObject | undefined,
  ) {
    super();
    this.presenceState = presence;
    this.sends = new SendQueue(id, settings.maxQueuedSends, settings.newClientId);
  }

  get members(): Member[] {
    return this.memberList.list();
  }

  get joined(): boolean {
    return this.isJoined;
  }

  /** The last `changeSeq` given to the app: where the next join resumes. */
  get position(): number | undefined {
    return this.changeSeq;
  }

  /** Sends waiting to be stored (offline, or not yet answered). */
  get queuedSends(): number {
    return this.sends.size;
  }

  /** Resolves once the room is joined (at once when it is). */
  ready(): Promise<void> {
    if (this.isJoined) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Posts a message; resolves with it as stored. Offline, it waits (at most `maxQueuedSends`). */
  send(input: SendInput): Promise<ChatMessage> {
    if (this.left) return Promise.reject(new RealtimeError('left', `room ${this.id} was left`));
    const stored = this.sends.add(input);
    this.flushSends();
    return stored;
  }

  /** Replaces this actor's presence state; kept for every later join. */
  updatePresence(state: JsonObject): void {
    this.presenceState = state;
    if (this.isJoined) this.host.send({ type: 'presence', room: this.id, state });
  }

  /** Tells the others this actor is typing (dropped while offline). */
  typing(): void {
    if (this.isJoined) this.host.send({ type: 'typing', room: this.id });
  }

  /** Older (or, with `after`, newer) messages through REST, with the client's token. */
  history(query: HistoryQuery = {}): Promise<ChatMessagePage> {
    return this.host.history(this.id, query);
  }

  leave(): void {
    if (this.left) return;
    if (this.isJoined) this.host.send({ type: 'leave', room: this.id });
    this.shutDown(new RealtimeError('left', `room ${this.id} was left`));
    this.host.forget(this);
  }

  /** @internal The socket is open: join, from where the room stands. */
  connected(): void {
    if (this.left) return;
    this.joinRef = `join:${this.id}:${++this.joins}`;
    this.host.send({
      type: 'join',
      room: this.id,
      ref: this.joinRef,
      ...(this.presenceDiff ? { presenceDiff: true } : {}),
      ...(this.presenceState === undefined ? {} : { presence: this.presenceState }),
      ...(this.changeSeq === undefined ? {} : { changeSeq: this.changeSeq }),
      ...(this.auctions.size === 0 ? {} : { auctions: Object.fromEntries(this.auctions) }),
    });
  }

  /** @internal The socket went: every unanswered send goes out again after the next join. */
  disconnected(): void {
    this.isJoined = false;
    this.joinRef = undefined;
    this.sends.unsent();
    this.clearRetry();
  }

  /** @internal The client closed for good. */
  shutDown(error: RealtimeError): void {
    this.left = true;
    this.isJoined = false;
    this.clearRetry();
    this.sends.rejectAll(error);
  }

  /** @internal Periodic: sends unanswered for too long go out again (same clientId, stored once). */
  tick(): void {
    this.flushSends();
  }

  /** @internal A frame for this room. */
  receive(frame: ServerFrame): void {
    switch (frame.type) {
      case 'joined':
        this.onJoined(frame);
        break;
      case 'presence.join':
      case 'presence.update':
      case 'presence.leave':
      case 'presence.diff':
        for (const change of this.memberList.apply(frame)) this.emit('presence', change);
        break;
      case 'chat.message':
      case 'chat.updated':
      case 'chat.deleted':
        this.onChat(frame);
        break;
      case 'typing':
        this.emit('typing', frame.actor);
        break;
      case 'event':
        this.emit('event', frame.event);
        break;
      default:
        if (frame.type.startsWith('auction.')) this.onAuction(frame as unknown as AuctionFrame);
    }
  }

  /** @internal An `error` frame: true when its ref was this room's join or one of its sends. */
  refused(ref: string, code: string, message: string, details: ErrorDetail[]): boolean {
    if (ref === this.joinRef) {
      this.onJoinRefused(code, message, details);
      return true;
    }
    const handled = this.sends.refused(ref, code, message, details);
    if (handled) this.scheduleFlush(this.host.retryDelay(this.sends.maxRetries()));
    return handled;
  }

  private onJoined(frame: Extract<ServerFrame, { type: 'joined' }>): void {
    if (frame.ref !== undefined && frame.ref !== this.joinRef) return;
    const resumedFrom = this.changeSeq ?? null;
    if (resumedFrom === null) {
      // A live join: nothing before the room's newest change comes, so that is where it stands.
      this.changeSeq = frame.changeSeq;
      this.lastSeq = frame.seq ?? 0;
    }
    for (const [auctionId, seq] of Object.entries(frame.auctions ?? {})) {
      if (!this.auctions.has(auctionId)) this.auctions.set(auctionId, seq);
    }
    this.isJoined = true;
    this.joinRetries = 0;
    this.emit('presence', this.memberList.replace(frame.members ?? []));
    this.emit('joined', {
      members: this.members,
      seq: frame.seq ?? 0,
      changeSeq: frame.changeSeq ?? 0,
      resumedFrom,
    });
    for (const wake of this.waiters.splice(0)) wake();
    this.flushSends();
  }

  private onJoinRefused(code: string, message: string, details: ErrorDetail[]): void {
    this.joinRef = undefined;
    const reason = details[0]?.code;
    if (code === 'invalid_frame' && details.some((d) => d.field === '/frame/presenceDiff')) {
      this.presenceDiff = false;
      this.connected();
      return;
    }
    if (code === 'invalid_request' && reason !== undefined && RESYNC_CODES.has(reason)) {
      this.changeSeq = undefined;
      this.lastSeq = 0;
      this.auctions.clear();
      this.revisions.clear();
      this.emit('resync', { recovered: false, reason });
      this.connected();
      return;
    }
    if (JOIN_RETRY_CODES.has(code)) {
      this.clearRetry();
      this.retryTimer = this.host.timers.setTimeout(
        () => {
          this.retryTimer = undefined;
          this.connected();
        },
        this.host.retryDelay(this.joinRetries++),
      );
      return;
    }
    const error = new RealtimeError(code as RealtimeError['code'], message, details);
    this.shutDown(error);
    this.host.forget(this);
    this.emit('error', error);
  }

  private onChat(frame: ChatFrame): void {
    const { message, changeSeq } = frame;
    if (message.clientId !== null) this.sends.stored(message);
    if (changeSeq === undefined) {
      // The answer to a send retried with a used clientId: the app had the message already.
      if (message.seq <= this.lastSeq) return;
    } else {
      if (this.changeSeq !== undefined && changeSeq <= this.changeSeq) return;
      this.changeSeq = changeSeq;
    }
    if (!this.revisions.admit(message)) return;
    this.lastSeq = Math.max(this.lastSeq, message.seq);
    const event = {
      'chat.message': 'message',
      'chat.updated': 'messageUpdated',
      'chat.deleted': 'messageDeleted',
    } as const;
    this.emit(event[frame.type], message);
  }

  private onAuction(frame: AuctionFrame): void {
    if (typeof frame.auctionId === 'string' && typeof frame.seq === 'number') {
      const known = this.auctions.get(frame.auctionId);
      if (known !== undefined && frame.seq <= known) return;
      this.auctions.set(frame.auctionId, frame.seq);
    }
    this.emit('auction', frame);
  }

  private flushSends(): void {
    if (!this.isJoined) return;
    const now = this.host.timers.now();
    for (const entry of this.sends.due(now, this.settings.sendTimeoutMs)) {
      if (!this.host.send(entry.frame)) return;
      entry.sentAt = now;
    }
  }

  private scheduleFlush(delayMs: number): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = this.host.timers.setTimeout(() => {
      this.retryTimer = undefined;
      this.flushSends();
    }, delayMs);
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) this.host.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
