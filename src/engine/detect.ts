// Engine detection: which engine runs this invocation, pinned to an absolute
// path, and the identity mode that follows from it (rootless, keep-id). A
// declined (shadowed) engine refuses; it is never treated as absent, so `auto`
// never falls through to the other engine past a shadowed binary.

import { ByreError, EngineError } from '../errors.js';
import { rootlessProbeArgv, versionArgv } from './argv.js';
import { apiSecurityOptions } from './docker-api.js';
import { UNREACHABLE_REMEDY } from './classify.js';
import { AbsentToolError, ShadowedToolError, resolveHostTool } from './host-tools.js';
import { checkRootlessPodman, throwIfRefused, type Version } from './host-user.js';
import type { CacheLookup, ProbeCache } from './facts-cache.js';
import { engineFailure, runEngineCommand, type Captured } from './spawn.js';
import type { EngineFacts, EngineName } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

interface DetectOptions {
  cwd?: string;
  /** Bound on each probe; `auto` must not hang on a wedged daemon socket. */
  probeTimeoutMs?: number;
  /** Ask `info` for rootlessness even where the uid answers it (tests with stub engines). */
  alwaysProbeRootless?: boolean;
  /**
   * Ask `--version` even where identity does not depend on it (doctor shows
   * it). Otherwise only a podman that is or may be rootless is asked, for the
   * keep-id minimum: one client process fewer on every other launch.
   */
  version?: boolean;
  /**
   * doctor (adr/0053): ask every engine for real, every time, through its
   * CLI: no remembered answer, no answer taken from the uid, no socket
   * shortcut; podman's probe runs its OCI runtime. Implies `version`.
   */
  health?: boolean;
  /**
   * Remembered probe answers (adr/0038). Docker's `info` is taken from it only
   * when the choice names docker: under `auto`, asking is how byre learns
   * whether docker answers at all. Ignored when `version` is asked.
   */
  cache?: ProbeCache;
}

// Long enough for a busy machine: at a load of 9 on 2 cores, rootless
// podman's `info` was seen taking over 10 s. A dead socket answers at once;
// only a hung engine costs the whole wait.
const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

