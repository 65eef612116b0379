import type { RealtimeHooks } from '../../../core/realtime/contributions.ts';

/** Placeholder until the realtime part lands. */
export function auctionsRealtime(): RealtimeHooks {
  return {};
}
