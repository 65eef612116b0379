// A minimal WebSocket client for the fan-out bench's 1,000 subscribers: the upgrade handshake, unmasked
// server frames in, masked text frames and pongs out. It does less per frame than `ws` (no stream, no
// events per frame, no UTF-8 validation), so the load generator leaves more of the machine's two cores to
// the server being measured. It serves the bare baseline and the service alike.
import { randomBytes } from 'node:crypto';
import net from 'node:net';

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_BINARY = 0x2;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;

export interface RawSocketHandlers {
  /** A whole text or binary message (fragments joined). */
  message(data: Buffer): void;
  close(): void;
}

export class RawWebSocket {
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;

  private constructor(
    private readonly socket: net.Socket,
    private readonly handlers: RawSocketHandlers,
  ) {}

  /** Connects and upgrades; rejects with the status line when the server refuses. */
  static connect(url: string, handlers: RawSocketHandlers): Promise<RawWebSocket> {
    const target = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        const status = head.toString('latin1', 0, head.indexOf('\r\n'));
        if (!/^HTTP\/1\.1 101 /.test(status)) {
          socket.destroy();
          reject(new Error(`upgrade refused: ${status}`));
          return;
        }
        const client = new RawWebSocket(socket, handlers);
        socket.on('data', (data: Buffer) => client.receive(data));
        socket.on('close', () => client.onClosed());
        resolve(client);
        const rest = head.subarray(end + 4);
        if (rest.length > 0) client.receive(rest);
      };
      socket.on('data', onData);
      socket.once('error', reject);
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

  /** A client frame: FIN, the opcode, the mask bit and a fresh mask over the payload. */
  private send(opcode: number, payload: Buffer): void {
    if (this.closed) return;
    const length = payload.length;
    const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
    const header = Buffer.alloc(2 + lengthBytes + 4);
    header[0] = 0x80 | opcode;
    if (lengthBytes === 0) header[1] = 0x80 | length;
    else if (lengthBytes === 2) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    const mask = randomBytes(4);
    mask.copy(header, 2 + lengthBytes);
    const masked = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) masked[i] = (payload[i] ?? 0) ^ (mask[i & 3] ?? 0);
    this.socket.write(Buffer.concat([header, masked]));
  }

  private receive(chunk: Buffer): void {
    let data = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      if (data.length < 2) break;
      const first = data[0] ?? 0;
      const second = data[1] ?? 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (data.length < 4) break;
        length = data.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (data.length < 10) break;
        length = Number(data.readBigUInt64BE(2));
        offset = 10;
      }
      if (second & 0x80) offset += 4; // servers do not mask; skip a mask if one came anyway
      if (data.length < offset + length) break;
      this.frame(first & 0x80, first & 0x0f, data.subarray(offset, offset + length));
      data = data.subarray(offset + length);
    }
    this.buffered = data.length === 0 ? Buffer.alloc(0) : Buffer.from(data);
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
    if (this.closed) return;
    this.closed = true;
    this.handlers.close();
  }
}