export async function detectEngine(
  choice: 'auto' | 'docker' | 'podman',
  declinedRoots: readonly string[],
  env: Env,
  options: DetectOptions = {},
): Promise<EngineFacts> {
  const locate = (name: EngineName): string | null => {
    const r = resolveHostTool(name, {
      declinedRoots,
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    if (r.kind === 'declined') throw new ShadowedToolError(r.tool, r.path, r.root);
    return r.kind === 'found' ? r.path : null;
  };
  const timeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;

  if (choice !== 'auto') {
    const p = locate(choice);
    if (p === null) throw new AbsentToolError(choice);
    return probe(choice, p, env, timeoutMs, options, true);
  }

  // auto: docker if present AND answering, else podman. A shadowed docker
  // refuses here rather than reading as "no docker, try podman".
  const dockerPath = locate('docker');
  let dockerFailure: EngineError | null = null;
  if (dockerPath !== null) {
    try {
      return await probe('docker', dockerPath, env, timeoutMs, options, false);
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      dockerFailure = err;
    }
  }
  const podmanPath = locate('podman');
  if (podmanPath !== null) return probe('podman', podmanPath, env, timeoutMs, options, true);
  if (dockerFailure !== null) throw dockerFailure;
  throw new ByreError('no container engine found: neither docker nor podman is on PATH', {
    rule: 'engine.none',
    remedy: 'install Docker or Podman, or add its directory to PATH',
  });
}

/**
 * A local podman (no remote connection configured) is rootless exactly when
 * the invoking user is not root; that answer costs nothing, where `podman
 * info` costs ~200 ms per launch. Null when podman may be remote.
 */
export function localPodmanRootless(
  name: EngineName,
  env: Env,
  uid: number | undefined,
): boolean | null {
  if (name !== 'podman' || uid === undefined) return null;
  if (env['CONTAINER_HOST'] || env['CONTAINER_CONNECTION'] || env['DOCKER_HOST']) return null;
  return uid !== 0;
}

const UNCACHED: CacheLookup = { kind: 'uncached' };

/** An answer byre already has, shaped like the engine's reply. */
function answered(stdout: string): Captured {
  return { exitCode: 0, stdout, stderr: '', timedOut: false, spawnError: undefined };
}

async function probe(
  name: EngineName,
  enginePath: string,
  env: Env,
  timeoutMs: number,
  options: Pick<DetectOptions, 'alwaysProbeRootless' | 'version' | 'cache' | 'health'>,
  daemonFromCache: boolean,
): Promise<EngineFacts> {
  const opts = { env, timeoutMs };
  const health = options.health === true;
  const infoArgs = rootlessProbeArgv(name, health);
  const local =
    options.alwaysProbeRootless === true || health
      ? null
      : localPodmanRootless(name, env, process.getuid?.());
  // Only rootless podman's identity depends on the version (keep-id); asked
  // beside `info` when podman's rootlessness is not known yet.
  const askVersion = options.version === true || health || (name === 'podman' && local !== false);
  const cache =
    options.version === true || options.alwaysProbeRootless === true || health
      ? undefined
      : options.cache;
  const infoCached =
    cache !== undefined && daemonFromCache && name === 'docker'
      ? cache.lookup('docker-info', enginePath)
      : UNCACHED;
  const verCached =
    cache !== undefined && askVersion && name === 'podman'
      ? cache.lookup('podman-version', enginePath)
      : UNCACHED;
  // Docker's own socket answers `info` without a client process (adr/0040),
  // except for doctor and the stub-engine tests, which ask the CLI itself.
  const viaSocket =
    name === 'docker' &&
    options.version !== true &&
    options.alwaysProbeRootless !== true &&
    !health;
  const askInfo = async (): Promise<Captured> => {
    const socket = viaSocket ? await apiSecurityOptions(enginePath, env, timeoutMs) : null;
    return socket !== null ? answered(socket) : runEngineCommand(enginePath, infoArgs, opts);
  };
  const [info, ver] = await Promise.all([
    local !== null
      ? answered(String(local))
      : infoCached.kind === 'hit'
        ? answered(JSON.stringify(infoCached.answer === 'rootless=true' ? ['name=rootless'] : []))
        : askInfo(),
    !askVersion
      ? null
      : verCached.kind === 'hit'
        ? answered(`podman version ${verCached.answer}`)
        : runEngineCommand(enginePath, versionArgv(), opts),
  ]);
  const first = judgeRootlessProbe(name, infoArgs, info, timeoutMs, 1);
  const judged =
    first.kind === 'retry'
      ? judgeRootlessProbe(name, infoArgs, await askInfo(), timeoutMs, 2)
      : first;
  if (judged.kind === 'refuse') throw judged.error;
  const rootless = judged.rootless;
  const version = ver !== null && ver.exitCode === 0 ? parseVersion(ver.stdout) : null;
  if (infoCached.kind === 'miss') infoCached.store(`rootless=${String(rootless)}`);
  if (verCached.kind === 'miss' && version !== null) {
    verCached.store(`${version.major}.${version.minor}.${version.patch}`);
  }
  const facts: EngineFacts = {
    name,
    path: enginePath,
    rootless,
    keepId: false,
    version: version === null ? '' : `${version.major}.${version.minor}.${version.patch}`,
    warnings: [],
  };
  if (name === 'podman' && rootless) {
    const check = checkRootlessPodman(version, env);
    const warning = throwIfRefused(check);
    if (warning !== null) facts.warnings.push(warning);
    facts.keepId = check.kind === 'ok';
  }
  return facts;
}

/** What one run of the rootless probe comes to. */
type RootlessFinding =
  | { kind: 'answer'; rootless: boolean }
  | { kind: 'retry' }
  | { kind: 'refuse'; error: EngineError };

/**
 * The rootless probe's outcome → a finding. A probe byre stopped is a
 * timeout whatever it printed or exited with (podman 4.3 traps the SIGTERM
 * and exits 0 with nothing on stdout, which once read as an unexpected empty
 * answer under heavy load); a client killed by a signal says so; an empty
 * answer from a client that exited 0 is asked once more before it is judged.
 */
export function judgeRootlessProbe(
  name: EngineName,
  argv: readonly string[],
  info: Captured,
  timeoutMs: number,
  attempt: 1,
): RootlessFinding;
export function judgeRootlessProbe(
  name: EngineName,
  argv: readonly string[],
  info: Captured,
  timeoutMs: number,
  attempt: 2,
): Exclude<RootlessFinding, { kind: 'retry' }>;
export function judgeRootlessProbe(
  name: EngineName,
  argv: readonly string[],
  info: Captured,
  timeoutMs: number,
  attempt: 1 | 2,
): RootlessFinding {
  const stderr = info.stderr.trim();
  if (info.timedOut) {
    return {
      kind: 'refuse',
      error: new EngineError(
        `${name} info did not answer within ${timeoutMs / 1000} s; byre stopped it`,
        {
          engine: name,
          argv,
          stderr,
          rule: 'engine.timeout',
          remedy: `if the machine is busy, try again when it is quieter; otherwise ${UNREACHABLE_REMEDY[name]}`,
        },
      ),
    };
  }
  if (info.exitCode !== 0) {
    const err = engineFailure(name, argv, info);
    // A daemon that does not answer `info` is unreachable, whatever it said.
    return {
      kind: 'refuse',
      error:
        err.rule === 'engine.failed'
          ? new EngineError(`${name} is not answering (info failed)`, {
              engine: name,
              argv,
              ...(info.exitCode === undefined ? {} : { exitCode: info.exitCode }),
              stderr: err.stderr,
              rule: 'engine.unreachable',
              remedy: UNREACHABLE_REMEDY[name],
            })
          : err,
    };
  }
  const rootless =
    name === 'podman' ? parsePodmanRootless(info.stdout) : parseDockerRootless(info.stdout);
  if (rootless !== null) return { kind: 'answer', rootless };
  const empty = info.stdout.trim() === '';
  if (empty && attempt === 1) return { kind: 'retry' };
  return {
    kind: 'refuse',
    error: new EngineError(
      empty
        ? `${name} answered the rootless probe with nothing, twice`
        : `${name} gave an unexpected answer to the rootless probe: ${JSON.stringify(info.stdout.trim())}`,
      {
        engine: name,
        argv,
        exitCode: 0,
        stderr,
        rule: 'engine.rootless-probe',
        remedy: `run \`${name} info\` to see what it says, then \`byre doctor\` again`,
      },
    ),
  };
}

/** Podman's `{{.Host.Security.Rootless}}`: exactly `true` or `false`, else null. */
function parsePodmanRootless(stdout: string): boolean | null {
  const answer = stdout.replace(/\r?\n$/, '');
  return answer === 'true' ? true : answer === 'false' ? false : null;
}

/** Docker's `{{json .SecurityOptions}}`: rootless iff it lists `name=rootless`. */
function parseDockerRootless(stdout: string): boolean | null {
  let value: unknown;
  try {
    value = JSON.parse(stdout.trim() === '' ? 'null' : stdout);
  } catch {
    return null;
  }
  if (value === null) return false;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null;
  return value.some((opt: string) => opt.split(',').includes('name=rootless'));
}

/** `podman version 4.3.1`, `Docker version 28.2.2, build e6534b4` → numbers. */
function parseVersion(stdout: string): Version | null {
  const m = /version\s+v?(\d+)\.(\d+)(?:\.(\d+))?/i.exec(stdout);
  if (m === null) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? '0') };
}
