// Rules for egress lists, top-level and per MCP server.

import { parseEgressEntry } from '../egress-entry.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';
import { finding, q, type Finding } from './finding.js';

export function egressFindings(
  entries: readonly string[],
  path: PathSegment[],
  allowClosures: boolean,
): Finding[] {
  return entries.flatMap((entry, i) => {
    const parsed = parseEgressEntry(entry);
    if (!parsed.ok)
      return [finding('config.egress-invalid', [...path, i], parsed.message, parsed.fix)];
    if (parsed.closure && !allowClosures) {
      return [
        finding(
          'config.egress-invalid',
          [...path, i],
          `egress ${q(entry)}: a closure has no meaning here`,
          'close hosts in the top-level egress list instead',
        ),
      ];
    }
    return [];
  });
}

export function checkEgress(layer: RawLayer): Finding[] {
  return [
    ...egressFindings(layer.egress ?? [], ['egress'], true),
    ...egressFindings(layer.egress_offered ?? [], ['egress_offered'], true),
  ];
}
