// First-run onboarding without prompts: `--template` / `--agent` write the
// project's byre.config (in the store, never the project tree); with neither,
// the cascade defaults apply and an empty consent document is written, through
// the config writer like every config write. The interactive picker arrives
// with the config editor.

import { access } from 'node:fs/promises';
import { ByreError, UsageError } from '../errors.js';
import { projectConfigFile, writeConfig } from '../config/write.js';
import { ensurePrivateDir } from '../project/atomic-write.js';
import type { ProjectContext } from '../project/context.js';
import { templateConfigPath } from '../project/store-layout.js';
import type { SkillCatalog } from '../skills/resolve.js';
import { applyEdits, type TomlEdit } from '../tomldoc/index.js';

export interface OnboardFlags {
  template?: string;
  agent?: string;
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** The byre.config text onboarding writes (pure). */
export function onboardingConfig(projectRoot: string, flags: OnboardFlags): string {
  const header = [
    `# byre project config for ${projectRoot.replace(/[\r\n]/g, '?')}`,
    '# The consent document for this project’s boxes: everything they may reach is',
    '# granted here or in the layers below it (`byre status` shows the result).',
  ];
  const edits: TomlEdit[] = [];
  if (flags.template !== undefined)
    edits.push({ op: 'set', path: ['template'], value: flags.template });
  if (flags.agent !== undefined) edits.push({ op: 'set', path: ['agent'], value: flags.agent });
  return applyEdits(`${header.join('\n')}\n`, edits);
}

/** What develop says after onboarding wrote the project's config. */
export function onboardedLine(configPath: string): string {
  return [
    `byre: wrote this project's config: ${configPath}`,
    '      edit it by hand; `byre status` names every file',
    '      of the cascade, and docs/CONFIG.md lists every key',
  ].join('\n');
}

async function checkTemplate(
  ctx: ProjectContext,
  name: string,
  bundled: (n: string) => unknown,
): Promise<void> {
  if (name === 'none' || bundled(name) !== null) return;
  if (!name.startsWith('byre/') && (await exists(templateConfigPath(ctx.store.home, name)))) return;
  throw new ByreError(`template "${name}" not found`, {
    rule: 'onboard.template-missing',
    remedy: 'choose one of the bundled templates (go, node, python), a local one, or "none"',
  });
}

function checkAgent(name: string, catalog: SkillCatalog): void {
  if (name === 'none') return;
  const skill = catalog.lookup(name);
  if (skill?.agent) return;
  const agents = catalog.ids().filter((id) => catalog.lookup(id)?.agent);
  throw new ByreError(`agent "${name}" is not an available agent skill`, {
    rule: 'onboard.agent-missing',
    remedy:
      agents.length > 0 ? `choose one of: ${agents.join(', ')}, or "none"` : 'use --agent none',
  });
}

/**
 * Writes the project's byre.config on first run. Returns true when it wrote
 * one. Flags on an already-configured project are a usage error: the store
 * config is the user's, and develop never edits it.
 */
export async function onboard(
  ctx: ProjectContext,
  flags: OnboardFlags,
  lookups: { bundledTemplate: (name: string) => unknown; catalog: SkillCatalog },
): Promise<boolean> {
  if (await exists(ctx.project.config)) {
    if (flags.template !== undefined || flags.agent !== undefined) {
      throw new UsageError('--template and --agent apply only to a project’s first develop', {
        remedy: `this project is configured already; edit ${ctx.project.config} instead`,
      });
    }
    return false;
  }
  if (flags.template !== undefined)
    await checkTemplate(ctx, flags.template, lookups.bundledTemplate);
  if (flags.agent !== undefined) checkAgent(flags.agent, lookups.catalog);
  await ensurePrivateDir(ctx.project.dir);
  try {
    await writeConfig(
      projectConfigFile(ctx.project),
      () => onboardingConfig(ctx.projectRoot, flags),
      {
        createOnly: true,
        lock: ctx.project,
      },
    );
  } catch (error) {
    // Another byre onboarded this project meanwhile: its config stands.
    if (error instanceof ByreError && error.rule === 'config.write-exists') return false;
    throw error;
  }
  return true;
}
