// `byre dockerfile`: print the Dockerfile develop would build for this
// directory. No side effects: it neither enrols the project nor touches the
// build context.

import type { Io } from '../io.js';
import { printNotes } from '../output/notes.js';
import { postureFacts } from '../network/posture.js';
import { loadBox, planBox } from './load.js';

/** The comment block an ejected Dockerfile carries when a posture skill is on. */
export function firewallNote(skillId: string, posture: string): string {
  return [
    `# NOTE (byre): this image expects byre's launch-time firewall (${skillId}, ${posture}).`,
    '# Its launcher waits at a launch gate until the wall is applied from outside the',
    '# box, and fails closed after ~30 s without it: run `byre ejectfirewall` for the',
    '# script that applies it to a box started with plain docker/podman run.',
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
  io.stdout.write(plan.dockerfile);
}
