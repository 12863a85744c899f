// `byre dockerfile`: print the Dockerfile develop would build for this
// directory. No side effects: it neither enrols the project nor touches the
// build context.

import type { Io } from '../cli/io.js';
import { planBuild } from '../gen/plan.js';
import { readContextFiles } from '../gen/stage.js';
import { printNotes } from '../output/notes.js';
import { loadBox, userHome } from './load.js';

export async function dockerfileCommand(io: Io): Promise<void> {
  const { ctx, config, skills, warnings } = await loadBox(io);
  const contextFiles = await readContextFiles(config, userHome(io));
  const plan = planBuild(config, skills, ctx.worktreeDir, { contextFiles });
  printNotes(io.stderr, [...warnings, ...plan.notes]);
  io.stdout.write(plan.dockerfile);
}
