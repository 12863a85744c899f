// The store and project directories a command's unit test runs in: a
// project directory, a byre store (BYRE_HOME), and a user home, all under
// the test's temp dir, with the project's id and store folder. The command
// tests build their fake io and engines on top of it.

import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { projectIdFor } from '../../src/project/identity.js';

export interface ProjectDirs {
  root: string;
  /** The project directory (the command's cwd). */
  dir: string;
  /** BYRE_HOME. */
  home: string;
  /** The user's HOME. */
  user: string;
  id: string;
  /** The project's folder in the store. */
  store: string;
  /** BYRE_HOME, HOME and a plain PATH. */
  env: Record<string, string>;
}

/** Makes the project and user directories under `root` (the store is left for byre to make). */
export function projectDirs(root: string): ProjectDirs {
  const dir = path.join(root, 'proj');
  const home = path.join(root, 'store');
  const user = path.join(root, 'user');
  mkdirSync(dir);
  mkdirSync(user);
  const id = projectIdFor(dir);
  return {
    root,
    dir,
    home,
    user,
    id,
    store: path.join(home, 'projects', id),
    env: { BYRE_HOME: home, HOME: user, PATH: '/usr/bin:/bin' },
  };
}
