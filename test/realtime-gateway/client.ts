import type { IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { eventually } from '../support/eventually.ts';

export type Frame = Record<string, unknown> & { type: string };

export interface ChatFrame {
  type: 'chat.message' | 'chat.updated' | 'chat.deleted';
  room: string;
  changeSeq: number;
  message: {
    id: string;
    seq: number;
    text: string;
    revision: number;
    reactions: { emoji: string; count: number }[];
    deletedAt: string | null;
  };
}

export interface Refused {
  status: number;
  headers: IncomingHttpHeaders;
  body: { error: string; message: string; requestId: string };
}

export interface Closed {
  code: number;
  reason: string;
}

/** A protocol client for tests: records every frame it receives and how the socket closed. */
export class TestClient {
  readonly frames: Frame[] = [];
  closedWith: Closed | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
    });
    socket.on('close', (code, reason) => {
      this.closedWith = { code, reason: reason.toString() };
    });
    socket.on('error', () => {});
  }

  static async connect(
    url: string,
    token: string,
    options: { via?: 'query' | 'header'; autoPong?: boolean } = {},
  ): Promise<TestClient> {
    const via = options.via ?? 'query';
    const socket =
      via === 'query'
        ? new WebSocket(`${url}?token=${encodeURIComponent(token)}`, { autoPong: options.autoPong ?? true })
        : new WebSocket(url, {
            headers: { authorization: `Bearer ${token}` },
            autoPong: options.autoPong ?? true,
          });
    const client = new TestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
      socket.once('error', reject);
    });
    return client;
  }

  /** The HTTP status a refused upgrade answers with. */
  static async refusal(url: string, headers: Record<string, string> = {}): Promise<number> {
    const socket = new WebSocket(url, { headers });
    return new Promise<number>((resolve, reject) => {
      socket.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => {
        socket.close();
        reject(new Error('the upgrade was accepted'));
      });
      socket.once('error', () => {});
    });
  }

  /** A refused upgrade in full: status, headers and the parsed error body. */
  static async refused(url: string): Promise<Refused> {
    const socket = new WebSocket(url);
    return new Promise<Refused>((resolve, reject) => {
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(body) });
          socket.terminate();
        });
        res.on('error', reject);
      });
      socket.once('open', () => {
        socket.close();
        reject(new Error('the upgrade was accepted'));
      });
      socket.once('error', () => {});
    });
  }

  send(frame: Record<string, unknown> | string): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  of(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  async waitFor(predicate: (frame: Frame) => boolean, what: string): Promise<Frame> {
    return eventually(what, () => this.frames.find(predicate));
  }

  async waitForType(type: string, extra: (frame: Frame) => boolean = () => true): Promise<Frame> {
    return this.waitFor((f) => f.type === type && extra(f), `a ${type} frame`);
  }

  /** Sends `join` and waits for this room's `joined`. */
  async join(room: string, extra: Record<string, unknown> = {}): Promise<Frame> {
    const ref = `join-${Math.random().toString(36).slice(2)}`;
    this.send({ type: 'join', room, ref, ...extra });
    const reply = await this.waitFor((f) => f.ref === ref, `the reply to join ${room}`);
    if (reply.type !== 'joined') throw new Error(`join ${room} failed: ${JSON.stringify(reply)}`);
    return reply;
  }

  /** Chat messages received in a room, in arrival order. */
  messages(room: string): { seq: number; id: string; text: string; clientId: unknown }[] {
    return this.of('chat.message')
      .filter((f) => f.room === room)
      .map((f) => f.message as { seq: number; id: string; text: string; clientId: unknown });
  }

  /** Every chat frame of a room (chat.message, chat.updated, chat.deleted), in arrival order. */
  changes(room: string): ChatFrame[] {
    return this.frames
      .filter((f) => f.type.startsWith('chat.') && f.room === room)
      .map((f) => f as unknown as ChatFrame);
  }

  /** The changeSeq of the last chat frame of a room: where a client resumes from. */
  lastChange(room: string): number {
    return this.changes(room).at(-1)?.changeSeq ?? 0;
  }

  async closed(): Promise<Closed> {
    return eventually('the socket to close', () => this.closedWith);
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close(1000);
    await this.closed();
  }
}
