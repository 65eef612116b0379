import { type Static, Type } from 'typebox';
import { EndpointId, type EndpointRef, Time } from './schema.ts';

/** The schemas of `POST /v1/webhooks/:webhookId/replay`: which dead letters to send again, and how many went. */
export const ReplayBody = Type.Object(
  {
    since: { ...Time, description: 'Replay dead-lettered deliveries created at or after this time' },
    until: Type.Optional({ ...Time, description: 'and before this time (default: now)' }),
  },
  {
    title: 'ReplayWebhookInput',
    description: "Which of the endpoint's dead-lettered deliveries to send again: those created since a time",
    additionalProperties: false,
  },
);

export const ReplayResult = Type.Object(
  {
    endpointId: EndpointId,
    queued: Type.Integer({
      minimum: 0,
      description: 'Dead-lettered deliveries now pending again (0 when a replay already queued them)',
    }),
  },
  {
    title: 'WebhookReplay',
    description: 'How many dead-lettered deliveries of the endpoint a replay queued for a new attempt cycle',
  },
);

export type ReplayInput = Static<typeof EndpointRef> & Static<typeof ReplayBody>;
export type WebhookReplay = Static<typeof ReplayResult>;
