// The chassis scripts byre bakes into images: the launcher (ENTRYPOINT), the
// login-shell env shim, the node helper, and the edge process (only when the
// project injects credentials). They come from the module the build embeds
// (scripts/embed.mjs), never from the checkout at run time.

import { embeddedText } from '../embedded.js';

interface ChassisFiles {
  /** bash; installed as /usr/local/bin/byre-launch. */
  launcher: string;
  /** POSIX sh; installed as /etc/profile.d/byre-env.sh. */
  profileEnv: string;
  /**
   * POSIX sh build helper at /usr/local/lib/byre/ensure-node: skills that
   * install npm-published CLIs call it to get a new enough node and npm.
   */
  ensureNode: string;
  /** Node ESM, the edge process (adr/0070); baked only when the project injects. */
  edge: string;
}

function required(path: string): string {
  const text = embeddedText(path);
  if (text === null)
    throw new Error(`embedded chassis file missing: ${path} (run scripts/embed.mjs)`);
  return text;
}

export function chassisFiles(): ChassisFiles {
  return {
    launcher: required('src/gen/chassis/byre-launch.sh'),
    profileEnv: required('src/gen/chassis/byre-profile-env.sh'),
    ensureNode: required('src/gen/chassis/byre-ensure-node.sh'),
    edge: required('src/gen/chassis/byre-edge.cjs'),
  };
}
