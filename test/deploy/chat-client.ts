import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

/** The close code a draining instance sends: reconnect (elsewhere) and resume. */
const RESTART = 1012;

interface ChatFrame {
  type: string;
  ref?: unknown;
  changeSeq?: number;
  message?: { id: string; clientId?: string | null };
}

/**
 * A chat client the way docs/realtime.md tells one to behave: it remembers the `changeSeq` of the last chat
 * frame, reconnects on 1012 and joins again with that `changeSeq` (resume); a message sent but not seen
 * back is sent again with the same `clientId` after the join, so it is never posted twice. It counts what
 * it received (each message id once), duplicates, reconnects, and anything else that went wrong.
 */
export class ResumingClient {
  readonly received = new Set<string>();
  duplicates = 0;
  reconnects = 0;
  /** Upgrades refused with an HTTP status (e.g. 503 from HAProxy): tried again like a reconnect. */
  refusals = 0;
  readonly errors: string[] = [];
  private last: number | undefined;
  private joined = false;
  private stopped = false;
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, string>();
  private firstJoin: (() => void) | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
    readonly room: string,
  ) {}

  /** Resolves at the first `joined`. */
  connect(): Promise<void> {
    const joined = new Promise<void>((resolve) => {
      this.firstJoin = resolve;
    });
    this.open();
    return joined;
  }

  /** Posts a message now, or after the next join when between connections. */
  send(text: string): void {
    const clientId = randomUUID();
    this.pending.set(clientId, text);
    if (this.joined) this.post(clientId, text);
  }

  /** Messages sent that were not seen back yet. */
  get unconfirmed(): number {
    return this.pending.size;
  }

  close(): void {
    this.stopped = true;
    this.socket?.close(1000);
  }

  private post(clientId: string, text: string): void {
    this.socket?.send(JSON.stringify({ type: 'chat.send', room: this.room, text, clientId }));
  }

  private open(): void {
    const socket = new WebSocket(`${this.url}?token=${encodeURIComponent(this.token)}`);
    this.socket = socket;
    let refused = false;
    socket.on('open', () => {
      const resume = this.last === undefined ? {} : { changeSeq: this.last };
      socket.send(JSON.stringify({ type: 'join', room: this.room, ...resume }));
    });
    socket.on('message', (data) => this.frame(JSON.parse(String(data)) as ChatFrame));
    socket.on('unexpected-response', (_request, response) => {
      refused = true;
      this.refusals += 1;
      response.resume();
      socket.terminate();
    });
    socket.on('error', (error) => {
      if (!refused && socket.readyState === WebSocket.CONNECTING) {
        // Nothing listening for a moment (HAProxy restarting a check): tried again like a refusal.
        refused = true;
        this.refusals += 1;
        return;
      }
      if (!refused) this.errors.push(`socket error: ${error.message}`);
    });
    socket.on('close', (code, reason) => {
      this.joined = false;
      if (this.stopped) return;
      if (code === RESTART) this.reconnects += 1;
      else if (!refused) this.errors.push(`closed ${code} ${reason.toString()}`);
      // Reconnect soon, a little apart from the others told to at the same moment.
      setTimeout(() => this.open(), 50 + Math.floor(Math.random() * 250));
    });
  }

  private frame(frame: ChatFrame): void {
    if (frame.type === 'joined') {
      this.joined = true;
      if (this.last === undefined) this.last = frame.changeSeq;
      for (const [clientId, text] of this.pending) this.post(clientId, text);
      this.firstJoin?.();
      this.firstJoin = undefined;
      return;
    }
    if (frame.type === 'chat.message') {
      const message = frame.message;
      if (message === undefined) return;
      if (message.clientId !== undefined && message.clientId !== null) this.pending.delete(message.clientId);
      // A resend's answer (the message as it is, no changeSeq): not a new change of the stream.
      if (frame.changeSeq === undefined) return;
      if (this.received.has(message.id) || (this.last !== undefined && frame.changeSeq <= this.last)) {
        this.duplicates += 1;
      }
      this.received.add(message.id);
      this.last = frame.changeSeq;
      return;
    }
    if (frame.type === 'error') {
      // Counted (the run fails on it), then done again after a pause as docs/realtime.md says: the join
      // when it was the join that failed, else the message (same clientId, so it is never posted twice).
      this.errors.push(`error frame: ${JSON.stringify(frame)}`);
      const socket = this.socket;
      setTimeout(() => {
        if (this.socket !== socket || socket?.readyState !== WebSocket.OPEN) return;
        if (!this.joined) {
          const resume = this.last === undefined ? {} : { changeSeq: this.last };
          socket.send(JSON.stringify({ type: 'join', room: this.room, ...resume }));
          return;
        }
        const clientId = typeof frame.ref === 'string' ? frame.ref : undefined;
        const text = clientId === undefined ? undefined : this.pending.get(clientId);
        if (clientId !== undefined && text !== undefined) this.post(clientId, text);
      }, 500);
    }
  }
}
