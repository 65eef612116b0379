import type { Response } from '../helper.ts';

/** The cases of actions-end-user.test.ts: every action with the REST route it mirrors, and how answers compare. */
export interface Fixture {
  victim: string;
  messageId: string;
  auctionId: string;
  paymentId: string;
  webhookId: string;
  marker: string;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: Record<string, unknown> | Buffer;
  headers?: Record<string, string>;
}

export interface Case {
  args: (f: Fixture) => Record<string, unknown>;
  rest: (f: Fixture) => RestCall;
}

export const VAULT = 'vault';
export const LOBBY = 'lobby';
/** An empty Yjs update (no structs, no deletions). */
const EMPTY_UPDATE = Buffer.from([0, 0]);
export const SESSION_MODULES = ['rooms', 'presence', 'chat', 'auctions', 'payments', 'sync', 'analytics'];
const QUERY = { metrics: ['events'], dateRange: { preset: 'last_7_days' }, timezone: 'UTC' };
const FUNNEL = {
  steps: [{ event: 'a' }, { event: 'b' }],
  dateRange: { preset: 'last_7_days' },
  timezone: 'UTC',
};

export const cases: Record<string, Case> = {
  analytics_query: {
    args: () => QUERY,
    rest: () => ({ method: 'POST', url: '/v1/analytics/query', payload: QUERY }),
  },
  analytics_funnel: {
    args: () => FUNNEL,
    rest: () => ({ method: 'POST', url: '/v1/analytics/funnel', payload: FUNNEL }),
  },
  list_auctions: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/auctions?roomId=${VAULT}` }),
  },
  get_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'GET', url: `/v1/auctions/${f.auctionId}` }),
  },
  create_auction: {
    args: () => ({ roomId: VAULT, title: 'x', currency: 'EUR', startingPrice: 100, durationSeconds: 60 }),
    rest: () => ({
      method: 'POST',
      url: '/v1/auctions',
      payload: { roomId: VAULT, title: 'x', currency: 'EUR', startingPrice: 100, durationSeconds: 60 },
    }),
  },
  start_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'POST', url: `/v1/auctions/${f.auctionId}/start` }),
  },
  // Bidding in the victim's name.
  place_bid: {
    args: (f) => ({ auctionId: f.auctionId, amount: 5_000, actor: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: `/v1/auctions/${f.auctionId}/bids`,
      payload: { amount: 5_000, actor: actorOf(f.victim) },
    }),
  },
  cancel_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'POST', url: `/v1/auctions/${f.auctionId}/cancel`, payload: {} }),
  },
  list_messages: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/messages` }),
  },
  // Writing in the victim's name.
  send_message: {
    args: (f) => ({ roomId: VAULT, text: 'as the victim', actor: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: `/v1/rooms/${VAULT}/messages`,
      payload: { text: 'as the victim', actor: actorOf(f.victim) },
    }),
  },
  delete_message: {
    args: (f) => ({ roomId: VAULT, messageId: f.messageId }),
    rest: (f) => ({ method: 'DELETE', url: `/v1/rooms/${VAULT}/messages/${f.messageId}` }),
  },
  list_payments: {
    args: (f) => ({ customer: f.victim }),
    rest: (f) => ({ method: 'GET', url: `/v1/payments?customer=${encodeURIComponent(f.victim)}` }),
  },
  get_payment: {
    args: (f) => ({ paymentId: f.paymentId }),
    rest: (f) => ({ method: 'GET', url: `/v1/payments/${f.paymentId}` }),
  },
  create_payment: {
    args: (f) => ({ amount: 100, currency: 'EUR', customer: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: '/v1/payments',
      payload: { amount: 100, currency: 'EUR', customer: actorOf(f.victim) },
    }),
  },
  refund_payment: {
    args: (f) => ({ paymentId: f.paymentId }),
    rest: (f) => ({ method: 'POST', url: `/v1/payments/${f.paymentId}/refunds`, payload: {} }),
  },
  // The balance is read over REST through the ledger's accounts (API keys only).
  get_balance: {
    args: (f) => ({ account: `customer:${f.victim}` }),
    rest: () => ({ method: 'GET', url: '/v1/ledger/accounts' }),
  },
  list_presence: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/presence` }),
  },
  list_rooms: { args: () => ({}), rest: () => ({ method: 'GET', url: '/v1/rooms' }) },
  get_room: { args: () => ({ roomId: VAULT }), rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}` }) },
  create_room: {
    args: () => ({ id: 'intruders', name: 'x' }),
    rest: () => ({ method: 'POST', url: '/v1/rooms', payload: { id: 'intruders', name: 'x' } }),
  },
  update_room: {
    args: () => ({ roomId: VAULT, name: 'taken' }),
    rest: () => ({ method: 'PATCH', url: `/v1/rooms/${VAULT}`, payload: { name: 'taken' } }),
  },
  delete_room: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'DELETE', url: `/v1/rooms/${VAULT}` }),
  },
  get_document: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/ydoc` }),
  },
  apply_document_update: {
    args: () => ({ roomId: VAULT, update: EMPTY_UPDATE.toString('base64') }),
    rest: () => ({
      method: 'PUT',
      url: `/v1/rooms/${VAULT}/ydoc-binary`,
      payload: EMPTY_UPDATE,
      headers: { 'content-type': 'application/octet-stream' },
    }),
  },
  list_webhooks: { args: () => ({}), rest: () => ({ method: 'GET', url: '/v1/webhooks' }) },
  create_webhook: {
    args: () => ({ url: 'https://example.test/x', eventTypes: ['app.*'] }),
    rest: () => ({
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: 'https://example.test/x', eventTypes: ['app.*'] },
    }),
  },
  delete_webhook: {
    args: (f) => ({ webhookId: f.webhookId }),
    rest: (f) => ({ method: 'DELETE', url: `/v1/webhooks/${f.webhookId}` }),
  },
  list_webhook_deliveries: {
    args: (f) => ({ endpointId: f.webhookId }),
    rest: (f) => ({ method: 'GET', url: `/v1/webhooks/${f.webhookId}/deliveries` }),
  },
};

export function actorOf(externalId: string) {
  return { type: 'end_user', id: externalId, identityProvider: 'test' };
}

export interface Answer {
  status: number;
  error: string | undefined;
  body: string;
}

export function answerOf(res: Response): Answer {
  const body = res.body;
  const error = res.statusCode >= 400 ? res.json<{ error?: string }>().error : undefined;
  return { status: res.statusCode, error, body };
}

/** What the action must answer, given what the route answered the same token. */
export function expectedOf(rest: Answer): { status: number; error: string | undefined } {
  if (rest.status === 401) return { status: 403, error: 'forbidden' };
  if (rest.status < 300) return { status: 200, error: undefined };
  return { status: rest.status, error: rest.error };
}
