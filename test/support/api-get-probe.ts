// Run under bun by src/engine/docker-api.test.ts: byre's apiGet, as the
// compiled binary runs it (bun's own socket), against the test's servers.
// argv[2] is a JSON list of [socket, path, { timeoutMs, maxBytes,
// abortAfterMs }]; prints the replies as JSON, in order.

import { apiGet } from '../../src/engine/docker-api.js';

type ApiGetOptions = NonNullable<Parameters<typeof apiGet>[2]>;

type Ask = [string, string, Omit<ApiGetOptions, 'signal'> & { abortAfterMs?: number }];

if (!('Bun' in globalThis)) throw new Error('run this under bun');
const asks = JSON.parse(process.argv[2] ?? '[]') as Ask[];
const replies = [];
for (const [socket, urlPath, { abortAfterMs, ...options }] of asks) {
  const signal = abortAfterMs === undefined ? undefined : AbortSignal.timeout(abortAfterMs);
  replies.push(await apiGet(socket, urlPath, { ...options, ...(signal ? { signal } : {}) }));
}
process.stdout.write(JSON.stringify(replies));
