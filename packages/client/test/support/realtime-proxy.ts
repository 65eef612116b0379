import net from 'node:net';

/**
 * A TCP proxy on loopback in front of one or more service ports: tests cut every connection through it
 * (the client sees its socket drop, 1006, as on a lost network) and refuse new ones until `restore()`.
 * With several targets it spreads connections over them, skipping a target that refuses (a load
 * balancer in front of instances being restarted).
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private cutOff = false;
  private next = 0;

  private constructor(
    private readonly server: net.Server,
    private targets: number[],
  ) {}

  static async start(targets: number[]): Promise<TcpProxy> {
    const server = net.createServer();
    const proxy = new TcpProxy(server, targets);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  setTargets(targets: number[]): void {
    this.targets = targets;
  }

  /** Drops every connection at once and refuses new ones until `restore()`. */
  cut(): void {
    this.cutOff = true;
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    client.on('error', () => {});
    if (this.cutOff) {
      client.destroy();
      return;
    }
    this.connect(
      client,
      [...this.targets.keys()].map((i) => this.targets[(this.next + i) % this.targets.length]),
    );
    this.next += 1;
  }

  private connect(client: net.Socket, order: (number | undefined)[]): void {
    const [port, ...rest] = order;
    if (port === undefined || this.cutOff || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    let connected = false;
    upstream.on('error', () => {
      if (!connected) this.connect(client, rest);
      else client.destroy();
    });
    upstream.on('connect', () => {
      connected = true;
      const pair = { client, upstream };
      this.pairs.add(pair);
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }
}
