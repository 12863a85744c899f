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

/** The script's `exec` line, its continuation lines joined. */
function execLine(script: string): string {
  const line = script.split('\nexec ')[1] ?? '';
  return line.replace(/ \\\n {2}/g, ' ').trim();
}

describe('ejectFirewallScript', () => {
  it("runs the hook with exactly develop's helper privileges and wall inputs (the ejected wall is the same wall)", () => {
    const line = execLine(ejectFirewallScript(input));
    const helper = netnsHelperArgv(
      { nonce: 'n', hook: input.hook, image: input.image, env: input.env, joinUserns: false },
      'BOX',
      'name',
    );
    // The privilege flags, in develop's order, and nothing more.
    const privileges = helper.slice(helper.indexOf('--cap-drop'), helper.indexOf('--entrypoint'));
    expect(privileges).toEqual([...DROP_PRIVILEGES, '--cap-add', 'NET_ADMIN']);
    expect(line).toContain(`-u 0:0 ${privileges.join(' ')} `);
    expect(line.match(/--cap-add/g)).toHaveLength(1);
    for (const kv of [
      'BYRE_EGRESS=github.com:443',
      'BYRE_EGRESS_DENY=',
      'BYRE_INBOUND=3000 8080',
    ]) {
      expect(line).toContain(`-e ${shellQuote([kv])} `);
    }
  });
});
