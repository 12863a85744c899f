// What a build left behind, read from the engine's own build output: the
// images each step committed. Docker's legacy builder prints ` ---> <id>`
// and podman `--> <id>` after every step; a FROM step's id is the base image
// and a cached step's id existed before, so neither is this build's to
// remove. Pure; runner.ts removes what this finds when a build is interrupted
// (adr/0026).

const STEP = /^(?:Step|STEP) \d+\/\d+ ?: ?(\S+)/;
const COMMITTED = /^ ?-{2,3}> ([0-9a-f]{11,64})\s*$/;

const RUNNING = /^ ?-{2,3}> Running in ([0-9a-f]{12,64})\s*$/;

/** Whether a line of build output matters to the parsers below (callers keep only these). */
export function isStepLine(line: string): boolean {
  return (
    STEP.test(line) || COMMITTED.test(line) || RUNNING.test(line) || line.includes('Using cache')
  );
}

/** Docker's step containers (` ---> Running in <id>`): an interrupted step's may outlive the client. */
export function stepContainers(output: string): string[] {
  return output.split('\n').flatMap((line) => {
    const id = RUNNING.exec(line.replace(/\r$/, ''))?.[1];
    return id === undefined ? [] : [id];
  });
}

/** The images named by FROM steps (the bases a build started from). */
export function fromImages(output: string): string[] {
  return output.split('\n').flatMap((line) => {
    const m = /^(?:Step|STEP) \d+\/\d+ ?: ?FROM\s+(\S+)/i.exec(line.replace(/\r$/, ''));
    return m?.[1] === undefined ? [] : [m[1]];
  });
}

/** Ids of the images a (possibly interrupted) build committed, in order. */
export function committedImages(output: string): string[] {
  const ids: string[] = [];
  let skip = false;
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const step = STEP.exec(line);
    if (step !== null) {
      skip = (step[1] ?? '').toUpperCase() === 'FROM';
      continue;
    }
    if (line.includes('Using cache')) {
      skip = true;
      continue;
    }
    const id = COMMITTED.exec(line)?.[1];
    if (id !== undefined && !skip && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Podman (buildah) keeps one working container per step, named after the
 * image it started from (`<id12>-working-container`, the first after the
 * base's name); an interrupted build leaves them. True for such a name
 * whose image is one this build committed, or the base it started from.
 */
export function isBuildWorkingContainer(
  name: string,
  committed: readonly string[],
  bases: readonly string[],
): boolean {
  const match = /^(.+)-working-container(?:-\d+)?$/.exec(name);
  const from = match?.[1];
  if (from === undefined) return false;
  if (/^[0-9a-f]{12}$/.test(from)) return committed.some((id) => id.startsWith(from.slice(0, 11)));
  return bases.some((base) => from === repositoryName(base));
}

/** `docker.io/library/debian:bookworm` → `debian`: the name buildah gives a base's container. */
function repositoryName(ref: string): string {
  return (
    ref
      .replace(/[:@].*$/, '')
      .split('/')
      .pop() ?? ''
  );
}
