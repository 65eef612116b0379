// A load generator in a process of its own: `fire` in load.ts forks this file, sends one run's options,
// and gets autocannon's result back. The service under test then shares no process with its load.
import autocannon from 'autocannon';

process.once('message', async (options: autocannon.Options) => {
  const result = await autocannon(options);
  process.send?.(result, () => process.exit(0));
});
