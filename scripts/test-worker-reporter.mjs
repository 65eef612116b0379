// node:test reporter of scripts/test-worker.mjs: hands every event to the worker, in the same process,
// which sorts them by test file and sends its results to scripts/run-tests.mjs. Prints nothing itself.
export default async function* workerReporter(source) {
  const worker = globalThis[Symbol.for('svc.test-worker')];
  for await (const event of source) worker?.event(event);
  yield ''; // a reporter yields its output: none
}
