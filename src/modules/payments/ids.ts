import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the payments module mints and their prefixes, which its stored ids carry: never change one. */
export const paymentsIds = defineIds({ payment: 'pay', refund: 're', ledgerTransaction: 'ltx' });
export const { newId, isId, idPattern } = paymentsIds;
