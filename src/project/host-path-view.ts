// The real filesystem as path-walk.ts sees it, through host/'s no-follow
// primitives (lstat and readlink, never opening).

import { lstatKind, readlinkOrNull } from '../host/path-view.js';
import { walkPath, type PathView, type PathWalk } from './path-walk.js';

const hostPathView: PathView = { kind: lstatKind, readlink: readlinkOrNull };

/** walkPath over the host's real filesystem. */
export function walkHostPath(given: string): PathWalk {
  return walkPath(given, hostPathView);
}
