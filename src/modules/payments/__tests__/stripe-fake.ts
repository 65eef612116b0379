import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake received it: the form body decoded, the headers that matter. */
export interface FakeRequest {
  method: string;
  path: string;
  form: Record<string, string>;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  contentType: string | undefined;
}

export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  capture_method: string;
  status: string;
  metadata: Record<string, string>;
  description: string | null;
  last_payment_error: Record<string, unknown> | null;
  next_action: Record<string, unknown> | null;
  livemode: false;
}

interface Fault {
  kind: 'lose' | 'refuse' | 'hold';
  match: (r: FakeRequest) => boolean;
  times: number;
  reached?: Promise<void>;
  released?: Promise<void>;
  onReach?: () => void;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A local stand-in for the few Stripe endpoints the stripe provider uses, speaking Stripe's wire format
 * (form-encoded requests, JSON objects and errors), with Stripe's test payment methods and its
 * Idempotency-Key replay. Real HTTP on 127.0.0.1, so the official SDK talks to it unchanged.
 */
export class StripeFake {
  readonly requests: FakeRequest[] = [];
  readonly intents = new Map<string, FakeIntent>();
  /** The status the next refunds get (Stripe answers `pending` for some payment methods). */
  refundStatus: 'succeeded' | 'pending' = 'succeeded';
  /** The requests the fake carried out (a replay of an idempotency key is not one). */
  readonly performed: FakeRequest[] = [];
  private readonly replies = new Map<string, { status: number; body: string }>();
  private server: Server | undefined;
  private address: string | undefined;
  private faults: Fault[] = [];

  /**
   * The next `times` answers to matching requests are lost: the fake carries the request out (and keeps
   * its answer for the idempotency key), then closes the connection without answering.
   */
  loseAnswers(match: (r: FakeRequest) => boolean, times: number): void {
    this.faults.push({ kind: 'lose', match, times });
  }

  /** The next `times` matching requests are refused, as Stripe refuses a request (400), doing nothing. */
  refuse(match: (r: FakeRequest) => boolean, times = 1): void {
    this.faults.push({ kind: 'refuse', match, times });
  }

