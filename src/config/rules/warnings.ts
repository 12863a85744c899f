// Findings that warn rather than refuse.

import type { RawLayer } from '../schema.js';
import { finding, q, type Finding, type LayerRule } from './finding.js';

export const CONTEXT_WARN_BYTES = 100 * 1024;

export function warnUnsupportedBase(layer: RawLayer): Finding[] {
  const base = layer.base;
  if (base === undefined || !/(^|[/:])(alpine|scratch|distroless)/.test(base)) return [];
  return [
    finding(
      'config.base-unsupported',
      ['base'],
      `base ${q(base)} is outside the Debian family byre and its skills assume (apt, a POSIX shell)`,
      'expect skills to fail to build; a Debian-derived base such as debian:bookworm is supported',
    ),
  ];
}

export function warnLargeContext(layer: RawLayer): Finding[] {
  return (layer.context ?? []).flatMap((context, i) => {
    const size = context.text === undefined ? 0 : new TextEncoder().encode(context.text).length;
    if (size < CONTEXT_WARN_BYTES) return [];
    return [
      finding(
        'config.context-large',
        ['context', i, 'text'],
        `context ${q(context.name ?? '')} is ${Math.round(size / 1024)} KiB; every session pays for it in the agent's context window`,
        'trim it, or move the bulk into a file the agent can read on demand',
      ),
    ];
  });
}

export const LAYER_WARNINGS: readonly LayerRule[] = [warnUnsupportedBase, warnLargeContext];
