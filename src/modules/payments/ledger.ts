import type { Queryable } from '../../core/db/database.ts';
import { newId } from './ids.ts';

export interface NewPosting {
  account: string;
  amount: number;
  currency: string;
}

/** Account names: one place, so every posting names its accounts the same way. */
export const ACCOUNTS = {
  world: 'world',
  fees: 'platform:fees',
  sales: 'platform:sales',
  customer: (actor: string) => `customer:${actor}`,
  sellerPayable: (seller: string) => `seller:${seller}:payable`,
} as const;

/** Every currency's postings sum to zero: throws otherwise (a bug, never a user's mistake). */
export function assertBalanced(postings: readonly NewPosting[]): void {
  const sums = new Map<string, number>();
  for (const p of postings) {
    if (!Number.isSafeInteger(p.amount)) throw new Error(`posting amount ${p.amount} is not an integer`);
    sums.set(p.currency, (sums.get(p.currency) ?? 0) + p.amount);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0) throw new Error(`unbalanced ledger transaction: ${currency} postings sum to ${sum}`);
  }
}

/**
 * Posts one balanced transaction of immutable postings, in the caller's transaction (with the change it
 * records). Zero postings are left out. Answers the transaction id.
 */
export async function postTransaction(
  tx: Queryable,
  tenantId: string,
  entry: {
    kind: string;
    paymentId: string | null;
    refundId: string | null;
    postings: readonly NewPosting[];
    at: number;
  },
): Promise<string | undefined> {
  const postings = entry.postings.filter((p) => p.amount !== 0);
  if (postings.length === 0) return undefined;
  assertBalanced(postings);
  const id = newId('ledgerTransaction', entry.at);
  const at = new Date(entry.at).toISOString();
  await tx.query(
    `with t as (
       insert into ledger_transactions (tenant_id, id, kind, payment_id, refund_id, created_at)
       values ($1, $2, $3, $4, $5, $6) returning id)
     insert into ledger_postings (tenant_id, transaction_id, idx, account, currency, amount, created_at)
     select $1, t.id, p.idx, p.account, p.currency, p.amount, $6
       from t, unnest($7::int[], $8::text[], $9::text[], $10::bigint[]) as p(idx, account, currency, amount)`,
    [
      tenantId,
      id,
      entry.kind,
      entry.paymentId,
      entry.refundId,
      at,
      postings.map((_, i) => i),
      postings.map((p) => p.account),
      postings.map((p) => p.currency),
      postings.map((p) => p.amount),
    ],
  );
  return id;
}

/** The platform fee of a capture: basis points (rounded down) plus the fixed part, never above the amount. */
export function platformFee(amount: number, fee: { feeBasisPoints: number; feeFixed: number }): number {
  // BigInt: amount x basis points passes 2^53 for large amounts.
  const share = Number((BigInt(amount) * BigInt(fee.feeBasisPoints)) / 10_000n);
  return Math.min(amount, share + fee.feeFixed);
}

/** Who pays and who is owed, for a payment's postings. */
export interface Parties {
  customer: string | null;
  seller: string | null;
  currency: string;
}

function source(parties: Parties): string {
  return parties.customer === null ? ACCOUNTS.world : ACCOUNTS.customer(parties.customer);
}

/** A capture: the customer pays `amount`; the seller is owed it less the fee; the platform keeps the fee. */
export function capturePostings(parties: Parties, amount: number, fee: number): NewPosting[] {
  const { currency } = parties;
  if (parties.seller === null) {
    return [
      { account: source(parties), amount: -amount, currency },
      { account: ACCOUNTS.sales, amount, currency },
    ];
  }
  return [
    { account: source(parties), amount: -amount, currency },
    { account: ACCOUNTS.sellerPayable(parties.seller), amount: amount - fee, currency },
    { account: ACCOUNTS.fees, amount: fee, currency },
  ];
}

/**
 * The fee a refund gives back: the fee of everything refunded so far, in proportion (rounded down), less
 * what earlier refunds gave back, so a payment refunded in full gives back exactly its fee.
 */
export function refundedFee(fee: number, captured: number, refundedBefore: number, refund: number): number {
  if (captured === 0) return 0;
  const upTo = (refunded: number) => Number((BigInt(fee) * BigInt(refunded)) / BigInt(captured));
  return upTo(refundedBefore + refund) - upTo(refundedBefore);
}

/** A refund: the reverse of a capture's postings for `amount`, with the fee part given back. */
export function refundPostings(parties: Parties, amount: number, feeBack: number): NewPosting[] {
  return capturePostings(parties, amount, feeBack).map((p) => ({ ...p, amount: -p.amount }));
}
