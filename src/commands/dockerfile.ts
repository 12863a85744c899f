// `byre dockerfile`: print the Dockerfile develop would build for this
// directory. No side effects: it neither enrols the project nor touches the
// build context.

import { deliveredCredentialRows } from '../config/credential-rows.js';
import type { Io } from '../io.js';
import { printNotes } from '../output/notes.js';
import { postureFacts } from '../network/posture.js';
import { loadBox, planBox } from './load.js';

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

export async function dockerfileCommand(io: Io): Promise<void> {
  const loaded = await loadBox(io);
  const { config, skills, warnings } = loaded;
  const plan = await planBox(io, loaded);
  printNotes(io.stderr, [...warnings, ...plan.notes]);
  const posture = postureFacts(config, skills);
  if (posture.hook !== null)
    io.stdout.write(firewallNote(posture.skill?.id ?? '', posture.posture));
  const credentials = deliveredCredentialRows(config).map((r) => r.key);
  if (credentials.length > 0) io.stdout.write(credentialNote(credentials));
  io.stdout.write(plan.dockerfile);
}
