import type { Config } from '../config.ts';

/** What a long step is doing, said to the person who started it (a first start takes many seconds). */
export type Progress = (message: string) => void;

export const silentProgress: Progress = () => {};

const SAYS_PROGRESS: ReadonlySet<Config['logLevel']> = new Set(['info', 'debug', 'trace']);

/**
 * `svc: <message>` lines on stderr at LOG_LEVEL info and below (the default); nothing at warn and above,
 * so a CI run with LOG_LEVEL=warn sees only the banner. Plain lines, not JSON: the logger does not exist
 * yet while the database opens, and these are for a person watching the terminal.
 */
export function progressOnStderr(
  logLevel: Config['logLevel'],
  write: (text: string) => void = (text) => {
    process.stderr.write(text);
  },
): Progress {
  if (!SAYS_PROGRESS.has(logLevel)) return silentProgress;
  return (message) => write(`svc: ${message}\n`);
}
