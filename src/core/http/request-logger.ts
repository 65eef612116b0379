import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<FastifyBaseLogger['info']>;
/** Pino, which Fastify builds from the `logger` options, tells whether a level is written. */
type Leveled = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * A request's logger (`request.log`), whose pino child (its `requestId` binding serialized) is made on the
 * first line actually written: most requests write none at the production level, and making the child for
 * each of them was measurable on the request path (bindings serialized, a logger object per request).
 * What is written, and with which bindings, is the child's own.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Leveled,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  private write(level: Level, args: LogArgs): void {
    const logger = (this.#child ?? this.parent) as Leveled;
    if (logger.isLevelEnabled !== undefined && !logger.isLevelEnabled(level)) return;
    const real = this.real;
    (real[level] as (...a: LogArgs) => void).apply(real, args);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(...args: LogArgs): void {
    const real = this.real;
    (real.silent as (...a: LogArgs) => void).apply(real, args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a lazy child, unless the route sets its own level or serializers. */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options);
}
