import { describe, expect, it } from 'vitest';
import { isExecRelevant, parseGitConfig } from './git-config.js';

const entries = (text: string): [string, string | null][] => {
  const parsed = parseGitConfig(text);
  if (!parsed.ok) throw new Error(`line ${parsed.line}: ${parsed.message}`);
  return parsed.entries.map((e) => [e.key, e.value]);
};

describe('parseGitConfig', () => {
  it.each<[string, string, [string, string | null][]]>([
    ['a plain section', '[core]\n\tbare = false\n', [['core.bare', 'false']]],
    ['keys and sections lowercased', '[Core]\n  HooksPath = x\n', [['core.hookspath', 'x']]],
    ['a bare key is true', '[core]\n  bare\n', [['core.bare', null]]],
    [
      'a quoted subsection keeps its case',
      '[remote "Origin"]\nurl = u\n',
      [['remote.Origin.url', 'u']],
    ],
    [
      'the old dotted subsection is lowercased',
      '[Branch.Main]\nremote = o\n',
      [['branch.main.remote', 'o']],
    ],
    ['a subsection escape', '[a "x\\"y"]\nk = v\n', [['a.x"y.k', 'v']]],
    [
      'comments, inline and whole-line',
      '# c\n; c\n[core] # c\n  pager = less ; tail\n',
      [['core.pager', 'less']],
    ],
    [
      'quotes keep comment characters and spaces',
      '[alias]\n  x = "!echo  #1;"\n',
      [['alias.x', '!echo  #1;']],
    ],
    ['escapes', '[a]\n  k = "a\\tb\\nc\\\\d\\"e"\n', [['a.k', 'a\tb\nc\\d"e']]],
    [
      'a continued line',
      '[core]\n  editor = vim \\\n  -n\n  pager = p\n',
      [
        ['core.editor', 'vim   -n'],
        ['core.pager', 'p'],
      ],
    ],
    ['a key on the header line', '[core] fsmonitor = ./x\n', [['core.fsmonitor', './x']]],
    ['CRLF line ends', '[core]\r\n\tpager = p\r\n', [['core.pager', 'p']]],
    ['a byte-order mark', '\uFEFF[core]\npager = p\n', [['core.pager', 'p']]],
    [
      'trailing space trimmed, internal kept',
      '[core]\n  editor =  vim  -n   \n',
      [['core.editor', 'vim  -n']],
    ],
    ['an empty value', '[core]\n  pager =\n', [['core.pager', '']]],
  ])('%s', (_name, text, want) => {
    expect(entries(text)).toEqual(want);
  });

  it.each([
    ['a key before any section', 'pager = x\n', 1],
    ['an unterminated header', '[core\npager = x\n', 1],
    ['an unterminated subsection', '[a "x]\n', 1],
    ['an unterminated quote', '[a]\nk = "x\n', 2],
    ['an unknown escape', '[a]\nk = \\q\n', 2],
    ['garbage after a key', '[a]\nk x\n', 2],
    ['a line that is not a key', '[a]\n=x\n', 2],
  ])('refuses %s, naming the line', (_name, text, line) => {
    const parsed = parseGitConfig(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.line).toBe(line);
  });
});

describe('isExecRelevant', () => {
  it.each<[string, string | null, boolean]>([
    ['core.hookspath', '.githooks', true],
    ['core.fsmonitor', 'x', true],
    ['core.sshcommand', 'ssh -i k', true],
    ['core.pager', 'less', true],
    ['core.editor', 'vim', true],
    ['credential.helper', 'store', true],
    ['credential.https://x.helper', 'store', true],
    ['init.templatedir', '/t', true],
    ['gpg.program', 'gpg2', true],
    ['gpg.ssh.program', 'x', true],
    ['filter.lfs.smudge', 'git-lfs smudge', true],
    ['filter.lfs.required', 'true', true],
    ['diff.external', 'x', true],
    ['diff.pdf.textconv', 'pdftotext', true],
    ['merge.ours.driver', 'true', true],
    ['alias.st', 'status', false],
    ['alias.pwn', '!curl x | sh', true],
    ['alias.pwn', '  !sh', true],
    ['include.path', '../x', true],
    ['includeif.gitdir:/x/.path', '../x', true],
    ['pager.log', 'x', true],
    ['url.ext::sh -c x.insteadof', 'https://', true],
    ['remote.origin.uploadpack', 'x', true],
    ['remote.origin.url', 'https://x', false],
    ['submodule.a.update', '!sh x', true],
    ['submodule.a.update', 'rebase', false],
    ['core.bare', 'false', false],
    ['user.name', 'x', false],
    ['diff.renames', 'true', false],
  ])('%s = %j -> %s', (key, value, want) => {
    expect(isExecRelevant({ key, value })).toBe(want);
  });
});
