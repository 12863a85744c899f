// Engine-tier gate: fail the whole tier when BYRE_TEST_ENGINES names an engine
// that is not up, and sweep anything test-made once the tier ends.

import { existsSync } from 'node:fs';
import {
  engineAnswers,
  flavorsUnderTest,
  requiredEngines,
  testUser,
  userEngineAnswers,
} from './engines.js';
import { removeBuildCaches, removeTransferMemos, sweepTestObjects } from './harness.js';

export default function setup(): () => void {
  const missing = requiredEngines().filter((e) => !engineAnswers(e));
  if (missing.length > 0) {
    throw new Error(
      `BYRE_TEST_ENGINES names ${missing.join(', ')}, which did not answer \`info\`. ` +
        'Run ../shared/engines/setup.sh first.',
    );
  }
  const user = testUser();
  if (user !== null) {
    const down = requiredEngines().filter((e) => !userEngineAnswers(user, e));
    if (down.length > 0) {
      throw new Error(
        `BYRE_TEST_USER=${user}, but ${down.join(', ')} does not answer for that user. ` +
          'Run ../shared/engines/setup.sh --rootless <user> and add the user to the docker group.',
      );
    }
  }
  if (!existsSync('dist/byre')) {
    throw new Error(
      'dist/byre is missing: the engine tier drives the built binary; run `npm run build`.',
    );
  }
  if (flavorsUnderTest().length === 0) {
    process.stderr.write('engine tier: no engine answers; engine tests will be skipped.\n');
  }
  return () => {
    const flavors = flavorsUnderTest();
    for (const flavor of flavors) sweepTestObjects(flavor);
    removeBuildCaches(flavors);
    removeTransferMemos(flavors);
  };
}
