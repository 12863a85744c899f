// A change of identity never loosens the box (adr/0047): before byre writes a
// fresh project config for a directory it launched under another identity,
// it compares what that identity's config restricted (a network posture, its
// closures, removal markers) with what the fresh one would. Anything lost
// needs an explicit yes on a terminal; without one, byre refuses, naming it.

import { pathExists } from '../host/path-view.js';

import { loadCascade } from '../config/read.js';
import { removalMarkers } from '../config/removals.js';
import { projectsWithEngineRecord } from '../session/engine-record.js';
import { RefusedError } from '../errors.js';
import type { Confirm } from '../io.js';
import { networkRestrictions } from '../gen/posture.js';
import { escapeTerminal } from '../output/escape.js';
import type { ProjectContext } from '../project/context.js';
import { recordedIdentities } from '../project/identity-record.js';
import { projectConfigPath } from '../project/store-layout.js';
import { loadCatalog } from '../skills/catalog.js';
import { resolveEnabledSkills } from '../skills/resolve.js';
import { packageCanon, templateLookup } from './load.js';

/** An earlier identity of this directory and the restrictions a fresh config would drop. */
interface Loosening {
  projectId: string;
  config: string;
  lost: string[];
}

/**
 * Every other identity this directory ran under: what its records say, and
 * the projects that keep an engine record for it (adr/0032), which also
 * covers a linked worktree launched before worktree records existed.
 */
function earlierIdentities(ctx: ProjectContext): string[] {
  const ids = [
    ...recordedIdentities(ctx.store.home, ctx.worktreeDir).map((r) => r.projectId),
    ...projectsWithEngineRecord(ctx.store.projects, ctx.worktreeId),
  ];
  return [...new Set(ids.filter((id): id is string => id !== null && id !== ctx.projectId))].sort();
}

/**
 * What an identity's config restricts. One that does not load (a mount gone,
 * a package uninstalled) is taken to restrict everything: byre cannot tell.
 */
function restrictionsOf(home: string, userHome: string, projectId: string): string[] | 'unknown' {
  try {
    const catalog = loadCatalog({ home, kind: 'skill' });
    const { config, layers, locate } = loadCascade({
      home,
      projectId,
      bundledTemplate: templateLookup(home),
      canon: packageCanon(home, catalog),
      userHome,
    });
    const skills = resolveEnabledSkills(config, catalog.asSkillCatalog(), locate);
    const own = layers.find((l) => l.ref.kind === 'project');
    return [...networkRestrictions(config, skills), ...(own ? removalMarkers(own.raw) : [])];
  } catch {
    return 'unknown';
  }
}

/** The earlier identities whose restrictions a fresh config for this one would not keep. */
function loosenings(ctx: ProjectContext, userHome: string): Loosening[] {
  const earlier = earlierIdentities(ctx).filter((id) =>
    pathExists(projectConfigPath(ctx.store.home, id)),
  );
  if (earlier.length === 0) return [];
  const fresh = restrictionsOf(ctx.store.home, userHome, ctx.projectId);
  const kept = new Set(fresh === 'unknown' ? [] : fresh);
  return earlier.flatMap((projectId) => {
    const had = restrictionsOf(ctx.store.home, userHome, projectId);
    const lost =
      had === 'unknown'
        ? ['whatever its config restricts (it does not load now)']
        : had.filter((r) => !kept.has(r));
    return lost.length === 0
      ? []
      : [{ projectId, config: projectConfigPath(ctx.store.home, projectId), lost }];
  });
}

/** The question and refusal text for one loosening. Pure. */
function looseningText(ctx: ProjectContext, l: Loosening): string {
  return `${ctx.worktreeDir} was launched as project ${l.projectId}, whose config restricts the box (${l.lost.join('; ')}); a fresh config for ${ctx.projectId} from your defaults would not`;
}

/**
 * Before a fresh project config is written: refuses (exit 3) unless every
 * restriction it would drop is confirmed on a terminal. `confirm` null: no
 * terminal to ask on. A project that has its config already is not asked.
 */
export async function guardFreshConfig(
  ctx: ProjectContext,
  userHome: string,
  confirm: Confirm | null,
): Promise<void> {
  if (pathExists(ctx.project.config)) return;
  const lost = loosenings(ctx, userHome);
  const first = lost[0];
  if (first === undefined) return;
  const remedy = `keep the restrictions by copying the old config (cp ${first.config} ${ctx.project.config}), or confirm on a terminal`;
  if (confirm !== null) {
    let yes = true;
    for (const l of lost) {
      // Paths and config values reach the terminal escaped (a refusal's are, by its renderer).
      yes = yes && (await confirm(escapeTerminal(`${looseningText(ctx, l)}. Write it anyway?`)));
    }
    if (yes) return;
    throw new RefusedError(`no fresh config was written for ${ctx.projectId}`, {
      rule: 'project.fresh-config-declined',
      remedy,
    });
  }
  throw new RefusedError(looseningText(ctx, first), {
    rule: 'project.fresh-config-unconfirmed',
    details: lost.slice(1).map((l) => `also: ${looseningText(ctx, l)}`),
    remedy,
  });
}
