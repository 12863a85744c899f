// `byre ejectfirewall`: the outside-the-box step of a network posture as a
// standalone POSIX script taking the box's name, for boxes started with plain
// `docker run` from `byre dockerrun`: the same hook, so the same wall and its
// resolver, in a helper left running detached (adr/0063). Pure.

import { shellQuote } from '../output/shell-quote.js';
import type { EngineName } from '../engine/types.js';
import { GATE_OPENED, NETNS_HELPER_PRIVILEGES, NETNS_HELPER_STOP } from './netns.js';

interface EjectInput {
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
  const e = input.engine;
  const argv = [
    `${e} run -d --name "$HELPER" -u 0:0 ${[...NETNS_HELPER_PRIVILEGES, ...NETNS_HELPER_STOP].join(' ')}`,
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
    '# The wall\'s helper, "<box>-wall", stays up running the box\'s resolver (its',
    '# event lines: `' + e + " logs <box>-wall`); it exits once the box's network is gone",
    '# (the box stopped or restarted). Remove it then: `' + e + ' rm <box>-wall`.',
    'set -eu',
    'BOX="${1:?usage: $0 <box name or id>}"',
    'HELPER="$BOX-wall"',
    `${e} rm -f "$HELPER" >/dev/null 2>&1 || true`,
    `${argv.join(' \\\n  ')} >/dev/null`,
    '# Up once the hook says the box passed its gate; its own words and exit 1 otherwise.',
    'while :; do',
    `  if ${e} logs "$HELPER" 2>&1 | grep -q ${shellQuote([GATE_OPENED])}; then break; fi`,
    `  if [ "$(${e} inspect -f '{{.State.Running}}' "$HELPER" 2>/dev/null)" != true ]; then`,
    `    ${e} logs "$HELPER" >&2 2>&1 || true`,
    `    ${e} rm -f "$HELPER" >/dev/null 2>&1 || true`,
    '    exit 1',
    '  fi',
    '  sleep 0.2',
    'done',
    `${e} logs "$HELPER" 2>&1 >/dev/null | grep -v '^byre-wall ' >&2 || true`,
    'echo "the wall is up; $HELPER runs its resolver until the box\'s network goes" >&2',
    '',
  ].join('\n');
}
