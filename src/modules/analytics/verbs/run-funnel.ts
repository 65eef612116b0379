import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { checkedFilters, resolveRange } from '../query-input.ts';
import type { FunnelInput, FunnelResult } from '../query-schema.ts';
import { analyticsStore } from '../settings.ts';
import { checkedZone } from '../time/zone-time.ts';

const ratio = (n: number, d: number | undefined) => (d === undefined || d === 0 ? null : n / d);

/**
 * An ordered funnel by unique actor: an actor reaches step k when, after an event of step 1 in the date
 * range, it has events of steps 2..k in that order, each later than the one before and all within
 * `windowSeconds` of the first (and before the range's end).
 */
export async function runFunnel(
  ctx: ServiceContext,
  input: Static<typeof FunnelInput>,
): Promise<Static<typeof FunnelResult>> {
  const zone = checkedZone(input.timezone);
  const [from, to] = resolveRange(input.dateRange, zone, ctx.clock.now());
  const steps = input.steps.map((step, i) => ({
    event: step.event,
    filters: checkedFilters(step.filters, `/body/steps/${i}/filters`),
  }));
  const counts = await analyticsStore.funnel(ctx, { steps, from, to, windowMs: input.windowSeconds * 1000 });
  return {
    timezone: zone,
    dateRange: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    windowSeconds: input.windowSeconds,
    steps: steps.map((step, i) => ({
      event: step.event,
      actors: counts[i] ?? 0,
      conversionFromFirst: i === 0 ? ratio(counts[0] ?? 0, counts[0]) : ratio(counts[i] ?? 0, counts[0]),
      conversionFromPrevious: i === 0 ? null : ratio(counts[i] ?? 0, counts[i - 1]),
    })),
  };
}
