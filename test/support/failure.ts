// The error a command's promise rejected with, for tests of refusals: the
// test fails plainly when the command succeeded or threw something that is
// not a ByreError, so an assertion on the error's text cannot pass vacuously.

import { ByreError } from '../../src/errors.js';

/** The ByreError `run` rejected with; throws when it resolved or rejected with anything else. */
export async function failure(run: Promise<unknown>): Promise<ByreError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ByreError)) throw new Error(`expected a ByreError, got ${String(error)}`);
  return error;
}
