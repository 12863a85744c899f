// `byre rebuild`: regenerate the build context and build the image with the
// cache disabled: the deliberate-staleness valve, the one way to refresh what
// the engine's layer cache kept (adr/0003). Under the setup
// lock, from the config read under it; never touches volumes or enrols.

import { existsSync } from 'node:fs';
import type { Io } from '../io.js';
import { buildProgressFor } from '../box/build-progress.js';
import { ensureImage } from '../box/image.js';
import { withSetupLock } from '../project/lock.js';
import { ByreError, RefusedError } from '../errors.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { bakedIds, imageTag } from '../gen/names.js';
import { escapeTerminal } from '../output/escape.js';
import { printNotes, printWarnings, say } from '../output/notes.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { storeTag } from '../project/store-layout.js';
import { loadBoxConfig, planBox, userHome } from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectEngineFacts } from './project-engine.js';

export async function rebuildCommand(
  io: Io,
  given: CommandDeps = {},
  options: { verbose?: boolean } = {},
): Promise<void> {
  const deps = withDefaults(given);
  const hostWarning = throwIfRefused(checkHostUser(io.uid, io.gid, io.env));
  if (hostWarning !== null) printWarnings(io.stderr, [hostWarning]);

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
  const facts = await projectEngineFacts(deps.detect, ctx, early, io.env);
  printWarnings(io.stderr, facts.warnings);
  const engine = deps.createEngine(facts, { env: io.env });
  const ids = bakedIds(facts.keepId, io.uid, io.gid);
  const tag = imageTag(ctx.projectId, ids.uid, ids.gid);

  await withSetupLock(ctx.project, async () => {
    const { config, skills, warnings, trees } = await loadBoxConfig(ctx, userHome(io));
    if (config.engine.value !== early.config.engine.value) {
      throw new RefusedError(
        `the config's engine changed to "${config.engine.value}" while byre was starting on ${facts.name}`,
        { rule: 'rebuild.engine-changed', remedy: 'run byre rebuild again' },
      );
    }
    const plan = await planBox(io, { ctx, config, skills, warnings, trees });
    printNotes(io.stderr, [...warnings, ...plan.notes]);
    await ensureImage({
      engine,
      plan,
      contextDir: ctx.project.context,
      projectDir: ctx.projectRoot,
      projectId: ctx.projectId,
      storeTag: storeTag(ctx.store.home),
      tag,
      base: config.base.value,
      uid: ids.uid,
      gid: ids.gid,
      noCache: true,
      progress: buildProgressFor(io, ctx.project.buildLog, options.verbose === true),
      baseFrom: { from: config.base.from, projectConfig: ctx.project.config },
    });
  });
  say(io.stderr, `rebuilt ${tag} without the build cache; volumes were left as they are`);
}
