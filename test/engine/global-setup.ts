// Engine-tier gate: fail the whole tier when BYRE_TEST_ENGINES names an engine
// that is not up, and sweep anything test-made once the tier ends.

import { existsSync } from 'node:fs';
import { engineAnswers, enginesUnderTest, requiredEngines } from './engines.js';
import { sweepTestObjects } from './harness.js';

export default function setup(): () => void {
  const missing = requiredEngines().filter((e) => !engineAnswers(e));
  if (missing.length > 0) {
    throw new Error(
      `BYRE_TEST_ENGINES names ${missing.join(', ')}, which did not answer \`info\`. ` +
        'Run ../shared/engines/setup.sh first.',
    );
  }
  if (!existsSync('dist/byre')) {
    throw new Error(
      'dist/byre is missing: the engine tier drives the built binary; run `npm run build`.',
    );
  }
  if (enginesUnderTest().length === 0) {
    process.stderr.write('engine tier: no engine answers; engine tests will be skipped.\n');
  }
  return () => {
    for (const engine of enginesUnderTest()) sweepTestObjects(engine);
  };
}
