import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the chat module mints and their prefixes, which its stored ids carry: never change one. */
export const chatIds = defineIds({ message: 'msg' });
export const { newId, isId, idPattern } = chatIds;
