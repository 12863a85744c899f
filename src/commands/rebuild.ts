// `byre rebuild`: regenerate the build context and build the image (and, for
// a config that injects, the edge's image) with the cache disabled: the
// deliberate-staleness valve, the one way to refresh what the engine's layer
// cache kept (adr/0003). Under the setup lock, from the config read under
// it; never touches volumes or enrols.

import { pathExists } from '../host/path-view.js';
import type { Io } from '../io.js';
import { withSetupLock } from '../host/lock.js';
import { ByreError } from '../errors.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { escapeTerminal } from '../output/escape.js';
import { printNotes, printWarnings, say } from '../output/notes.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { wiringDeliveryNow } from '../session/bound-wiring.js';
import { ensureProjectEdgeImage, ensureProjectImage, projectImage } from '../session/image.js';
import { edgeImageTag } from '../gen/names.js';
import { loadBoxConfig, planBox, userHome } from './load.js';
import { projectEdgeCa } from '../session/edge.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { pinEngine, rereadPinned } from './project-engine.js';

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
  if (!pathExists(ctx.project.config)) {
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
  const pinned = await pinEngine(io, ctx, deps, early);
  const image = projectImage(ctx.projectId, pinned.engine.facts.keepId, io);

  const built = await withSetupLock(ctx.project, async () => {
    const loaded = await rereadPinned(io, ctx, pinned, 'rebuild');
    const edgeCa = await projectEdgeCa(ctx.project.edge, ctx.projectId, loaded.config.injections);
    const plan = await planBox(io, { ctx, ...loaded }, edgeCa);
    printNotes(io.stderr, [...loaded.warnings, ...plan.notes]);
    await ensureProjectImage(pinned.engine, ctx, { config: loaded.config, plan }, image, {
      noCache: true,
      progress: { io, verbose: options.verbose === true },
      locateBase: true,
      wiring: wiringDeliveryNow(pinned.engine.facts, io.env),
    });
    if (edgeCa === undefined) return [image.tag];
    // The edge's own image too (adr/0077): the cache valve refreshes its node.
    const verbose = options.verbose === true;
    await ensureProjectEdgeImage(pinned.engine, io, ctx, { noCache: true, verbose });
    return [image.tag, edgeImageTag(ctx.projectId)];
  });
  say(
    io.stderr,
    `rebuilt ${built.join(' and ')} without the build cache; volumes were left as they are`,
  );
}
