import { RealtimeError } from './errors.js';
import type { ChatMessage, ClientFrame, JsonObject, RealtimeErrorCode } from './types.js';

export interface SendInput {
  text: string;
  metadata?: JsonObject;
}

export interface PendingSend {
  clientId: string;
  frame: ClientFrame;
  /** When it last went out; undefined while it waits (offline, or before a retry). */
  sentAt: number | undefined;
  retries: number;
  resolve(message: ChatMessage): void;
  reject(error: RealtimeError): void;
}

/** Refusals that say "not now": the send waits and goes out again with the same clientId. */
const TRANSIENT: ReadonlySet<string> = new Set<RealtimeErrorCode>([
  'rate_limited',
  'service_unavailable',
  'internal_error',
  'not_joined',
]);

/**
 * A room's sends until the server stored them: each with its `clientId`, so sending it again (after a
 * reconnect, a transient refusal or a timeout) is stored once. Bounded: past `limit` waiting sends, a new
 * one is refused at once with `send_queue_full` instead of growing without end while offline.
 */
export class SendQueue {
  private readonly pending: PendingSend[] = [];

  constructor(
    private readonly room: string,
    private readonly limit: number,
    private readonly newClientId: () => string,
  ) {}

  get size(): number {
    return this.pending.length;
  }

  /** A new send, waiting until `due` hands it out; refused at once when `limit` sends already wait. */
  add(input: SendInput): Promise<ChatMessage> {
    if (this.pending.length >= this.limit) {
      return Promise.reject(
        new RealtimeError(
          'send_queue_full',
          `room ${this.room} already has ${this.limit} sends waiting to be stored (maxQueuedSends); wait for some to settle`,
        ),
      );
    }
    const clientId = this.newClientId();
    let settle: Pick<PendingSend, 'resolve' | 'reject'> | undefined;
    const promise = new Promise<ChatMessage>((resolve, reject) => {
      settle = { resolve, reject };
    });
    const frame: ClientFrame = {
      type: 'chat.send',
      room: this.room,
      text: input.text,
      clientId,
      ref: clientId,
      ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    };
    const entry: PendingSend = {
      clientId,
      frame,
      sentAt: undefined,
      retries: 0,
      resolve: (message) => settle?.resolve(message),
      reject: (error) => settle?.reject(error),
    };
    this.pending.push(entry);
    return promise;
  }

  /** The stored message came back (live, resumed, or as the answer to a retry): its send is done. */
  stored(message: ChatMessage): void {
    const index = this.pending.findIndex((p) => p.clientId === message.clientId);
    if (index < 0) return;
    const [entry] = this.pending.splice(index, 1);
    entry?.resolve(message);
  }

  /** An `error` frame whose ref is one of ours: true when it was. Transient ones wait for `due`. */
  refused(ref: string, code: string, message: string, details: RealtimeError['details']): boolean {
    const index = this.pending.findIndex((p) => p.clientId === ref);
    const entry = this.pending[index];
    if (entry === undefined) return false;
    if (TRANSIENT.has(code)) {
      entry.sentAt = undefined;
      entry.retries += 1;
      return true;
    }
    this.pending.splice(index, 1);
    entry.reject(new RealtimeError(code as RealtimeErrorCode, message, details));
    return true;
  }

  /** Sends to put on the wire now: those waiting, and those unanswered for `timeoutMs`. */
  due(now: number, timeoutMs: number): PendingSend[] {
    return this.pending.filter((p) => p.sentAt === undefined || now - p.sentAt >= timeoutMs);
  }

  /** The socket went: every send goes out again after the room is joined again. */
  unsent(): void {
    for (const entry of this.pending) entry.sentAt = undefined;
  }

  /** The most retries any waiting send had (for its backoff). */
  maxRetries(): number {
    return this.pending.reduce((n, p) => (p.sentAt === undefined ? Math.max(n, p.retries) : n), 0);
  }

  rejectAll(error: RealtimeError): void {
    for (const entry of this.pending.splice(0)) entry.reject(error);
  }
}
