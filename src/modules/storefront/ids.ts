import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the storefront module mints and their prefixes, which its stored ids carry: never change one. */
export const storefrontIds = defineIds({ operator: 'op', mobileBuild: 'mbd' });
export const { newId, isId, idPattern } = storefrontIds;
