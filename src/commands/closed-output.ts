/**
 * A reader that goes away (`svc openapi | head -c 200`) is the end of the command, not an error: the
 * output nobody reads any more is dropped and the process exits 0, without a stack trace. Status 0 rather
 * than 141 (what a process killed by SIGPIPE reports) so a script under `set -o pipefail` that reads only
 * the start of the output does not fail; `head` itself already reports the pipeline's own status.
 */
export function exitQuietlyWhenOutputCloses(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') return exit(0);
      throw error;
    });
  }
}
