import type { Static } from 'typebox';
import type { ServiceContext } from '../../core/context.ts';
import { isoTime, type Queryable } from '../../core/db/database.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import { NotFound } from '../../core/http/errors.ts';
import { type Actor, actorJson } from '../../core/tenancy/actors.ts';
import type { Parties } from './ledger.ts';
import type { ProviderPayment } from './providers/provider.ts';
import type { PROVIDERS } from './schema/common.ts';
import type { LastError, NextAction, Payment } from './schema/payment.ts';
import type { Refund } from './schema/refund.ts';
import type { PaymentStatus } from './states.ts';

export type PaymentView = Static<typeof Payment>;
export type RefundView = Static<typeof Refund>;

export interface PaymentRow {
  id: string;
  seq: number | string;
  amount: number | string;
  currency: string;
  capture_method: 'automatic' | 'manual';
  status: PaymentStatus;
  /** The paying actor's row (`actors.id`), and that actor as the API names it. */
  customer_actor_id: string | null;
  customer: Actor | null;
  seller: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  auction_id: string | null;
  provider: (typeof PROVIDERS)[number];
  provider_ref: string | null;
  payment_method: string | null;
  livemode: boolean;
  amount_capturable: number | string;
  amount_captured: number | string;
  amount_refunded: number | string;
  application_fee: number | string;
  last_error: Static<typeof LastError> | null;
  next_action: Static<typeof NextAction> | null;
  step: StepKind | null;
  step_key: string | null;
  step_args: StepArgs | null;
  step_state: 'calling' | 'unknown' | null;
  step_until: string | null;
  step_seq: number;
  created_at: string;
  updated_at: string;
}

/** A provider call a payment is waiting for (see steps.ts). */
export type StepKind = 'create' | 'confirm' | 'capture' | 'cancel';
export interface StepArgs {
  paymentMethod?: string;
  amount?: number;
  reason?: string | null;
}

/** A payment's columns, its customer as the Actor object: read from `payments` (no alias). */
export const PAYMENT_COLUMNS = `id, seq, amount, currency, capture_method, status, customer_actor_id,
  (select ${actorJson('a')} from actors a where a.id = payments.customer_actor_id) as customer, seller, description,
  metadata, auction_id, provider, provider_ref, payment_method, livemode, amount_capturable, amount_captured,
  amount_refunded, application_fee, last_error, next_action, step, step_key, step_args, step_state,
  ${isoTime('step_until')} as step_until, step_seq, ${isoTime('created_at')} as created_at, ${isoTime('updated_at')} as updated_at`;

export function toPayment(row: PaymentRow): PaymentView {
  return {
    id: row.id,
    object: 'payment',
    amount: Number(row.amount),
    currency: row.currency,
    captureMethod: row.capture_method,
    status: row.status,
    customer: row.customer,
    seller: row.seller,
    description: row.description,
    metadata: row.metadata,
    auctionId: row.auction_id,
    provider: row.provider,
    providerRef: row.provider_ref,
    paymentMethod: row.payment_method,
    livemode: row.livemode,
    amountCapturable: Number(row.amount_capturable),
    amountCaptured: Number(row.amount_captured),
    amountRefunded: Number(row.amount_refunded),
    applicationFee: Number(row.application_fee),
    lastError: row.last_error,
    nextAction: row.next_action,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Who pays and who is owed, for the payment's postings: the customer's account is named by its Actor id. */
export function partiesOf(row: PaymentRow): Parties {
  return { customer: row.customer?.id ?? null, seller: row.seller, currency: row.currency };
}

export function providerView(row: PaymentRow): ProviderPayment {
  return {
    id: row.id,
    amount: Number(row.amount),
    currency: row.currency,
    captureMethod: row.capture_method,
    customer: row.customer?.id ?? null,
    description: row.description,
    providerRef: row.provider_ref,
    paymentMethod: row.payment_method,
    status: row.status,
  };
}

/**
 * The payment, locked until the transaction ends (short transactions only: a provider call never runs
 * while it is held, see steps.ts).
 */
export async function lockPayment(tx: Queryable, paymentId: string): Promise<PaymentRow> {
  const { rows } = await tx.query<PaymentRow>(
    `select ${PAYMENT_COLUMNS} from payments where id = $1 for update`,
    [paymentId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('payment', paymentId);
  return row;
}

/** A stored payment or refund (`table` its table, `columns` its columns), read by id, or 404. */
async function readById<Row>(
  ctx: Pick<ServiceContext, 'db' | 'tenantId'>,
  what: 'payment' | 'refund',
  id: string,
): Promise<Row> {
  const [columns, table] =
    what === 'payment' ? [PAYMENT_COLUMNS, 'payments'] : [REFUND_COLUMNS, 'payment_refunds'];
  const { rows } = await tenantRead<Row>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${columns} from ${table} where id = $1`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound(what, id);
  return row;
}

/** The payment as stored now (no transaction held), or 404. */
export function readPayment(ctx: Pick<ServiceContext, 'db' | 'tenantId'>, paymentId: string) {
  return readById<PaymentRow>(ctx, 'payment', paymentId);
}

/** The refund as stored now (no transaction held), or 404. */
export function readRefund(ctx: Pick<ServiceContext, 'db' | 'tenantId'>, refundId: string) {
  return readById<RefundRow>(ctx, 'refund', refundId);
}

export interface PaymentChange {
  status?: PaymentStatus;
  payment_method?: string | null;
  amount_capturable?: number;
  amount_captured?: number;
  amount_refunded?: number;
  application_fee?: number;
  last_error?: Static<typeof LastError> | null;
  next_action?: Static<typeof NextAction> | null;
  provider_ref?: string | null;
  cancellation_reason?: string | null;
}

const JSON_COLUMNS = new Set(['last_error', 'next_action']);

/** Writes a locked payment's changed columns and answers the saved row. */
export async function savePayment(
  tx: Queryable,
  paymentId: string,
  change: PaymentChange,
  now: number,
): Promise<PaymentRow> {
  const params: unknown[] = [paymentId, new Date(now).toISOString()];
  const sets = ['updated_at = $2'];
  for (const [column, value] of Object.entries(change)) {
    if (value === undefined) continue;
    params.push(JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  const { rows } = await tx.query<PaymentRow>(
    `update payments set ${sets.join(', ')} where id = $1 returning ${PAYMENT_COLUMNS}`,
    params,
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('payment', paymentId);
  return row;
}

export interface RefundRow {
  id: string;
  payment_id: string;
  amount: number | string;
  currency: string;
  reason: string | null;
  status: RefundView['status'];
  provider_ref: string | null;
  failure_reason: string | null;
  call_until: string | null;
  created_at: string;
}

export const REFUND_COLUMNS = `id, payment_id, amount, currency, reason, status, provider_ref, failure_reason,
  ${isoTime('call_until')} as call_until, ${isoTime('created_at')} as created_at`;

export function toRefund(row: RefundRow): RefundView {
  return {
    id: row.id,
    object: 'refund',
    paymentId: row.payment_id,
    amount: Number(row.amount),
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    providerRef: row.provider_ref,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
  };
}
