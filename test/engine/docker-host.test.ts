// Engine tier for byre/docker-host: the box gets a docker CLI with the
// compose and buildx plugins (Debian's packages, adr/0021), and develop's
// sock_groups probe makes dev a member of the socket's group as the engine
// sees it, so the socket works. Proven where it means something: docker as
// an unprivileged user (dev is not root, so only the group opens the
// socket) and rootful podman driving the host's Docker daemon socket.
// Rootless podman is left out: the socket's group is not mapped into its
// user namespace (develop warns; see TODO.md).

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { runByre, testScope } from './harness.js';

const SOCKET = '/var/run/docker.sock';
const flavors = flavorsUnderTest().filter((f) =>
  f.engine === 'docker' ? f.user !== null : f.user === null,
);
const scope = testScope();

describe.skipIf(flavors.length === 0 || !existsSync(SOCKET)).each(flavors)(
  'byre/docker-host on $label',
  (flavor) => {
    it('dev drives the host daemon through the socket, with compose and buildx', () => {
      const project = scope.project(flavor);
      project.writeConfig('skills = ["docker-host"]\n');
      const r = runByre(project, ['develop'], {
        input: [
          'echo "GROUPS $(id -G)"',
          'echo "SOCKGID $(stat -c %g /var/run/docker.sock)"',
          'docker version --format "SERVER {{.Server.Version}}"',
          'docker compose version',
          'docker buildx version',
          'echo "COMPOSE_PROJECT_NAME=$COMPOSE_PROJECT_NAME"',
          'exit 0',
          '',
        ].join('\n'),
      });
      expect(r.status, r.stderr).toBe(0);
      const out = r.stdout;
      const sockGid = /^SOCKGID (\d+)$/m.exec(out)?.[1];
      expect(sockGid).toBeDefined();
      // The probe's gid is one of dev's groups: that is what opens the socket.
      expect(/^GROUPS (.*)$/m.exec(out)?.[1]?.split(' ')).toContain(sockGid);
      expect(out).toMatch(/^SERVER \d+\.\d+/m);
      expect(out).toMatch(/^Docker Compose version v?2\./m);
      expect(out).toMatch(/buildx v?0\.\d+/);
      expect(out).toMatch(/^COMPOSE_PROJECT_NAME=byre-/m);
      expect(r.stderr).toContain('containment hole');
    });
  },
);
