import { describe, expect, it } from 'vitest';
import { newIdProblem } from './author.js';

describe('newIdProblem: the ids skill init and fork may give a new local package', () => {
  it.each([
    ['mytool'],
    ['me/mytool'],
    ['my_tool-2'],
    ['a'],
    [`${'a'.repeat(64)}/${'b'.repeat(64)}`],
    ['me/none'],
  ])('accepts %s', (id) => expect(newIdProblem(id)).toBeNull());

  it.each([
    ['none', 'package.id-reserved', /reserved: "none"/],
    ['claude', 'package.id-reserved', /bundled with byre/],
    ['byre/mine', 'package.id-reserved', /bundled with byre/],
    ['devlog', 'package.id-retired', /moved to pjlsergeant\/devlog/],
    ['codereview', 'package.id-retired', /moved to pjlsergeant\/codereview/],
    ['byre/devlog', 'package.id-retired', /moved to pjlsergeant\/devlog/],
    ['MyTool', 'package.id-invalid', /upper-case/],
    ['me/Tool', 'package.id-invalid', /upper-case/],
    ['my.tool', 'package.id-invalid', /a dot/],
    ['me/tool.v2', 'package.id-invalid', /a dot/],
    ['a'.repeat(65), 'package.id-invalid', /too long/],
    ['a/b/c', 'package.id-invalid', /not a package id/],
    ['-x', 'package.id-invalid', /not a package id/],
    ['', 'package.id-invalid', /not a package id/],
  ])('refuses %j (%s)', (id, rule, message) => {
    const problem = newIdProblem(id);
    expect(problem?.rule).toBe(rule);
    expect(problem?.message).toMatch(message);
    expect(problem?.remedy.length).toBeGreaterThan(0);
  });
});
