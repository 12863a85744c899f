// The frozen `deliver --boxes --proto 1` line grammar a remote byre speaks:
// one box per line, five TAB-separated fields (container id, engine, project
// id, workdir id, comma-separated flags). Pure; a malformed line is an error,
// never skipped.

import { ByreError } from '../errors.js';
import type { EngineName } from '../engine/types.js';
import type { BoxSummary } from './discover.js';

export const PROTO_VERSION = 1;

const FLAG_FOREIGN = 'foreign';

/** Control characters (TAB and newline included) cannot survive a line grammar. */
function field(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '_');
}

function formatBoxLine(b: BoxSummary): string {
  const flags = b.foreign ? FLAG_FOREIGN : '';
  return [b.id, b.engine, b.projectId, b.workdirId, flags].map(field).join('\t');
}

export function formatBoxLines(boxes: readonly BoxSummary[]): string {
  return boxes.map((b) => `${formatBoxLine(b)}\n`).join('');
}

function malformed(lineNo: number, why: string): ByreError {
  return new ByreError(`the remote's box list is malformed at line ${lineNo}: ${why}`, {
    rule: 'transfer.boxes-malformed',
    remedy: 'check that the remote runs a byre that speaks --proto 1',
  });
}

export function parseBoxLines(text: string): BoxSummary[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, i) => {
    const parts = line.split('\t');
    if (parts.length !== 5) return thrown(malformed(i + 1, `${parts.length} fields, want 5`));
    const [id = '', engine = '', projectId = '', workdirId = '', flags = ''] = parts;
    if (!/^[0-9a-f]{12,64}$/.test(id)) return thrown(malformed(i + 1, 'bad container id'));
    if (engine !== 'docker' && engine !== 'podman') {
      return thrown(malformed(i + 1, 'unknown engine'));
    }
    if (projectId === '' || workdirId === '') return thrown(malformed(i + 1, 'empty id'));
    // Unknown flags from a newer remote are tolerated; only their meaning is lost.
    const tokens = flags === '' ? [] : flags.split(',');
    return {
      id,
      engine: engine as EngineName,
      projectId,
      workdirId,
      foreign: tokens.includes(FLAG_FOREIGN),
    };
  });
}

function thrown(error: ByreError): never {
  throw error;
}
