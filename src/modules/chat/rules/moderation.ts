import { InvalidRequest } from '../../../core/http/errors.ts';
import type { ChatSettings } from './config.ts';

const matchers = new Map<string, RegExp>();

/** One regular expression per configured word list, built once: whole words, any case, any script. */
function blockedWordsMatcher(words: readonly string[]): RegExp | undefined {
  if (words.length === 0) return undefined;
  const key = words.join('\u0000');
  let matcher = matchers.get(key);
  if (matcher === undefined) {
    const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    matcher = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
    if (matchers.size > 1000) matchers.clear();
    matchers.set(key, matcher);
  }
  return matcher;
}

/** Refuses text the tenant does not accept: 400 with `too_long` or `blocked_word` in the details. */
export function checkText(text: string, settings: ChatSettings, field = '/body/text'): void {
  // Characters as people count them (code points), the same unit the schema's maxLength counts.
  const length = [...text].length;
  if (length > settings.maxLength) {
    throw new InvalidRequest(`the text is longer than ${settings.maxLength} characters`, [
      { field, message: `must be at most ${settings.maxLength} characters`, code: 'too_long' },
    ]);
  }
  // The word is not echoed: the sender learns that the text was refused and why, not the list.
  if (blockedWordsMatcher(settings.blockedWords)?.test(text) === true) {
    throw new InvalidRequest('the text contains a word this tenant does not accept', [
      { field, message: 'contains a blocked word', code: 'blocked_word' },
    ]);
  }
}