  /**
   * The answer to the next matching request waits until `release()`: `reached` resolves once the request
   * has arrived (and been carried out).
   */
  hold(match: (r: FakeRequest) => boolean): { reached: Promise<void>; release: () => void } {
    let reached = () => {};
    let release = () => {};
    const fault: Fault = {
      kind: 'hold',
      match,
      times: 1,
      reached: new Promise<void>((resolve) => {
        reached = resolve;
      }),
      released: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    fault.onReach = reached;
    this.faults.push(fault);
    return { reached: fault.reached ?? Promise.resolve(), release };
  }

  private fault(request: FakeRequest): Fault | undefined {
    const found = this.faults.find((f) => f.times > 0 && f.match(request));
    if (found === undefined) return undefined;
    found.times -= 1;
    this.faults = this.faults.filter((f) => f.times > 0);
    return found;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.address = `http://127.0.0.1:${port}`;
    return this.address;
  }

  /** Where it listens (once started). */
  get url(): string {
    if (this.address === undefined) throw new Error('the local Stripe is read before it started');
    return this.address;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const form: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(raw)) form[k] = v;
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const request: FakeRequest = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
      form,
      authorization: header('authorization'),
      idempotencyKey: header('idempotency-key'),
      stripeVersion: header('stripe-version'),
      contentType: header('content-type'),
    };
    this.requests.push(request);
    const key =
      request.idempotencyKey === undefined ? undefined : `${request.path} ${request.idempotencyKey}`;
    const fault = this.fault(request);
    if (fault?.kind === 'refuse') {
      res.writeHead(400, { 'content-type': 'application/json', 'request-id': id('req') }).end(
        JSON.stringify({
          error: { type: 'invalid_request_error', message: 'Refused by the test (a bad parameter)' },
        }),
      );
      return;
    }
    const replay = key === undefined ? undefined : this.replies.get(key);
    const reply = replay ?? this.route(request);
    if (replay === undefined) this.performed.push(request);
    if (key !== undefined && replay === undefined) this.replies.set(key, reply);
    if (fault?.kind === 'lose') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'hold') {
      fault.onReach?.();
      await fault.released;
    }
    res
      .writeHead(reply.status, { 'content-type': 'application/json', 'request-id': id('req') })
      .end(reply.body);
  }

  private route(r: FakeRequest): { status: number; body: string } {
    const ok = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });
    const error = (status: number, body: Record<string, unknown>) => ({
      status,
      body: JSON.stringify({ error: body }),
    });
    if (!/^Bearer sk_(test|live)_/.test(r.authorization ?? '')) {
      return error(401, { type: 'invalid_request_error', message: 'Invalid API Key provided' });
    }
    const match = /^\/v1\/payment_intents(?:\/([^/]+)(?:\/(confirm|capture|cancel))?)?$/.exec(r.path);
    if (r.method === 'POST' && r.path === '/v1/payment_intents') {
      const intent: FakeIntent = {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(r.form.amount),
        amount_received: 0,
        currency: r.form.currency ?? '',
        capture_method: r.form.capture_method ?? 'automatic_async',
        status: 'requires_payment_method',
        metadata: Object.fromEntries(
          Object.entries(r.form)
            .filter(([k]) => k.startsWith('metadata['))
            .map(([k, v]) => [k.slice(9, -1), v]),
        ),
        description: r.form.description ?? null,
        last_payment_error: null,
        next_action: null,
        livemode: false,
      };
      this.intents.set(intent.id, intent);
      return ok(intent);
    }
    if (r.method === 'POST' && r.path === '/v1/refunds') {
      const intent = this.intents.get(r.form.payment_intent ?? '');
      if (intent === undefined)
        return error(404, { type: 'invalid_request_error', message: 'No such payment_intent' });
      return ok({
        id: id('re'),
        object: 'refund',
        amount: Number(r.form.amount ?? intent.amount_received),
        payment_intent: intent.id,
        status: this.refundStatus,
        reason: r.form.reason ?? null,
        failure_reason: null,
      });
    }
    const intent = this.intents.get(match?.[1] ?? '');
    if (match === null || intent === undefined) {
      return error(404, { type: 'invalid_request_error', message: `No such resource: ${r.path}` });
    }
    const action = match[2];
    if (r.method === 'GET' && action === undefined) return ok(intent);
    if (r.method !== 'POST') return error(405, { type: 'invalid_request_error', message: 'method' });
    if (action === 'confirm') {
      const method = r.form.payment_method ?? '';
      intent.last_payment_error = null;
      intent.next_action = null;
      if (method === 'pm_card_chargeDeclined') {
        intent.status = 'requires_payment_method';
        const declined = {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'generic_decline',
          message: 'Your card was declined.',
        };
        intent.last_payment_error = declined;
        return error(402, { ...declined, payment_intent: intent });
      }
      if (method === 'pm_card_authenticationRequired' && intent.status !== 'requires_action') {
        intent.status = 'requires_action';
        intent.next_action = { type: 'use_stripe_sdk' };
      } else if (method === 'pm_card_processing') {
        intent.status = 'processing';
      } else if (intent.capture_method === 'manual') {
        intent.status = 'requires_capture';
      } else {
        intent.status = 'succeeded';
        intent.amount_received = intent.amount;
      }
      return ok(intent);
    }
    if (action === 'capture') {
      if (intent.status !== 'requires_capture') {
        return error(400, {
          type: 'invalid_request_error',
          code: 'payment_intent_unexpected_state',
          message: 'state',
        });
      }
      intent.status = 'succeeded';
      intent.amount_received = Number(r.form.amount_to_capture ?? intent.amount);
      return ok(intent);
    }
    intent.status = 'canceled';
    return ok(intent);
  }

  /** The intent as a webhook event carries it, after the provider moved it (e.g. processing -> succeeded). */
  settle(intentId: string, status: 'succeeded' | 'requires_payment_method'): FakeIntent {
    const intent = this.intents.get(intentId);
    if (intent === undefined) throw new Error(`no intent ${intentId}`);
    intent.status = status;
    if (status === 'succeeded') intent.amount_received = intent.amount;
    else
      intent.last_payment_error = {
        code: 'card_declined',
        decline_code: 'do_not_honor',
        message: 'Declined.',
      };
    return { ...intent };
  }
}
