// `byre rebuild`: regenerate the build context and build the image with the
// cache disabled: the deliberate-staleness valve, the one way to refresh what
// the engine's layer cache kept (adr/0003). Under the setup
// lock, from the config read under it; never touches volumes or enrols.

import { existsSync } from 'node:fs';
import type { Io } from '../io.js';
import { ensureImage } from '../box/image.js';
import { withSetupLock } from '../project/lock.js';
import { ByreError, RefusedError } from '../errors.js';
import { detectEngine } from '../engine/detect.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { bakedIds, imageTag } from '../engine/names.js';
import { createEngine } from '../engine/runner.js';
import { planBuild } from '../gen/plan.js';
import { readContextFiles } from '../gen/stage.js';
import { escapeTerminal } from '../output/escape.js';
import { printNotes } from '../output/notes.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { loadBoxConfig, userHome } from './load.js';

export async function rebuildCommand(io: Io): Promise<void> {
  const hostWarning = throwIfRefused(checkHostUser(io.uid, io.gid, io.env));
  if (hostWarning !== null) io.stderr.write(`byre: warning: ${hostWarning.message}\n`);

  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  if (!existsSync(ctx.project.config)) {
    throw new ByreError(
      `this directory has no byre setup yet (${escapeTerminal(ctx.project.config)} is missing)`,
      {
        rule: 'rebuild.not-set-up',
        remedy: 'run byre develop first; it sets the project up and builds the image',
      },
    );
  }

  // The early read only picks the engine to detect and pin.
  const early = await loadBoxConfig(ctx, userHome(io));
  const facts = await detectEngine(early.config.engine.value, ctx.boxWritableRoots, io.env);
  for (const w of facts.warnings) io.stderr.write(`byre: warning: ${w.message}\n`);
  const engine = createEngine(facts, { env: io.env });
  const ids = bakedIds(facts.keepId, io.uid, io.gid);
  const tag = imageTag(ctx.projectId, ids.uid, ids.gid);

  await withSetupLock(ctx.project, async () => {
    const { config, skills, warnings } = await loadBoxConfig(ctx, userHome(io));
    if (config.engine.value !== early.config.engine.value) {
      throw new RefusedError(
        `the config's engine changed to "${config.engine.value}" while byre was starting on ${facts.name}`,
        { rule: 'rebuild.engine-changed', remedy: 'run byre rebuild again' },
      );
    }
    const contextFiles = await readContextFiles(config, userHome(io));
    const plan = planBuild(config, skills, ctx.worktreeDir, { contextFiles });
    printNotes(io.stderr, [...warnings, ...plan.notes]);
    await ensureImage({
      engine,
      plan,
      contextDir: ctx.project.context,
      projectDir: ctx.worktreeDir,
      projectId: ctx.projectId,
      tag,
      base: config.base.value,
      uid: ids.uid,
      gid: ids.gid,
      noCache: true,
    });
  });
  io.stderr.write(`byre: rebuilt ${tag} without the build cache; volumes were left as they are\n`);
}
