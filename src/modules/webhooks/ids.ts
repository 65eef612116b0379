import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the webhooks module mints and their prefixes, which its stored ids carry: never change one. */
export const webhooksIds = defineIds({ webhookEndpoint: 'whe', webhookDelivery: 'whd' });
export const { newId, isId, idPattern } = webhooksIds;
