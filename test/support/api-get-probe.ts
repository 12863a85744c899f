// Run under bun by src/engine/docker-api.test.ts: byre's apiGet, as the
// compiled binary runs it (bun's own socket), against the test's servers.
// argv[2] is a JSON list of [socket, path, { timeoutMs, maxBytes }]; prints
// the replies as JSON, in order.

import { apiGet, type ApiGetOptions } from '../../src/engine/docker-api.js';

if (!('Bun' in globalThis)) throw new Error('run this under bun');
const asks = JSON.parse(process.argv[2] ?? '[]') as [string, string, ApiGetOptions][];
const replies = [];
for (const [socket, urlPath, options] of asks) replies.push(await apiGet(socket, urlPath, options));
process.stdout.write(JSON.stringify(replies));
