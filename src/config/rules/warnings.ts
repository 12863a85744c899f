// Findings that warn rather than refuse.

import type { RawLayer } from '../schema.js';
import { finding, q, type Finding, type LayerRule } from './finding.js';

export const CONTEXT_WARN_BYTES = 100 * 1024;
/** The reference's size tiers for one `[[context]]` block: 100 KiB, 500 KiB, 1 MiB. */
const CONTEXT_TIERS: readonly [number, string][] = [
  [1024 * 1024, "more than most agents' context window holds; expect it cut"],
  [500 * 1024, "a large share of most agents' context window, paid by every session"],
  [CONTEXT_WARN_BYTES, "every session pays for it in the agent's context window"],
];

/** What a `[[context]]` block of `bytes` costs, by tier; null under the first tier. */
export function contextSizeWarning(what: string, bytes: number): string | null {
  const tier = CONTEXT_TIERS.find(([at]) => bytes >= at);
  if (tier === undefined) return null;
  return `${what} is ${Math.round(bytes / 1024)} KiB; ${tier[1]}`;
}

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
    const message = contextSizeWarning(`context ${q(context.name ?? '')}`, size);
    if (message === null) return [];
    return [
      finding(
        'config.context-large',
        ['context', i, 'text'],
        message,
        'trim it, or move the bulk into a file the agent can read on demand',
      ),
    ];
  });
}

export const LAYER_WARNINGS: readonly LayerRule[] = [warnUnsupportedBase, warnLargeContext];
