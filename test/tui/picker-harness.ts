// TUI-tier harness: shows the box picker over three fixed candidates and
// writes the outcome (and, in /dev/tty mode, the piped stdin it left alone)
// as JSON to the file named by argv[3]. Run with bun inside tmux.

import { readFileSync, writeFileSync } from 'node:fs';

const mode = process.argv[2] === '/dev/tty' ? '/dev/tty' : 'stdin';
const out = process.argv[3];
if (out === undefined) throw new Error('usage: picker-harness <stdin|/dev/tty> <result.json>');

const candidates = [
  { id: 'aaaa1111bbbb2222', engine: 'docker', projectId: 'alpha-1a2b', workdirId: 'wd-alpha' },
  { id: 'cccc3333dddd4444', engine: 'podman', projectId: 'beta-3c4d', workdirId: 'wd-beta' },
  {
    id: 'eeee5555ffff6666',
    engine: 'docker',
    projectId: 'gamma-5e6f',
    workdirId: 'wd-gamma',
    label: 'evil\u001b[2Jlabel',
  },
];

const { pickBox } = await import('../../src/tui/picker.js');
const chosen = await pickBox(candidates, { tty: mode });
const payload = mode === '/dev/tty' ? readFileSync(0, 'utf8') : null;
writeFileSync(out, JSON.stringify({ chosen: chosen?.id ?? null, payload }));
