// A minimal WebSocket client for the benches' many sockets (fan-out subscribers, crowds): the upgrade
// handshake, unmasked server frames in, masked text frames and pongs out. It does far less per frame than
// `ws`: no stream, no event per frame, no UTF-8 validation, and reads go through `net`'s `onread` into one
// buffer shared by every socket of the process (no Buffer and no stream `data` event per read), so the
// load generator leaves the machine's cores to the server being measured. It serves the bare baseline and
// the service alike.
import { randomBytes } from 'node:crypto';
import net from 'node:net';

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_BINARY = 0x2;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;
const EMPTY = Buffer.alloc(0);
/** Every socket of the process reads into this; what a read leaves unfinished is copied out. */
const SHARED_READ = Buffer.allocUnsafe(256 * 1024);

export interface RawSocketHandlers {
  /** A whole text or binary message (fragments joined). Valid only during the call (a shared buffer). */
  message(data: Buffer): void;
  close(): void;
}

export class RawWebSocket {
  private buffered: Buffer = EMPTY;
  private fragments: Buffer[] = [];
  private closed = false;
  private socket!: net.Socket;
  /** Until the upgrade's answer was read: the bytes of its head so far. */
  private head: Buffer | undefined = EMPTY;
  private opened: { resolve(ws: RawWebSocket): void; reject(error: Error): void } | undefined;

  private constructor(private readonly handlers: RawSocketHandlers) {}

  /** Connects and upgrades; rejects with the status line when the server refuses. */
  static connect(url: string, handlers: RawSocketHandlers): Promise<RawWebSocket> {
    const target = new URL(url);
    const client = new RawWebSocket(handlers);
    return new Promise((resolve, reject) => {
      client.opened = { resolve, reject };
      const socket = net.connect({
        host: target.hostname,
        port: Number(target.port),
        noDelay: true,
        onread: {
          buffer: SHARED_READ,
          callback: (bytes: number, buffer: Uint8Array) => {
            client.read(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
            return true;
          },
        },
      });
      client.socket = socket;
      socket.on('close', () => client.onClosed());
      socket.once('error', (error) => client.fail(error));
      socket.once('connect', () => {
        socket.write(
          `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\n` +
            `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
            'Sec-WebSocket-Version: 13\r\n\r\n',
        );
      });
    });
  }

  sendText(text: string): void {
    this.send(OPCODE_TEXT, Buffer.from(text));
  }

  terminate(): void {
    this.socket.destroy();
  }

  private fail(error: Error): void {
    const opened = this.opened;
    this.opened = undefined;
    opened?.reject(error);
  }

  private read(chunk: Buffer): void {
    if (this.head === undefined) {
      this.receive(chunk);
      return;
    }
    const head = Buffer.concat([this.head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      this.head = head;
      return;
    }
    this.head = undefined;
    const status = head.toString('latin1', 0, head.indexOf('\r\n'));
    if (!/^HTTP\/1\.1 101 /.test(status)) {
      this.socket.destroy();
      this.fail(new Error(`upgrade refused: ${status}`));
      return;
    }
    const opened = this.opened;
    this.opened = undefined;
    opened?.resolve(this);
    const rest = head.subarray(end + 4);
    if (rest.length > 0) this.receive(rest);
  }

  /** A client frame: FIN, the opcode, the mask bit and a fresh mask over the payload. */
  private send(opcode: number, payload: Buffer): void {
    if (this.closed) return;
    const length = payload.length;
    const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
    const frame = Buffer.allocUnsafe(2 + lengthBytes + 4 + length);
    frame[0] = 0x80 | opcode;
    if (lengthBytes === 0) frame[1] = 0x80 | length;
    else if (lengthBytes === 2) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeBigUInt64BE(BigInt(length), 2);
    }
    const at = 2 + lengthBytes;
    randomBytes(4).copy(frame, at);
    for (let i = 0; i < length; i++) frame[at + 4 + i] = (payload[i] ?? 0) ^ (frame[at + (i & 3)] ?? 0);
    this.socket.write(frame);
  }

  /** Frames out of `chunk` (the shared read buffer, or a copy); an unfinished one is copied out. */
  private receive(chunk: Buffer): void {
    let data = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    let at = 0;
    const end = data.length;
    for (;;) {
      if (end - at < 2) break;
      const first = data[at] ?? 0;
      const second = data[at + 1] ?? 0;
      let length = second & 0x7f;
      let offset = at + 2;
      if (length === 126) {
        if (end - at < 4) break;
        length = data.readUInt16BE(at + 2);
        offset = at + 4;
      } else if (length === 127) {
        if (end - at < 10) break;
        length = Number(data.readBigUInt64BE(at + 2));
        offset = at + 10;
      }
      if (second & 0x80) offset += 4; // servers do not mask; skip a mask if one came anyway
      if (end < offset + length) break;
      this.frame(first & 0x80, first & 0x0f, data.subarray(offset, offset + length));
      at = offset + length;
    }
    if (at === end) this.buffered = EMPTY;
    else {
      data = data.subarray(at);
      this.buffered = Buffer.from(data);
    }
  }

  private frame(fin: number, opcode: number, payload: Buffer): void {
    if (opcode === OPCODE_PING) {
      this.send(0xa, payload);
      return;
    }
    if (opcode === OPCODE_CLOSE) {
      this.socket.end();
      return;
    }
    if (opcode !== OPCODE_TEXT && opcode !== OPCODE_BINARY && opcode !== OPCODE_CONTINUATION) return;
    if (fin && this.fragments.length === 0) {
      this.handlers.message(payload);
      return;
    }
    this.fragments.push(Buffer.from(payload));
    if (fin) {
      const whole = Buffer.concat(this.fragments);
      this.fragments = [];
      this.handlers.message(whole);
    }
  }

  private onClosed(): void {
    this.fail(new Error('socket closed before the upgrade'));
    if (this.closed) return;
    this.closed = true;
    this.handlers.close();
  }
}
