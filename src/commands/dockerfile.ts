// `byre dockerfile`: print the Dockerfile develop would build for this
// directory. It neither enrols the project nor touches the store's build
// context; `--context DIR` writes a fresh build context into a new directory
// no box can write, the one to build by hand (adr/0048).

import path from 'node:path';

import { deliveredCredentialRows } from '../config/credential-rows.js';
import { ByreError, RefusedError } from '../errors.js';
import { stageFreshContext } from '../session/stage.js';
import type { Io } from '../io.js';
import { printNotes, say } from '../output/notes.js';
import { quoteToken } from '../output/shell-quote.js';
import { postureFacts } from '../gen/posture.js';
import { canonicalPathLoose } from '../host/canonical.js';
import { lstatKind } from '../host/path-view.js';
import { isAncestorOrSelf } from '../project/containment.js';
import { loadBox, planBox, type LoadedBox } from './load.js';

export interface DockerfileOptions {
  /** A new directory to write the build context into. */
  context?: string;
}

/** The comment block an ejected Dockerfile carries when a posture skill is on. */
function firewallNote(skillId: string, posture: string): string {
  return [
    `# NOTE (byre): this image expects byre's launch-time firewall (${skillId}, ${posture}).`,
    '# Its launcher waits at a launch gate until the wall is applied from outside the',
    '# box, and fails closed after ~30 s without it: run `byre ejectfirewall` for the',
    '# script that applies it to a box started with plain docker/podman run.',
    '',
  ].join('\n');
}

/** The comment block an ejected Dockerfile carries when the config holds credential rows. */
function credentialNote(keys: readonly string[]): string {
  return [
    `# NOTE (byre): this image expects byre's credential delivery (${keys.join(', ')}).`,
    '# Its launcher waits at a credential gate until `byre develop` has streamed the',
    '# decrypted values onto the session tmpfs, and fails closed after ~30 s without',
    '# them. Credentials are never carried by an ejected run: they need the passphrase.',
    '',
  ].join('\n');
}

/**
 * Where `--context` may write: a path that does not exist yet, whose parent
 * does, outside everything a box of this project can write (a box could
 * change the context between byre writing it and the user building it).
 */
async function contextTarget(io: Io, loaded: LoadedBox, given: string): Promise<string> {
  const asked = path.resolve(io.cwd, given);
  const exists = lstatKind(asked) !== 'missing';
  if (exists) {
    throw new RefusedError(`--context ${asked} already exists`, {
      rule: 'dockerfile.context-exists',
      remedy:
        'name a directory that does not exist yet; byre creates it and writes a fresh context',
    });
  }
  const target = await canonicalPathLoose(asked);
  const parent = path.dirname(target);
  if (lstatKind(parent) !== 'dir') {
    throw new ByreError(`--context ${asked}: its parent ${parent} is not a directory`, {
      rule: 'dockerfile.context-parent',
      remedy: `create ${parent} first, or name a directory in one that exists`,
    });
  }
  // The box-writable trees (adr/0046): the project's, its store's, rw mounts and seed sources.
  for (const { path: dir, what } of loaded.trees) {
    if (!isAncestorOrSelf(dir, target)) continue;
    throw new RefusedError(
      `--context ${asked} lies inside ${dir} (${what}); a box could change the context before you build it`,
      {
        rule: 'dockerfile.context-box-writable',
        remedy:
          'name a new directory outside your projects, byre’s store and every read-write mount (for example under /tmp)',
      },
    );
  }
  return target;
}

export async function dockerfileCommand(io: Io, options: DockerfileOptions = {}): Promise<void> {
  const loaded = await loadBox(io);
  const { config, skills, warnings } = loaded;
  const plan = await planBox(io, loaded);
  printNotes(io.stderr, [...warnings, ...plan.notes]);
  if (options.context !== undefined) {
    const target = await contextTarget(io, loaded, options.context);
    await stageFreshContext(target, plan, loaded.ctx.projectRoot);
    say(io.stderr, `wrote a fresh build context to ${target}; build it with:`);
    const dockerfile = quoteToken(path.join(target, 'Dockerfile.generated'));
    say(
      io.stderr,
      `  docker build --build-arg BYRE_UID=$(id -u) --build-arg BYRE_GID=$(id -g) -f ${dockerfile} ${quoteToken(target)}`,
    );
  }
  const posture = postureFacts(config, skills);
  if (posture.hook !== null)
    io.stdout.write(firewallNote(posture.skill?.id ?? '', posture.posture));
  const credentials = deliveredCredentialRows(config).map((r) => r.key);
  if (credentials.length > 0) io.stdout.write(credentialNote(credentials));
  io.stdout.write(plan.dockerfile);
}
