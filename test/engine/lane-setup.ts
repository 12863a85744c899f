// Engine-tier setup run at the top of every file: in a lane scoped to some
// flavours (BYRE_TEST_FLAVORS, adr/0060), each file reports the others'
// flavours as skipped, so a file none of whose flavours is this lane's
// reports a skip instead of failing for want of a suite.

import { it } from 'vitest';
import { flavorScope } from './engines.js';

const scope = flavorScope();
if (scope !== 'all') {
  const other = scope === 'root' ? "the test user's flavours" : 'the root flavours';
  it.skip(`${other} run in another lane (BYRE_TEST_FLAVORS=${scope})`, () => {});
}
