// Rules for [[claude_skills]] and [[context]] entries.

import { CONTROL, CONTROL_EXCEPT_NL_TAB, isHostPath } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawClaudeSkill, RawContext, RawLayer } from '../schema.js';
import { duplicateNames, finding, missing, q, removalExtras, type Finding } from './finding.js';
import { wiringNameFindings } from './mcp.js';

function checkClaudeSkill(skill: RawClaudeSkill, i: number): Finding[] {
  const path: PathSegment[] = ['claude_skills', i];
  if (skill.name === undefined) return [missing(path, 'name', 'a [[claude_skills]] entry')];
  const out = wiringNameFindings(
    skill.name,
    path,
    'claude skill',
    'config.claude-skill-name-invalid',
  );
  if (skill.name.startsWith('!'))
    return [...out, ...removalExtras(path, skill, 'name', 'claude skill')];
  if (skill.path === undefined) out.push(missing(path, 'path', `claude skill ${q(skill.name)}`));
  else if (!isHostPath(skill.path) || CONTROL.test(skill.path)) {
    out.push(
      finding(
        'config.claude-skill-path-invalid',
        [...path, 'path'],
        `claude skill ${q(skill.name)}: path ${q(skill.path)} must be ~/… or absolute`,
        'point path at the host directory whose root holds SKILL.md',
      ),
    );
  }
  return out;
}

export function checkClaudeSkills(layer: RawLayer): Finding[] {
  const entries = layer.claude_skills ?? [];
  return [
    ...entries.flatMap(checkClaudeSkill),
    ...duplicateNames(entries, 'claude_skills', 'claude skill', 'config.claude-skill-duplicate'),
  ];
}

function checkContextEntry(context: RawContext, i: number): Finding[] {
  const path: PathSegment[] = ['context', i];
  if (context.name === undefined) return [missing(path, 'name', 'a [[context]] entry')];
  const name = context.name;
  // One name grammar for every named wiring entry ([[mcp]], [[claude_skills]], [[context]]).
  const out = wiringNameFindings(name, path, 'context', 'config.context-name-invalid');
  if (name.startsWith('!')) return [...out, ...removalExtras(path, context, 'name', 'context')];
  if ((context.text === undefined) === (context.file === undefined)) {
    out.push(
      finding(
        'config.context-text-or-file',
        path,
        `context ${q(name)} needs exactly one of text and file`,
        'write the prose inline as text = "…", or point file = "~/notes/agent.md" at it',
      ),
    );
  }
  if (context.text !== undefined && CONTROL_EXCEPT_NL_TAB.test(context.text)) {
    out.push(
      finding(
        'config.context-control-chars',
        [...path, 'text'],
        `context ${q(name)}: text contains a control character other than newline and tab`,
        'remove the control character (ESC, C0 or C1); newline and tab are allowed',
      ),
    );
  }
  if (context.file !== undefined && (!isHostPath(context.file) || CONTROL.test(context.file))) {
    out.push(
      finding(
        'config.context-file-invalid',
        [...path, 'file'],
        `context ${q(name)}: file ${q(context.file)} must be ~/… or absolute`,
        'write file = "~/notes/agent.md"',
      ),
    );
  }
  return out;
}

export function checkContext(layer: RawLayer): Finding[] {
  const entries = layer.context ?? [];
  return [
    ...entries.flatMap(checkContextEntry),
    ...duplicateNames(entries, 'context', 'context', 'config.context-duplicate'),
  ];
}
