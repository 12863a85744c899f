// The edge's own image (adr/0077): its context is byre's alone, FROM the
// one base no config names, the script as the build embeds it, the labels
// in one LABEL line at the end, and a digest per engine.

import { describe, expect, it } from 'vitest';

import { EDGE_SCRIPT_PATH, EDGE_SNAPSHOT_PATH } from './box-layout.js';
import { chassisFiles } from './chassis.js';
import {
  EDGE_CONTEXT_LABEL,
  EDGE_IMAGE_FROM,
  edgeImageContext,
  edgeImageDigest,
} from './edge-image.js';

const labels = { 'byre.project': 'p-1a2b3c', [EDGE_CONTEXT_LABEL]: 'd' };

describe('the edge image context', () => {
  it("is a Dockerfile FROM byre's base with Debian's node, and the script", () => {
    const files = edgeImageContext(labels);
    expect(files.map((f) => f.name)).toEqual(['Dockerfile', 'byre-edge.cjs']);
    const dockerfile = files[0]?.text.split('\n') ?? [];
    expect(dockerfile.filter((l) => l.startsWith('FROM '))).toEqual([`FROM ${EDGE_IMAGE_FROM}`]);
    expect(EDGE_IMAGE_FROM).toBe('debian:bookworm-slim');
    expect(dockerfile).toContain(
      '    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs; \\',
    );
    expect(dockerfile).toContain(`COPY byre-edge.cjs ${EDGE_SCRIPT_PATH}`);
    // Node's startup snapshot of the script, built after the script is in
    // place (adr/0078), world-readable for the helper that restores it.
    const snapshot = dockerfile.findIndex((l) =>
      l.includes(
        `node --snapshot-blob ${EDGE_SNAPSHOT_PATH} --build-snapshot ${EDGE_SCRIPT_PATH};`,
      ),
    );
    expect(snapshot).toBeGreaterThan(dockerfile.indexOf(`COPY byre-edge.cjs ${EDGE_SCRIPT_PATH}`));
    expect(dockerfile[snapshot + 1]).toBe(`    chmod 0644 ${EDGE_SNAPSHOT_PATH}`);
    // Root starts it (to bind its ports); the script drops to 65534 itself.
    expect(dockerfile.some((l) => l.startsWith('USER '))).toBe(false);
    expect(dockerfile.at(-2)).toBe(`LABEL "byre.edge-context"="d" "byre.project"="p-1a2b3c"`);
    expect(files[1]?.text).toBe(chassisFiles().edge);
  });

  it('has a digest per engine, which the labels do not change', () => {
    expect(edgeImageDigest('docker')).toMatch(/^[0-9a-f]{64}$/);
    expect(edgeImageDigest('docker')).toBe(edgeImageDigest('docker'));
    expect(edgeImageDigest('docker')).not.toBe(edgeImageDigest('podman'));
    const other = edgeImageContext({ 'byre.project': 'q-4d5e6f' });
    expect(other[1]).toEqual(edgeImageContext(labels)[1]);
  });
});
