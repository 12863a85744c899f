// byre doctor's report: the findings in order, the leftovers, and the verdict,
// rendered as text for a person or as versioned JSON (`--data`). Pure; every
// string the machine or an engine supplied is escaped before a terminal sees it.

import '../zod.js';
import { z } from 'zod';

import { escapeTerminal } from '../output/escape.js';
import { DOCTOR_DATA_VERSION, doctorDataSchema, type DoctorData } from './data-schema.js';
import { isUsable, type Finding, type Verdict } from './findings.js';
import {
  describeLeftover,
  describeStoreFolder,
  leftoverReason,
  storeFolderReason,
  type LeftoverReport,
} from './leftovers.js';

interface DoctorReport {
  workdir: string;
  projectId: string | null;
  findings: Finding[];
  leftovers: LeftoverReport;
}

function doctorData(r: DoctorReport): DoctorData {
  return {
    version: DOCTOR_DATA_VERSION,
    usable: isUsable(r.findings),
    workdir: r.workdir,
    project_id: r.projectId,
    checks: r.findings.map((f) => ({ ...f })),
    leftovers: r.leftovers.leftovers.map((l) => ({
      engine: l.engine,
      kind: l.kind,
      id: l.id,
      tags: [...l.tags],
      project: l.project,
      reason: l.reason,
      recorded_path: l.recordedPath,
      running: l.running,
    })),
    store_folders: r.leftovers.folders.map((f) => ({
      project: f.project,
      path: f.dir,
      recorded_path: f.recordedPath,
    })),
    left_alone: { other_store: r.leftovers.otherStore, unattributed: r.leftovers.unattributed },
    unreached: r.leftovers.unreached.map((u) => ({ ...u })),
  };
}

export function renderDoctorData(r: DoctorReport): string {
  return `${JSON.stringify(doctorDataSchema.parse(doctorData(r)), null, 2)}\n`;
}

export function doctorDataJsonSchema(): string {
  const schema = z.toJSONSchema(doctorDataSchema, { target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'byre doctor --data' }, null, 2)}\n`;
}

const MARK: Record<Verdict, string> = { ok: 'ok', note: 'note', warn: 'warn', fail: 'FAIL' };

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function renderDoctorText(r: DoctorReport): string {
  const out: string[] = [];
  const where = r.projectId === null ? '' : ` (project ${r.projectId})`;
  out.push(`byre doctor: ${escapeTerminal(r.workdir)}${where}`, '');
  const width = Math.max(...r.findings.map((f) => f.subject.length));
  const indent = ' '.repeat(6 + width + 2);
  for (const f of r.findings) {
    out.push(`${MARK[f.verdict].padEnd(6)}${f.subject.padEnd(width)}  ${escapeTerminal(f.found)}`);
    if (f.fix !== null) out.push(`${indent}fix: ${escapeTerminal(f.fix)}`);
  }
  if (r.leftovers.leftovers.length + r.leftovers.folders.length > 0) {
    out.push('', 'leftovers:');
    out.push(...leftoverLines(r.leftovers));
  }
  const failed = r.findings.filter((f) => f.verdict === 'fail').length;
  const warned = r.findings.filter((f) => f.verdict === 'warn').length;
  out.push('');
  out.push(
    failed === 0
      ? `byre is usable here${warned === 0 ? '.' : ` (${count(warned, 'warning')}).`}`
      : `byre is NOT usable here: ${count(failed, 'check')} failed (FAIL above).`,
  );
  return `${out.join('\n')}\n`;
}

/** One indented line per leftover (objects, then store folders): what it is, and why it is one. */
export function leftoverLines(r: LeftoverReport): string[] {
  return [
    ...r.leftovers.map(
      (l) =>
        `  ${escapeTerminal(describeLeftover(l))}  (${escapeTerminal(leftoverReason(l))}${l.running ? '; running, left alone' : ''})`,
    ),
    ...r.folders.map(
      (f) =>
        `  ${escapeTerminal(describeStoreFolder(f))}  (${escapeTerminal(storeFolderReason(f))})`,
    ),
  ];
}
