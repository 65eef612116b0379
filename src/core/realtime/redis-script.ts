import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisFailure } from './redis-connection.ts';

const shas = new Map<string, string>();

function shaOf(script: string): string {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  return sha;
}

/**
 * EVALSHA, falling back to EVAL once when the server does not have the script (first use, or after a
 * restart or SCRIPT FLUSH); EVAL caches it for the next call. All arguments go in ARGV.
 */
export async function runScript(redis: Redis, script: string, args: (string | number)[]): Promise<unknown> {
  try {
    try {
      return await redis.evalsha(shaOf(script), 0, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await redis.eval(script, 0, ...args);
    }
  } catch (error) {
    throw redisFailure(error);
  }
}
