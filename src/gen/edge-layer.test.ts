// The box image's edge layer (adr/0070): when a project injects
// credentials, the Dockerfile bakes the project CA after the project block
// and the guard and trusts it through the system store and the trust
// variables; the build context holds the CA's certificate and nothing of a
// key, nor the edge's script, which runs on its own image (adr/0077).

import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { EDGE_CA_PATH, EDGE_SCRIPT_PATH } from './box-layout.js';

/** Debian's system bundle, which update-ca-certificates rewrites. */
const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
import {
  EDGE_CA_STAGED,
  guardedPathCollisions,
  renderBaseDockerfile,
  renderDockerfile,
  type DockerfileInput,
} from './dockerfile.js';
import { planBuild } from './plan.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

function input(overrides: Partial<DockerfileInput> = {}): DockerfileInput {
  return {
    base: 'debian:bookworm-slim',
    dockerfilePre: [],
    skills: [],
    agent: null,
    volumeTargets: [],
    env: { SSL_CERT_FILE: '/project/own.pem' },
    files: [{ staged: 'files/ca', dest: EDGE_CA_PATH }],
    apt: ['curl'],
    dockerfilePost: ['RUN echo post'],
    guard: null,
    ...overrides,
  };
}

const MARKER = '# --- edge: the project CA (credentials injected at the edge) ---';

describe('the edge layer', () => {
  it('is the exact block after the guard, before the tail, when the project injects', () => {
    const lines = renderBaseDockerfile(input({ edge: true })).split('\n');
    const at = lines.indexOf(MARKER);
    expect(at).toBeGreaterThan(lines.indexOf('RUN echo post'));
    expect(at).toBeGreaterThan(
      lines.indexOf(
        '# --- byre security guard (re-assert chassis paths after the project block) ---',
      ),
    );
    expect(lines.slice(at + 1, lines.indexOf('HEALTHCHECK NONE'))).toEqual([
      `COPY byre-edge-ca.crt ${EDGE_CA_PATH}`,
      // The edge gate's file (adr/0084): the launcher waits there for the edge.
      'COPY edge-gate /etc/byre/edge-gate',
      'RUN set -e; \\',
      // The store's tool, only when missing; no node: the edge is not here.
      '    if ! command -v update-ca-certificates >/dev/null; then \\',
      '      apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*; \\',
      '    fi; \\',
      `    chmod 0644 ${EDGE_CA_PATH}; \\`,
      '    update-ca-certificates',
      `ENV GIT_SSL_CAINFO="${SYSTEM_BUNDLE}"`,
      `ENV NODE_EXTRA_CA_CERTS="${EDGE_CA_PATH}"`,
      `ENV REQUESTS_CA_BUNDLE="${SYSTEM_BUNDLE}"`,
      `ENV SSL_CERT_FILE="${SYSTEM_BUNDLE}"`,
      '',
    ]);
    // Root runs the layer: the USER line comes after it.
    expect(lines.indexOf('USER dev')).toBeGreaterThan(at);
    // The edge's script and its node are byre's own image's (adr/0077), never the box's.
    expect(lines.join('\n')).not.toContain(EDGE_SCRIPT_PATH);
    expect(lines.join('\n')).not.toContain('nodejs');
  });

  it('wins over a project env or files entry of the same names (they come before it)', () => {
    const out = renderBaseDockerfile(input({ edge: true }));
    expect(out.lastIndexOf('ENV SSL_CERT_FILE=')).toBe(
      out.indexOf(`ENV SSL_CERT_FILE="${SYSTEM_BUNDLE}"`),
    );
    expect(out.lastIndexOf(`COPY byre-edge-ca.crt ${EDGE_CA_PATH}`)).toBeGreaterThan(
      out.indexOf(`"${EDGE_CA_PATH}"`),
    );
    expect(guardedPathCollisions([EDGE_CA_PATH, '/opt/x'], null, false, true)).toEqual([
      EDGE_CA_PATH,
    ]);
    expect(guardedPathCollisions([EDGE_CA_PATH], null, false, false)).toEqual([]);
  });

  it('is absent when nothing is injected, and leaves the wiring last', () => {
    const plain = renderDockerfile(input());
    expect(plain).not.toContain('byre-edge.cjs');
    expect(plain).not.toContain('byre-edge-ca.crt');
    expect(plain).not.toContain('update-ca-certificates');
    expect(plain).not.toContain('NODE_EXTRA_CA_CERTS');
    const edged = renderDockerfile(input({ edge: true }))
      .trimEnd()
      .split('\n');
    expect(edged.at(-1)).toBe('COPY wiring /etc/byre');
  });
});

describe('planBuild with the project CA', () => {
  it('stages the CA certificate, and no key and no edge script', () => {
    const plan = planBuild(fakeConfig(), [], '/w', { edgeCa: CA });
    expect(plan.dockerfileInput.edge).toBe(true);
    expect(plan.dockerfile).toContain(MARKER);
    const staged = (p: string) => plan.entries.find((e) => e.path === p);
    expect(staged(EDGE_CA_STAGED)).toEqual({
      path: EDGE_CA_STAGED,
      mode: 0o644,
      source: { kind: 'bytes', bytes: CA },
    });
    expect(plan.entries.map((e) => e.path)).not.toContain('byre-edge.cjs');
    for (const e of plan.entries) {
      const bytes = e.source.kind === 'bytes' ? String(e.source.bytes) : '';
      expect(bytes, e.path).not.toMatch(/PRIVATE KEY/);
    }
  });

  it('stages neither without a CA', () => {
    const plan = planBuild(fakeConfig(), [], '/w');
    expect(plan.dockerfileInput.edge).toBe(false);
    expect(plan.entries.map((e) => e.path)).not.toContain(EDGE_CA_STAGED);
    expect(plan.entries.map((e) => e.path)).not.toContain('byre-edge.cjs');
  });
});
