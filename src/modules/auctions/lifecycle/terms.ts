import { assertCurrency } from '../../../core/currencies.ts';
import { AppError, InvalidRequest } from '../../../core/http/errors.ts';
import type { Increment, Status } from '../rules.ts';

/** The checks of an auction's terms that its schema cannot express. */
export function checkTerms(terms: {
  currency: string;
  startingPrice: number;
  reservePrice: number | null;
  buyNowPrice: number | null;
  increments: readonly Increment[];
}): void {
  assertCurrency(terms.currency);
  const rows = terms.increments;
  if (rows[0]?.from !== 0 || rows.some((row, i) => i > 0 && row.from <= (rows[i - 1]?.from ?? 0))) {
    throw new InvalidRequest('the increment table must start at 0 and ascend', [
      {
        field: '/body/increments',
        message: 'rows by strictly ascending `from`, the first with from 0',
        code: 'invalid_increments',
      },
    ]);
  }
  const { startingPrice, reservePrice, buyNowPrice } = terms;
  if (reservePrice !== null && reservePrice < startingPrice) {
    throw new InvalidRequest('the reserve may not be below the starting price', [
      { field: '/body/reservePrice', message: `must be at least ${startingPrice}`, code: 'below_start' },
    ]);
  }
  if (buyNowPrice !== null && buyNowPrice <= Math.max(startingPrice, reservePrice ?? 0)) {
    throw new InvalidRequest('the buy-now price must be above the starting price and the reserve', [
      {
        field: '/body/buyNowPrice',
        message: `must be above ${Math.max(startingPrice, reservePrice ?? 0)}`,
        code: 'below_start',
      },
    ]);
  }
}

/** 409 for a change the auction's status does not allow, naming the status. */
export function wrongStatus(auctionId: string, status: Status, wanted: string): AppError {
  return new AppError('conflict', `auction ${auctionId} is ${status}: it cannot ${wanted}`, {
    details: [{ field: '/status', message: `is ${status}`, code: 'invalid_transition' }],
  });
}
