// Loaded (`--import`) by scripts/run-tests.mjs into node's test runner and so into each test file's own
// process: when a file's process exits, one line goes to SVC_TEST_TIMES_FILE with the file and how long
// its process ran, start of node included. The runner lists the slowest files from these lines and
// starts the slowest first on the next run.
import fs from 'node:fs';

const timesFile = process.env.SVC_TEST_TIMES_FILE;
// NODE_TEST_CONTEXT is set in the processes the test runner starts for files, not in the runner itself.
if (timesFile !== undefined && process.env.NODE_TEST_CONTEXT !== undefined) {
  const file = process.argv[1];
  process.on('exit', (code) => {
    const line = JSON.stringify({ file, ms: Math.round(process.uptime() * 1000), code });
    fs.appendFileSync(timesFile, `${line}\n`);
  });
}
