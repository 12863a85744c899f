// Reading an engine's stderr for the few failures byre reacts to differently:
// an engine that is not answering, and an object that is not there. Pure;
// anything unrecognised is 'other' and surfaces verbatim in EngineError.

type EngineFailure = 'unreachable' | 'denied' | 'other';

/** The engine's socket refused this user (not in the docker group): it cannot run this user's boxes. */
const DENIED = [/permission denied while trying to connect/i, /connect: permission denied/i];

const UNREACHABLE = [
  /cannot connect to (the )?docker daemon/i,
  /is the docker daemon running/i,
  /connection refused/i,
  /podman machine init/i,
  /unable to connect to podman/i,
  /cannot connect to podman/i,
  /error during connect/i,
];

/** A build step that failed inside the engine proves the engine answered. */
const STEP_FAILED = [
  /returned a non-zero code/i,
  /did not complete successfully/i,
  /error building at step/i,
];

export function classifyEngineFailure(stderr: string): EngineFailure {
  if (STEP_FAILED.some((re) => re.test(stderr))) return 'other';
  if (DENIED.some((re) => re.test(stderr))) return 'denied';
  return UNREACHABLE.some((re) => re.test(stderr)) ? 'unreachable' : 'other';
}

const NOT_FOUND = [
  /no such (container|volume|image|object)/i,
  /image not known/i,
  /no container with name or id/i,
  /no volume with name/i,
];

/** The named container/volume/image does not exist (and the engine did answer). */
export function isNotFound(stderr: string): boolean {
  return classifyEngineFailure(stderr) === 'other' && NOT_FOUND.some((re) => re.test(stderr));
}

/**
 * A podman listing that failed because an object vanished while it read the
 * store: podman has no daemon, so an image, layer, container or volume that
 * another client removes mid-listing fails the whole listing ("… not known").
 * A listing names no object, so "not known" can only be that race.
 */
export function isListingRace(stderr: string): boolean {
  return (
    classifyEngineFailure(stderr) === 'other' &&
    /\b(image|layer|container|volume) not known\b|no such (container|image|volume|layer)/i.test(
      stderr,
    )
  );
}

/**
 * Every line of a failed batch query says "no such …": the objects that
 * vanished between a listing and the query, while the engine answered for
 * the rest.
 */
export function onlyNotFound(stderr: string): boolean {
  const said = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return (
    said.length > 0 &&
    classifyEngineFailure(stderr) === 'other' &&
    said.every((l) => NOT_FOUND.some((re) => re.test(l)))
  );
}

/** Engine stderr kept for an error: the last 64 KiB, where the reason is. */
const STDERR_CAP = 64 * 1024;

export function tail(text: string, cap: number = STDERR_CAP): string {
  if (text.length <= cap) return text;
  const cut = text.slice(text.length - cap);
  const nl = cut.indexOf('\n');
  return nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut;
}

export const DENIED_REMEDY: Record<'docker' | 'podman', string> = {
  docker:
    'add this user to the docker group (and log in again), or set engine = "podman" to use rootless Podman',
  podman: "use podman as the user who owns its socket, or fix the socket's permissions",
};

export const UNREACHABLE_REMEDY: Record<'docker' | 'podman', string> = {
  docker: 'start the Docker daemon (or Docker Desktop) and try again, or set engine = "podman"',
  podman:
    'start Podman (`podman machine start` on macOS/Windows) and try again, or set engine = "docker"',
};
