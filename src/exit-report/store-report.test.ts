import { describe, expect, it } from 'vitest';
import type { FileState } from './report.js';
import { selfEditReportLines, type StoreSnapshot } from './store-report.js';

const file = (digest: string): FileState => ({ kind: 'file', digest });
const store = (over: Partial<StoreSnapshot> = {}): StoreSnapshot => ({
  files: { 'byre.config': file('c1'), path: file('p') },
  config: 'agent = "claude"\n',
  complete: true,
  unchecked: [],
  ...over,
});

describe('selfEditReportLines', () => {
  it('says so when nothing changed', () => {
    expect(selfEditReportLines(store(), store())).toEqual([
      'self-edit: this session changed nothing in the project’s store',
    ]);
  });

  it('shows byre.config as a diff and lists the other files', () => {
    const after = store({
      files: {
        'byre.config': file('c2'),
        path: file('p2'),
        'notes.txt': file('n'),
        launches: { kind: 'symlink', target: '/etc' },
      },
      config: 'agent = "claude"\nrun_args = ["-e", "X=1"]\n',
    });
    expect(selfEditReportLines(store(), after)).toEqual([
      'self-edit: byre.config changed (it applies at the next develop):',
      '  @@ -1,1 +1,2 @@',
      '   agent = "claude"',
      '  +run_args = ["-e", "X=1"]',
      'self-edit: other files in the project’s store:',
      '  added: launches (a symbolic link to /etc)',
      '  added: notes.txt',
      '  changed: path',
    ]);
  });

  it('names a byre.config that is no longer a readable file instead of diffing it', () => {
    const after = store({
      files: { 'byre.config': { kind: 'symlink', target: '/home/u/.ssh/id_rsa' }, path: file('p') },
      config: null,
    });
    expect(selfEditReportLines(store(), after)).toEqual([
      'self-edit: other files in the project’s store:',
      '  changed: byre.config (a symbolic link to /home/u/.ssh/id_rsa)',
    ]);
  });

  it('reports no deletions from an incomplete walk, and says what it could not check', () => {
    const after = store({
      files: {},
      complete: false,
      unchecked: ['store entries beyond the first 2000'],
    });
    expect(selfEditReportLines(store(), after)).toEqual([
      'self-edit: could not check: store entries beyond the first 2000',
    ]);
  });

  it('bounds the diff, counting the lines it leaves out', () => {
    /** The report for a config rewritten as `n` comment lines. */
    const reportFor = (n: number): string[] => {
      const big = Array.from({ length: n }, (_, i) => `# ${i}`).join('\n');
      return selfEditReportLines(
        store(),
        store({ config: `${big}\n`, files: { 'byre.config': file('x'), path: file('p') } }),
      );
    };
    const rest = (lines: string[]): number =>
      Number(/^ {2}… and (\d+) more diff lines$/.exec(lines.at(-1) ?? '')?.[1]);
    const few = reportFor(400);
    const many = reportFor(500);
    expect(few.length).toBeLessThan(400);
    // The same lines printed (the hunk header aside, which counts them all), the rest counted.
    expect(many).toHaveLength(few.length);
    expect(many.slice(3, -1)).toEqual(few.slice(3, -1));
    // Shown and counted, the diff is whole: its hunk header, the old line and every new one.
    expect(few.length - 2 + rest(few)).toBe(1 + 1 + 400);
    expect(rest(many) - rest(few)).toBe(100);
  });
});
