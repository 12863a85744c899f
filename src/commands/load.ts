// The read path every box command shares: where we stand, the merged config
// cascade, and the enabled skills. Reads only; never enrols or writes.

import { homedir } from 'node:os';
import { loadCascade } from '../config/read.js';
import type { ConfigIssue } from '../errors.js';
import type { EffectiveConfig } from '../config/types.js';
import { embeddedText } from '../embedded.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { EMPTY_CATALOG, resolveEnabledSkills, type SkillCatalog } from '../skills/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { Io } from '../cli/io.js';

export interface LoadedBox {
  ctx: ProjectContext;
  config: EffectiveConfig;
  skills: ResolvedSkill[];
  warnings: ConfigIssue[];
}

/** A bundled template by bare name, from the binary's embedded files. */
export function bundledTemplate(name: string): { id: string; text: string } | null {
  const bare = name.startsWith('byre/') ? name.slice('byre/'.length) : name;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(bare)) return null;
  const text = embeddedText(`templates/${bare}/template.config`);
  return text === null ? null : { id: `byre/${bare}`, text };
}

export function skillCatalog(): SkillCatalog {
  return EMPTY_CATALOG;
}

/** Resolve config and skills for the current directory. */
export async function loadBoxConfig(ctx: ProjectContext): Promise<Omit<LoadedBox, 'ctx'>> {
  const { config, issues } = loadCascade({
    home: ctx.store.home,
    projectId: ctx.projectId,
    bundledTemplate,
  });
  const skills = resolveEnabledSkills(config, skillCatalog());
  return { config, skills, warnings: issues };
}

export async function loadBox(io: Io): Promise<LoadedBox> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  return { ctx, ...(await loadBoxConfig(ctx)) };
}

/** The user's home directory, for `~` in host paths. */
export function userHome(io: Io): string {
  return io.env['HOME'] ?? homedir();
}
