import assert from 'node:assert/strict';
import { bearer, type TestTenant } from '../../../../test/factories.ts';
import { call, type Response, type TestApp } from '../../../../test/helper.ts';
import { type ModuleSettings, setModule } from '../../../../test/support/module-settings.ts';
import { type AppSuite, type AppSuiteOptions, appSuite } from '../../../../test/support/suite.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { traceFrom } from '../../../core/http/request-id.ts';
import type { Actor } from '../../../core/tenancy/actors.ts';
import type { PaymentView, RefundView } from '../payment-row.ts';

export interface ErrorBody {
  error: string;
  message: string;
  details?: { field: string; code?: string; message: string }[];
}

type Body = Record<string, unknown>;
/** A list's answer: a page of items and the cursor of the next one. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type PaymentAction = 'confirm' | 'capture' | 'cancel' | 'simulate';

/** The customer `<provider>:<name>` as the API names it: an end user verified by that provider. */
export function customerActor(id: string): Actor {
  return { type: 'end_user', id, identityProvider: id.split(':')[0] ?? 'test' };
}

/**
 * The payments API as one API key calls it on a test app. `caller` is read at each request, so a suite
 * can hand out its client before its app is built.
 */
export class PaymentsClient {
  constructor(private readonly caller: () => { t: TestApp; key: string }) {}

  /** The same API called with another API key (of this tenant or another one) on the same app. */
  as(key: string): PaymentsClient {
    return new PaymentsClient(() => ({ t: this.caller().t, key }));
  }

  post(url: string, payload: Body = {}, headers: Record<string, string> = {}): Promise<Response> {
    const { t, key } = this.caller();
    return call(t.app, { method: 'POST', url, headers: { ...bearer(key), ...headers }, payload });
  }

  /** A POST under an Idempotency-Key. */
  postKeyed(idempotencyKey: string, url: string, payload: Body = {}): Promise<Response> {
    return this.post(url, payload, { 'idempotency-key': idempotencyKey });
  }

  get(url: string): Promise<Response> {
    const { t, key } = this.caller();
    return call(t.app, { method: 'GET', url, headers: bearer(key) });
  }

  /** Every row of a list, page after page (`limit` 100). */
  async allPages<T>(url: string): Promise<T[]> {
    const rows: T[] = [];
    let cursor: string | null = null;
    do {
      const separator = url.includes('?') ? '&' : '?';
      const next = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await this.get(`${url}${separator}limit=100${next}`);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      const page = res.json<{ data: T[]; nextCursor: string | null }>();
      rows.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return rows;
  }

  async createPayment(body: Body = {}): Promise<PaymentView> {
    const res = await this.post('/v1/payments', { amount: 10_000, currency: 'EUR', ...body });
    if (res.statusCode !== 201) throw new Error(`create payment: ${res.statusCode} ${res.body}`);
    return res.json<PaymentView>();
  }

  act(paymentId: string, action: PaymentAction, body: Body = {}): Promise<Response> {
    return this.post(`/v1/payments/${paymentId}/${action}`, body);
  }

  /** A payment paid with pm_card_visa: succeeded (automatic) or requires_capture (manual). */
  async paidPayment(body: Body = {}): Promise<PaymentView> {
    const created = await this.createPayment(body);
    const res = await this.act(created.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    if (res.statusCode !== 200) throw new Error(`confirm: ${res.statusCode} ${res.body}`);
    return res.json<PaymentView>();
  }

  /** A payment authorized with pm_card_visa for a manual capture: `requires_capture`. */
  async authorized(body: Body = {}): Promise<PaymentView> {
    const payment = await this.createPayment({ captureMethod: 'manual', ...body });
    const res = await this.act(payment.id, 'confirm', { paymentMethod: 'pm_card_visa' });
    assert.equal(res.json<PaymentView>().status, 'requires_capture', res.body);
    return res.json<PaymentView>();
  }

  refund(paymentId: string, body: Body = {}): Promise<Response> {
    return this.post(`/v1/payments/${paymentId}/refunds`, body);
  }

  async read(paymentId: string): Promise<PaymentView> {
    return (await this.get(`/v1/payments/${paymentId}`)).json<PaymentView>();
  }

  /** The tenant's events, newest first (the last 100). */
  async events<D = Body>(): Promise<{ type: string; data: D }[]> {
    const res = await this.get('/v1/events?limit=100');
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: { type: string; data: D }[] }>().data;
  }

  /** The types of one payment's events, oldest first. */
  async eventsOf(paymentId: string): Promise<string[]> {
    const events = await this.events<{ paymentId?: string }>();
    return events
      .filter((e) => e.data.paymentId === paymentId)
      .map((e) => e.type)
      .reverse();
  }

  /** How many capture transactions the ledger holds for a payment. */
  async captureTransactions(paymentId: string): Promise<number> {
    const res = await this.get(`/v1/ledger/transactions?paymentId=${paymentId}`);
    return res.json<{ data: { kind: string }[] }>().data.filter((x) => x.kind === 'capture').length;
  }

  /** `/v1/ledger/check` answers ok. */
  async ledgerOk(): Promise<void> {
    const check = await this.get('/v1/ledger/check');
    assert.equal(check.json<{ ok: boolean }>().ok, true, check.body);
  }
}

export function paymentsClient(t: TestApp, key: string): PaymentsClient {
  return new PaymentsClient(() => ({ t, key }));
}

/** A suite's app and tenants (see `appSuite`), with the payments client of its first tenant's key. */
export class PaymentsSuite extends PaymentsClient implements AppSuite {
  constructor(private readonly suite: AppSuite) {
    super(() => ({ t: suite.t, key: suite.key }));
  }
  get t(): TestApp {
    return this.suite.t;
  }
  get tenant(): TestTenant {
    return this.suite.tenant;
  }
  get key(): string {
    return this.suite.key;
  }
  get tenants(): readonly TestTenant[] {
    return this.suite.tenants;
  }
  /** The suite's `index`th tenant (0 is `tenant`). */
  tenantAt(index: number): TestTenant {
    const tenant = this.tenants[index];
    if (tenant === undefined) throw new Error(`the suite has no tenant ${index}`);
    return tenant;
  }
  /** The client of the suite's `index`th tenant's API key (usable before the suite's tests run). */
  ofTenant(index: number): PaymentsClient {
    return new PaymentsClient(() => ({ t: this.t, key: this.tenantAt(index).apiKey }));
  }
}

/** `appSuite` for payments' tests: `s.t`, `s.tenant`, `s.key`, and the client (`s.createPayment(...)`). */
export function paymentsSuite(options: AppSuiteOptions = {}): PaymentsSuite {
  return new PaymentsSuite(appSuite(options));
}

/** Turns the module on or off for the tenant, with its configuration, through the console as its owner. */
export function setPaymentsModule(t: TestApp, tenant: TestTenant, settings: ModuleSettings): Promise<void> {
  return setModule(t, tenant, 'payments', settings);
}

/** Sets the tenant's payments configuration (the module enabled). */
export function configurePayments(t: TestApp, tenant: TestTenant, config: Body): Promise<void> {
  return setPaymentsModule(t, tenant, { enabled: true, config });
}

/** A tenant's context with no principal, as the settlement worker and recovery run in. */
export function systemContext(t: TestApp, tenantId: string): ServiceContext {
  return {
    ...t.app.services,
    log: t.app.log,
    tenantId,
    principal: undefined,
    requestId: 'req_test',
    trace: traceFrom(undefined),
    origin: 'system',
  };
}

export type { PaymentView, RefundView };
