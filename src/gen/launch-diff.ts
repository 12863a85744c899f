// "Next launch": what the current config would tell the engine that the
// running box's record did not, as `+`/`-` lines. Pure; lines are raw data
// (paths as recorded), so the status renderer escapes them before printing.

import type { LaunchRecord } from './launch-record.js';

/** Shell-style quoting, only where needed, so argv boundaries stay visible. */
function quoteArg(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/u.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Removed lines (record order) then added lines (next order); order inside a kind is kept. */
function delta(label: string, before: readonly string[], after: readonly string[]): string[] {
  const had = new Set(before);
  const has = new Set(after);
  const removed = [...had].filter((line) => !has.has(line)).map((line) => `- ${label}${line}`);
  const added = [...has].filter((line) => !had.has(line)).map((line) => `+ ${label}${line}`);
  return [...removed, ...added];
}

function binds(r: LaunchRecord): string[] {
  return r.binds.map((b) => `${b.host} -> ${b.target} (${b.mode})`);
}

function ports(r: LaunchRecord): string[] {
  return r.ports.map((p) => `${p.interface}:${p.host} -> ${p.container}`);
}

function volumes(r: LaunchRecord): string[] {
  return r.volumes.map((v) => `${v.decl} -> ${v.target} (${v.role}, ${v.scope}, ${v.sharing})`);
}

function posture(r: LaunchRecord): string[] {
  const { posture: name, postureSkill } = r.network;
  return [postureSkill === '' ? name : `${name} (skill: ${postureSkill})`];
}

function runArgs(r: LaunchRecord): string[] {
  return r.runArgs.length === 0 ? [] : [r.runArgs.map(quoteArg).join(' ')];
}

function skills(r: LaunchRecord): string[] {
  return r.skills.map((s) => `${s.name} (${s.provenance})`);
}

/**
 * The deltas from the running box's `record` to the `next` launch the current
 * config would make: binds, ports, volumes, posture, egress (allowed, then
 * denied), run_args as one argv, skills, credential keys, and the effective base. Empty when
 * nothing that status shows would change.
 */
export function launchChanges(record: LaunchRecord, next: LaunchRecord): string[] {
  return [
    ...delta('bind ', binds(record), binds(next)),
    ...delta('port ', ports(record), ports(next)),
    ...delta('volume ', volumes(record), volumes(next)),
    ...delta('posture ', posture(record), posture(next)),
    ...delta('egress ', record.network.egress, next.network.egress),
    ...delta('egress deny ', record.network.egressDeny, next.network.egressDeny),
    ...delta('run_args ', runArgs(record), runArgs(next)),
    ...delta('skill ', skills(record), skills(next)),
    ...delta('credential ', record.credentialKeys ?? [], next.credentialKeys ?? []),
    ...delta('base ', [record.image.base], [next.image.base]),
  ];
}
