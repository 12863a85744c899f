// `byre ejectfirewall`: the outside-the-box step of a network posture as a
// standalone POSIX script taking the box's name, for boxes started with plain
// `docker run` from `byre dockerrun`. Pure.

import { shellQuote } from '../output/shell-quote.js';
import type { EngineName } from '../engine/types.js';
import { NETNS_HELPER_PRIVILEGES } from './netns.js';

export interface EjectInput {
  engine: EngineName;
  image: string;
  hook: string;
  posture: string;
  skillId: string;
  projectId: string;
  /** BYRE_EGRESS / BYRE_EGRESS_DENY and any other helper env, not box env. */
  env: Readonly<Record<string, string>>;
  joinUserns: boolean;
}

export function ejectFirewallScript(input: EjectInput): string {
  const env = Object.keys(input.env)
    .sort()
    .map((k) => `-e ${shellQuote([`${k}=${input.env[k] ?? ''}`])}`);
  const argv = [
    `${input.engine} run --rm -u 0:0 ${NETNS_HELPER_PRIVILEGES.join(' ')}`,
    `--entrypoint ${shellQuote([input.hook])}`,
    ...env,
    ...(input.joinUserns ? ['--userns "container:$BOX"'] : []),
    '--net "container:$BOX"',
    shellQuote([input.image]),
  ];
  return [
    '#!/bin/sh',
    `# The network wall of ${input.skillId} (${input.posture}) for ${input.projectId}, as byre`,
    '# develop applies it from the host. Start the box from `byre dockerrun` (it waits',
    '# at its launch gate, failing closed after ~30 s), then run this with its name.',
    '# The box runs its agent only after this script has walled its network.',
    'set -eu',
    'BOX="${1:?usage: $0 <box name or id>}"',
    `exec ${argv.join(' \\\n  ')}`,
    '',
  ].join('\n');
}
