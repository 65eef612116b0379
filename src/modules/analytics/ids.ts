import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the analytics module mints and their prefixes, which its stored ids carry: never change one. */
export const analyticsIds = defineIds({ analyticsEvent: 'aev' });
export const { newId, isId, idPattern } = analyticsIds;
