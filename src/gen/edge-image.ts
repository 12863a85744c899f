// The edge's own image (adr/0077): what the helper that holds injected
// values runs on. Pure: its Dockerfile, its context's files, and the digest
// that says an existing image was built from exactly these. Nothing here
// takes the config: the base, the node and the script are byre's, so no
// config line (a `dockerfile_pre`, an `[env]` value, a `files` entry, a base
// of the config's choosing) can reach the process that holds the values.

import { createHash } from 'node:crypto';

import { EDGE_SCRIPT_PATH, EDGE_SNAPSHOT_PATH } from './box-layout.js';
import { chassisFiles } from './chassis.js';
import { labelInstruction } from './dockerfile.js';

/**
 * The edge image's base: Debian's slim image, whose `nodejs` (18 on
 * bookworm) is what the edge's script needs. A constant, never a config
 * key: the one base no config can name.
 */
export const EDGE_IMAGE_FROM = 'debian:bookworm-slim';

/** The edge image's digest label: proves an image was built from this Dockerfile and script. */
export const EDGE_CONTEXT_LABEL = 'byre.edge-context';

/** The script's name in the edge image's build context. */
const EDGE_SCRIPT_STAGED = 'byre-edge.cjs';

/** One file of the edge image's build context. */
interface EdgeContextFile {
  name: string;
  text: string;
}

/**
 * The edge image's Dockerfile, without its LABEL line: Debian's node alone
 * (no npm, no recommends), the script root-owned and world-readable, the
 * startup snapshot node builds from it (adr/0078), and no USER (the helper
 * starts as root to bind its ports, then drops to 65534).
 */
function edgeDockerfile(): string {
  return [
    "# byre's edge image: the process that holds injected credentials runs here, never on the box's image",
    `FROM ${EDGE_IMAGE_FROM}`,
    'RUN set -e; \\',
    '    apt-get update; \\',
    '    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs; \\',
    '    rm -rf /var/lib/apt/lists/*',
    `COPY ${EDGE_SCRIPT_STAGED} ${EDGE_SCRIPT_PATH}`,
    `RUN set -e; \\`,
    `    chmod 0644 ${EDGE_SCRIPT_PATH}; \\`,
    `    node --snapshot-blob ${EDGE_SNAPSHOT_PATH} --build-snapshot ${EDGE_SCRIPT_PATH}; \\`,
    `    chmod 0644 ${EDGE_SNAPSHOT_PATH}`,
    'HEALTHCHECK NONE',
    '',
  ].join('\n');
}

/** The build context's files before the labels: the Dockerfile and the script. */
function unlabelledContext(): EdgeContextFile[] {
  return [
    { name: 'Dockerfile', text: edgeDockerfile() },
    { name: EDGE_SCRIPT_STAGED, text: chassisFiles().edge },
  ];
}

/**
 * The digest an edge image built from this byre's context carries, for one
 * engine: over the Dockerfile and the script (their names and bytes).
 */
export function edgeImageDigest(engine: string): string {
  const h = createHash('sha256');
  h.update(`byre-edge-image-v1\0${engine}\0`);
  for (const f of unlabelledContext()) h.update(`${f.name}\0${f.text.length}\0${f.text}\0`);
  return h.digest('hex');
}

/** The whole build context, the Dockerfile ending in one LABEL line with `labels`. */
export function edgeImageContext(labels: Readonly<Record<string, string>>): EdgeContextFile[] {
  return unlabelledContext().map((f) =>
    f.name === 'Dockerfile' ? { ...f, text: f.text + labelInstruction(labels) } : f,
  );
}
