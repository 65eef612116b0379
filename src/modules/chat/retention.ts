import type { RetentionRule } from '../../core/modules/manifest.ts';

/**
 * A room's changes serve clients that resume (`join {changeSeq}`); messages themselves are records and
 * stay. A client away longer than this is told to read the history instead (`resync_required`).
 */
export const CHAT_CHANGES_RETENTION: RetentionRule = {
  name: 'chat_changes',
  description:
    'Chat changes replayed to realtime clients that resume; a client that resumes from a change older than this is refused with resync_required and reads the history over REST.',
  table: 'chat_changes',
  timeColumn: 'created_at',
  defaultAgeMs: 7 * 86_400_000,
};
