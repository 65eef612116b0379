import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the module mints, and their prefixes; the manifest declares them (`idPrefixes`). */
export const auctionsIds = defineIds({ auction: 'auc', bid: 'bid' });
export const { newId, idPattern } = auctionsIds;
