import type { RetentionRule } from '../../core/modules/manifest.ts';

/**
 * Refused bids are a log for support and abuse review, not records: kept 30 days by default. Their
 * clientBidId keys go with them (migration 0094), so a retry after that is decided again.
 */
export const REJECTIONS_RETENTION: RetentionRule = {
  name: 'auction_rejections',
  description:
    'Refused bids (code, amount, price at the time), kept for support and abuse review; a retry of one after its deletion is decided again.',
  table: 'auction_rejections',
  timeColumn: 'created_at',
  defaultAgeMs: 30 * 86_400_000,
};
