import type { EventBus } from '../../events/bus.ts';
import type { ServiceMetrics } from './service-metrics.ts';

const PAYMENT = 'payment.';

/**
 * The figures that are already events: an accepted bid (`auction.bid.placed`) and each payment status
 * entered (`payment.<status>`), counted by the instance that committed them. Returns the unsubscribe.
 */
export function countEvents(bus: EventBus, metrics: ServiceMetrics): () => void {
  const accepted = metrics.bids.labels({ outcome: 'accepted' });
  return bus.subscribe((event, origin) => {
    if (origin !== 'here') return;
    if (event.type === 'auction.bid.placed') accepted.inc();
    else if (event.type.startsWith(PAYMENT)) {
      metrics.paymentTransitions.inc({ status: event.type.slice(PAYMENT.length) });
    }
  });
}
