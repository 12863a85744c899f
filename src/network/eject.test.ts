import { describe, expect, it } from 'vitest';
import { DROP_PRIVILEGES } from '../engine/argv.js';
import { shellQuote } from '../output/shell-quote.js';
import { ejectFirewallScript } from './eject.js';
import { netnsHelperArgv } from './netns.js';

const input = {
  engine: 'docker' as const,
  image: 'byre-p-1a2b3c-u1000-g1000',
  hook: '/usr/local/bin/byre-firewall',
  posture: 'deny-by-default',
  skillId: 'byre/firewall',
  projectId: 'p-1a2b3c',
  env: { BYRE_EGRESS: 'github.com:443', BYRE_EGRESS_DENY: '', BYRE_INBOUND: '3000 8080' },
  joinUserns: false,
};

/** The script's helper `run` line, its continuation lines joined. */
function execLine(script: string): string {
  const line = script.split('\ndocker run ')[1]?.split(' >/dev/null')[0] ?? '';
  return line.replace(/ \\\n {2}/g, ' ').trim();
}

describe('ejectFirewallScript', () => {
  it("runs the hook with exactly develop's helper privileges and wall inputs (the ejected wall is the same wall)", () => {
    const line = execLine(ejectFirewallScript(input));
    const helper = netnsHelperArgv(
      {
        boxId: 'BOX',
        project: 'p',
        box: 'b',
        hook: input.hook,
        image: input.image,
        env: input.env,
        joinUserns: false,
      },
      'name',
    );
    // The privilege flags and the stop grace, in develop's order, and nothing more.
    const privileges = helper.slice(helper.indexOf('--cap-drop'), helper.indexOf('--entrypoint'));
    expect(privileges).toEqual([
      ...DROP_PRIVILEGES,
      ...['NET_ADMIN', 'NET_BIND_SERVICE', 'SETGID', 'SETUID'].flatMap((c) => ['--cap-add', c]),
      '--stop-timeout',
      '1',
    ]);
    expect(line).toContain(`-d --name "$HELPER" -u 0:0 ${privileges.join(' ')} `);
    expect(line.match(/--cap-add/g)).toHaveLength(4);
    for (const kv of [
      'BYRE_EGRESS=github.com:443',
      'BYRE_EGRESS_DENY=',
      'BYRE_INBOUND=3000 8080',
    ]) {
      expect(line).toContain(`-e ${shellQuote([kv])} `);
    }
  });

  it('leaves the helper running detached, waits for its gate, and on failure prints its words, removes it and exits 1 (adr/0063)', () => {
    const script = ejectFirewallScript(input);
    expect(script).toContain('HELPER="$BOX-wall"');
    expect(script).not.toContain('--rm');
    expect(script).toContain("grep -q 'byre-firewall: gate opened'");
    expect(script).toMatch(/logs "\$HELPER" >&2 2>&1 \|\| true\n.*rm -f "\$HELPER".*\n {4}exit 1/);
    expect(script).toContain("it exits once the box's network is gone");
  });
});
