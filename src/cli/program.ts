// The commander tree: flags become option objects, and each action hands off
// to one module in src/commands/. No logic lives here. Command modules are
// imported lazily so a command pays only for what it uses (ink included).
// Over 500 lines: the whole command tree, one registrar per command group.

import { Command, CommanderError, Option } from 'commander';
import { UsageError } from '../errors.js';
import { describeTree } from './tree.js';
import { versionLine } from '../embedded.js';
import { defaultIo, type Io } from '../io.js';
import type { DeliverOptions } from '../transfer/deliver-args.js';
import { DEFAULT_GRAB_MAX_BYTES, DEFAULT_GRAB_MAX_ENTRIES } from '../transfer/grab-limits.js';

/** `--flag` (true), `--flag=true|yes` or `--flag=false|no`; anything else is a usage error. */
function yesNoFlag(name: string, value: boolean | string): boolean {
  if (value === true || value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  throw new UsageError(`${name} takes true or false, not ${JSON.stringify(value)}`);
}

export function buildProgram(io: Io): Command {
  // Registration order is the order `byre --help` lists the commands in.
  const program = rootProgram(io);
  addDevelopCommand(program, io);
  addWorktreeCommands(program, io);
  addConfigAndShellCommands(program, io);
  addTransferCommands(program, io);
  addInspectCommands(program, io);
  addStoreCommands(program, io);
  addPrintGeneratedCommands(program, io);
  addCredentialCommands(program, io);
  addPackageCommands(program, io, 'skill');
  addPackageCommands(program, io, 'template');
  addWiringCommands(program, io);
  addLayerCommands(program, io);
  addPresetCommands(program, io);
  addScriptOutputCommands(program, io);
  return program;
}

/** The root command: its help text, output routed through io, and `--version`. */
function rootProgram(io: Io): Command {
  const program = new Command('byre')
    .description(
      'Run an AI coding agent in a throwaway, project-scoped Docker or Podman box.\n' +
        'The box sees this project and what you explicitly grant — never your home\n' +
        'directory, keys, or the rest of the machine.',
    )
    .usage('<command> [options]')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Errors are rethrown as UsageError and rendered by main.ts.
      outputError: () => undefined,
    })
    .addOption(new Option('-V, --version', 'print the version').hideHelp());

  program.on('option:version', () => {
    io.stdout.write(`${versionLine()}\n`);
    throw new CommanderError(0, 'byre.version', 'version printed');
  });
  return program;
}

/** `develop`: set up if needed and run the box in the foreground. */
function addDevelopCommand(program: Command, io: Io): void {
  program
    .command('develop')
    .description('Set up if needed and run this directory’s box in the foreground.')
    .option('--template <name>', 'first run only: the template to build on ("none" for none)')
    .option('--agent <name>', 'first run only: the agent skill to launch ("none" for a shell)')
    .option(
      '--shared-auth [yes]',
      'first run only: answer the shared-auth offer up front (--shared-auth=false declines)',
    )
    .option(
      '--passphrase-fd <n>',
      'read the credentials’ passphrase from file descriptor n (never from env or argv)',
    )
    .option(
      '--self-edit',
      'mount this project’s byre store read-write in the box: the agent may change its own config (announced; changes reported at exit)',
    )
    .option('--verbose', 'stream the engine’s whole build log instead of byre’s progress line')
    .action(
      async (options: {
        template?: string;
        agent?: string;
        sharedAuth?: boolean | string;
        passphraseFd?: string;
        selfEdit?: boolean;
        verbose?: boolean;
      }) => {
        const { developCommand } = await import('../commands/develop.js');
        const { parseFdFlag } = await import('../credentials/input.js');
        const { passphraseFd, sharedAuth, ...rest } = options;
        await developCommand(io, {
          ...rest,
          ...(sharedAuth === undefined
            ? {}
            : { sharedAuth: yesNoFlag('--shared-auth', sharedAuth) }),
          ...(passphraseFd === undefined ? {} : { passphraseFd: parseFdFlag(passphraseFd) }),
        });
      },
    );
}

/** `config` (the on-screen editor) and `shell` (into the running session). */
function addConfigAndShellCommands(program: Command, io: Io): void {
  program
    .command('config')
    .description('Edit this project’s config (or the global default / a named layer) on screen.')
    .option('--global', 'edit ~/.byre/default.config, the baseline of every box')
    .option('--layer <name>', 'edit the named layer ~/.byre/layers/<name>/layer.config')
    .action(async (options: { global?: boolean; layer?: string }) => {
      const { configCommand } = await import('../commands/config.js');
      await configCommand(io, options);
    });

  program
    .command('shell')
    .description(
      'Open a login shell (as dev, with the agent’s env) in this directory’s running session; `-- <cmd> [args…]` runs one command there instead.',
    )
    .argument('[command...]', 'after `--`: a command and its arguments, passed as they are')
    .option('--skip-uid-check', 'enter a box that runs as another uid than yours')
    .action(async (command: string[], options: { skipUidCheck?: boolean }) => {
      const { shellCommand } = await import('../commands/shell.js');
      await shellCommand(io, { ...options, command });
    });
}

/** `deliver` and `grab`: files into and out of a running box. */
function addTransferCommands(program: Command, io: Io): void {
  program
    .command('deliver')
    .description(
      'Send files, a directory or stdin into a running box’s /inbox; prints landed paths.',
    )
    .argument(
      '[paths...]',
      'files or directories, or `-` for stdin; an ssh://[user@]host[:port] first argument delivers there',
    )
    .option(
      '--box <id-or-prefix>',
      'the target box: a prefix of its project, workdir or container id',
    )
    .option('--name <file>', 'the landing name for stdin (default stdin-YYYYMMDD-HHMMSS)')
    .option('--skip-uid-check', 'show and use boxes that run as another uid than yours')
    .option('--no-clip', 'do not copy the landed paths to the clipboard')
    .option('--boxes', 'machine verb: list usable boxes, one TAB-separated line each')
    .option('--proto <n>', 'machine verb: the protocol version the caller speaks')
    .option('--tar', 'machine verb: deliver the entries of one tar stream read from stdin (`-`)')
    .option('--remote-byre <path>', 'the byre binary on the ssh:// host (when its PATH hides it)')
    .option('--install-app', 'install the deliver app (droplet, Quick Action, .desktop entry)')
    .action(async (paths: string[], options: DeliverOptions) => {
      const { deliverCommand } = await import('../commands/deliver.js');
      await deliverCommand(io, paths, options);
    });

  program
    .command('grab')
    .description('Copy a file or directory out of a running box; never overwrites a host file.')
    .argument('<box-path>', 'a path in the box (relative paths count from /workspace)')
    .argument('[host-path]', 'where to land it (default: .), or `-` for stdout (one file)')
    .option(
      '--box <id-or-prefix>',
      'the source box: a prefix of its project, workdir or container id',
    )
    .option('--skip-uid-check', 'use a box that runs as another uid than yours')
    .option(
      '--max-size <size>',
      `stop and keep nothing once the box has sent more than this (default ${DEFAULT_GRAB_MAX_BYTES / 1024 ** 3}G; units K, M, G, T)`,
    )
    .option(
      '--max-entries <n>',
      `stop and keep nothing once a directory’s stream has more entries than this (default ${DEFAULT_GRAB_MAX_ENTRIES})`,
    )
    .action(
      async (
        boxPath: string,
        hostPath: string | undefined,
        options: { box?: string; skipUidCheck?: boolean; maxSize?: string; maxEntries?: string },
      ) => {
        const { grabCommand } = await import('../commands/grab.js');
        await grabCommand(io, boxPath, hostPath, options);
      },
    );
}

/** `status` and `doctor`: read-only reports on the box and the machine. */
function addInspectCommands(program: Command, io: Io): void {
  program
    .command('status')
    .description(
      'Show what this directory’s box can touch: every grant, who granted it, and its state.',
    )
    .option('--full', 'the same page untruncated (raw lines, sources, instruction text)')
    .option('--data', 'the same content as JSON (versioned; not yet a scripting interface)')
    .option('--self-edit', 'also show the grant `byre develop --self-edit` would add')
    .action(async (options: { full?: boolean; data?: boolean; selfEdit?: boolean }) => {
      // The engines' `ps` is started before the page's code loads, so the
      // two overlap (status-scan.ts); a flag error is the page's to report.
      const { startStatusScan } = await import('../commands/status-scan.js');
      const scan =
        options.full === true && options.data === true ? undefined : await startStatusScan(io);
      const { statusCommand } = await import('../commands/status.js');
      await statusCommand(io, options, {}, scan);
    });

  program
    .command('doctor')
    .description(
      'Check this machine for what byre needs, one line each with a fix; exit 1 when byre is not usable here.',
    )
    .option(
      '--prune',
      'list byre objects and store folders whose project store or directory is gone, and remove them after confirmation',
    )
    .option('--yes', 'with --prune: remove without asking (needed without a terminal)')
    .option('--data', 'the findings as JSON (versioned)')
    .action(async (options: { prune?: boolean; yes?: boolean; data?: boolean }) => {
      const { doctorCommand } = await import('../commands/doctor.js');
      await doctorCommand(io, options);
    });
}

/** `reset`, `rebuild`, `rehome`, `forget`: what byre keeps for a project on the host. */
function addStoreCommands(program: Command, io: Io): void {
  program
    .command('reset')
    .description(
      'Wipe ALL of this project’s named volumes (not the image). Refuses while a session is live.',
    )
    .option('-y, --force', 'do not ask for confirmation')
    .action(async (options: { force?: boolean }) => {
      const { resetCommand } = await import('../commands/reset.js');
      await resetCommand(io, options);
    });

  program
    .command('rebuild')
    .description(
      "Rebuild the image (and the edge's, when the config injects) with the build cache disabled; volumes are untouched.",
    )
    .option('--verbose', 'stream the engine’s whole build log instead of byre’s progress line')
    .action(async (options: { verbose?: boolean }) => {
      const { rebuildCommand } = await import('../commands/rebuild.js');
      await rebuildCommand(io, {}, options);
    });

  program
    .command('rehome')
    .description(
      'Re-point a moved directory’s identity, or accept a directory’s changed one: migrate volumes and stored config from its old id.',
    )
    .argument(
      '[old-id]',
      'the id the project had before it moved or changed (omit to list candidates)',
    )
    .action(async (oldId: string | undefined) => {
      const { rehomeCommand } = await import('../commands/rehome.js');
      await rehomeCommand(io, oldId);
    });

  program
    .command('forget')
    .description('Remove all of byre’s host-side state for this directory: volumes, image, store.')
    .option('-y, --force', 'do not ask for confirmation')
    .action(async (options: { force?: boolean }) => {
      const { forgetCommand } = await import('../commands/forget.js');
      await forgetCommand(io, options);
    });
}

/** `dockerfile` and `dockerrun`: print what develop would build and run. */
function addPrintGeneratedCommands(program: Command, io: Io): void {
  program
    .command('dockerfile')
    .description('Print the generated Dockerfile for this directory.')
    .option(
      '--context <dir>',
      'also write a fresh build context into <dir> (a new directory no box can write), to build by hand',
    )
    .action(async (options: { context?: string }) => {
      const { dockerfileCommand } = await import('../commands/dockerfile.js');
      await dockerfileCommand(io, options);
    });

  program
    .command('dockerrun')
    .description(`Print the exact engine run command develop would use for this directory.`)
    .action(async () => {
      const { dockerrunCommand } = await import('../commands/dockerrun.js');
      await dockerrunCommand(io);
    });
}

/** `ejectfirewall`, `version`, `completion`: scripts and lines to stdout. */
function addScriptOutputCommands(program: Command, io: Io): void {
  program
    .command('ejectfirewall')
    .description('Print the firewall’s outside-the-box step as a standalone script.')
    .action(async () => {
      const { ejectfirewallCommand } = await import('../commands/ejectfirewall.js');
      await ejectfirewallCommand(io);
    });

  program
    .command('version')
    .description('Print the version.')
    .action(() => {
      io.stdout.write(`${versionLine()}\n`);
    });

  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish).')
    .argument('<shell>', 'bash | zsh | fish')
    .addHelpText(
      'after',
      '\nSetup:\n' +
        "  bash:  echo 'source <(byre completion bash)' >> ~/.bashrc\n" +
        '  zsh:   byre completion zsh > "${fpath[1]}/_byre"\n' +
        '  fish:  byre completion fish > ~/.config/fish/completions/byre.fish\n',
    )
    .action(async (shell: string) => {
      const { completionScript } = await import('./completion.js');
      io.stdout.write(completionScript(shell, describeTree(program)));
    });
}

function addWorktreeCommands(program: Command, io: Io): void {
  const load = () => import('../commands/worktree.js');
  const group = program
    .command('worktree')
    .description(
      'Create a linked git worktree (branch <name>) and start a session in it: a parallel agent with this project’s config, volumes and image.',
    )
    .argument('<name>', 'the branch (created when new); `list` and `remove` are subcommands')
    .option('--path <dir>', 'where to put the worktree (default: from worktree_base)')
    .option('--self-edit', 'start the session with --self-edit')
    .helpCommand(false)
    .action(async (name: string, options: { path?: string; selfEdit?: boolean }) =>
      (await load()).worktreeCommand(io, name, options),
    );
  group
    .command('list')
    .description(
      'List this repository’s worktrees, each with its branch and whether its session runs.',
    )
    .action(async () => (await load()).worktreeListCommand(io));
  group
    .command('remove')
    .description(
      'Remove a linked worktree (git does it, in a container); refused while its session runs.',
    )
    .argument('<name>', 'its branch, its directory name, or its path')
    .option(
      '--force',
      'remove it even with changes git has not committed (git worktree remove --force)',
    )
    .action(async (name: string, options: { force?: boolean }) =>
      (await load()).worktreeRemoveCommand(io, name, options),
    );
}

interface CredentialFlags {
  global?: boolean;
  layer?: string;
  passphraseFd?: string;
  file?: string;
  inject?: string;
  header?: string;
  bearer?: boolean;
  basic?: string;
}

/** `byre credential …`: encrypted env_from_host rows (adr/0012). */
function addCredentialCommands(program: Command, io: Io): void {
  const load = () => import('../commands/credential.js');
  const target = async (flags: CredentialFlags) => {
    const { parseFdFlag } = await import('../credentials/input.js');
    return {
      ...(flags.global === true ? { global: true } : {}),
      ...(flags.layer === undefined ? {} : { layer: flags.layer }),
      ...(flags.passphraseFd === undefined
        ? {}
        : { passphraseFd: parseFdFlag(flags.passphraseFd) }),
    };
  };
  const where = (c: Command): Command =>
    c
      .option('--global', 'the baseline every project extends (~/.byre/default.config)')
      .option('--layer <name>', 'a named layer (~/.byre/layers/<name>/layer.config)');
  const fd = (c: Command): Command =>
    c.option(
      '--passphrase-fd <n>',
      'read the passphrase from file descriptor n (never from env or argv)',
    );
  const group = program
    .command('credential')
    .description(
      'Manage encrypted credentials: env_from_host rows only byre develop can open, with your passphrase.',
    )
    .helpCommand(false);
  fd(
    where(
      group
        .command('add')
        .description(
          'Seal a value for KEY into this project’s config (value typed unechoed, piped on stdin, or --file).',
        )
        .argument('<KEY>', 'the variable the agent sees')
        .option('--file <path>', 'seal this file instead; the box gets KEY=<path of a 0600 copy>')
        .option(
          '--inject <host[,host]>',
          'inject at the edge for these hosts instead: the box holds a sentinel (again on an injected KEY: add hosts, asking the passphrase)',
        )
        .option('--header <name>', 'with --inject: present the value as this header')
        .option('--bearer', 'with --inject: present it as Authorization: Bearer')
        .option(
          '--basic <user>',
          'with --inject: present it as Authorization: Basic (git over HTTPS)',
        ),
    ),
  ).action(async (key: string, flags: CredentialFlags) => {
    const where = await target(flags);
    const file = flags.file === undefined ? {} : { file: flags.file };
    const { inject, header, bearer, basic } = flags;
    if ([inject, header, bearer, basic].some((f) => f !== undefined)) {
      const { credentialInjectAddCommand } = await import('../commands/credential-inject.js');
      await credentialInjectAddCommand(io, key, {
        ...where,
        ...file,
        ...(inject === undefined ? {} : { inject }),
        ...(header === undefined ? {} : { header }),
        ...(bearer === undefined ? {} : { bearer }),
        ...(basic === undefined ? {} : { basic }),
      });
      return;
    }
    await (await load()).credentialAddCommand(io, key, { ...where, ...file });
  });
  where(
    group
      .command('list')
      .description('List credential keys and the file each comes from; never a value.'),
  ).action(async (flags: CredentialFlags) =>
    (await load()).credentialListCommand(io, await target(flags)),
  );
  where(
    group
      .command('remove')
      .description('Remove KEY’s encrypted row from this project’s config (or --global, --layer).')
      .argument('<KEY>', 'the credential to remove')
      .option(
        '--inject <host>',
        'drop only this host from an injected KEY (asks the passphrase; value and other hosts are sealed again)',
      )
      .option('--passphrase-fd <n>', 'with --inject: read the passphrase from file descriptor n'),
  ).action(async (key: string, flags: CredentialFlags) => {
    if (flags.inject === undefined) {
      await (await load()).credentialRemoveCommand(io, key, await target(flags));
      return;
    }
    const { credentialInjectRemoveCommand } = await import('../commands/credential-inject.js');
    await credentialInjectRemoveCommand(io, key, flags.inject, await target(flags));
  });
  fd(
    where(
      group
        .command('rekey')
        .description(
          'Change a file’s passphrase: a new identity, every row re-sealed (fd: current, then new, one per line).',
        ),
    ),
  ).action(async (flags: CredentialFlags) =>
    (await load()).credentialRekeyCommand(io, await target(flags)),
  );
}

/** `byre skill …` / `byre template …`: the same package verbs for both kinds. */
function addPackageCommands(program: Command, io: Io, kind: 'skill' | 'template'): void {
  const load = () => import('../commands/package.js');
  const group = program
    .command(kind)
    .description(
      kind === 'skill'
        ? 'Manage skills: bundled, local and installed packages that extend a box.'
        : 'Manage templates: bundled, local and installed base-image packages.',
    )
    .helpCommand(false);
  group
    .command('list')
    .description(`List every ${kind}: bundled, installed and local, flagging INVALID ones.`)
    .action(async () => (await load()).packageListCommand(io, kind));
  group
    .command('inspect')
    .description(
      `Show a ${kind}'s metadata and grants; a URI is fetched and verified, not installed.`,
    )
    .argument('<id|uri>', 'a catalog id, or a manifest URL or path')
    .action(async (ref: string) => (await load()).packageInspectCommand(io, kind, ref));
  group
    .command('install')
    .description(
      `Fetch, verify and snapshot a ${kind} from a distribution manifest (https or a path).`,
    )
    .argument('<manifest-uri>', 'https:// URL, file: URI or path of the manifest')
    .option('--digest <sha256:…>', 'refuse unless the package has exactly this digest')
    .option('--yes', 'confirm replacing an installed package without a prompt')
    .action(async (uri: string, options: { digest?: string; yes?: boolean }) =>
      (await load()).packageInstallCommand(io, kind, uri, options),
    );
  group
    .command('uninstall')
    .description(`Remove an installed ${kind}, naming the configs that reference it.`)
    .argument('<id>', 'the installed package id')
    .option('--yes', 'do not ask for confirmation')
    .action(async (id: string, options: { yes?: boolean }) =>
      (await load()).packageUninstallCommand(io, kind, id, options),
    );
  group
    .command('fork')
    .description(`Copy a ${kind} (bundled, installed or local) to a new, editable local one.`)
    .argument('<id>', 'the package to copy')
    .argument('<new-id>', 'the id of the local copy')
    .action(async (id: string, newId: string) =>
      (await load()).packageForkCommand(io, kind, id, newId),
    );
  group
    .command('init')
    .description(`Scaffold a new local ${kind}.`)
    .argument('<name>', 'the id: a bare name or owner/name')
    .action(async (name: string) => (await load()).packageInitCommand(io, kind, name));
  group
    .command('adopt')
    .description(`Make a checkout the live source of its ${kind} id (a symlink into the store).`)
    .argument('<dir>', 'the package directory')
    .action(async (dir: string) => (await load()).packageAdoptCommand(io, kind, dir));
  group
    .command('validate')
    .description(`Validate one ${kind}, or all of them.`)
    .argument('[name]', 'the package to check (default: every one)')
    .action(async (name: string | undefined) =>
      (await load()).packageValidateCommand(io, kind, name),
    );
  group
    .command('pack')
    .description(`Emit a distribution manifest for a local ${kind}; prints its digest.`)
    .argument('<name>', 'the local package')
    .option('-o, --out <file>', 'write the manifest here (after every read succeeded)')
    .action(async (name: string, options: { out?: string }) =>
      (await load()).packagePackCommand(io, kind, name, options),
    );
}

/** Repeatable option values, in order. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const TARGET_HELP =
  "\nWhere it writes: this project's byre.config (in the store, never the project\n" +
  'tree); --global writes ~/.byre/default.config (every box), --layer <name> the\n' +
  'named layer ~/.byre/layers/<name>/layer.config. `byre status` names the files.\n';

function targetOptions(command: Command): Command {
  return command
    .option('--global', 'write default.config: every box on this machine')
    .option('--layer <name>', 'write the named layer ~/.byre/layers/<name>/layer.config')
    .addHelpText('after', TARGET_HELP);
}

/** `byre mcp|claude-skill|context add|remove|list`: the wiring declaration verbs. */
function addWiringCommands(program: Command, io: Io): void {
  const load = () => import('../commands/wiring.js');

  const mcp = program
    .command('mcp')
    .description('Declare MCP servers for the box (wiring, not a grant): add, remove, list.')
    .helpCommand(false);
  targetOptions(
    mcp
      .command('add')
      .description('Add (or replace) an MCP server: a remote URL, or a local argv after --.')
      .argument('<name>', 'the server name: lowercase letters, digits and "-"')
      .argument('[target...]', 'an http(s) URL, or -- <program> [args...] for a stdio server')
      .option('--env <NAME>', 'a variable the server reads (repeatable); never its value', collect)
      .option('--egress <host[:port]>', 'another host the server reaches (repeatable)', collect)
      .option('--header <Name=value>', 'an HTTP header for a URL server (repeatable)', collect)
      .option('--bearer <NAME>', 'send Authorization: Bearer ${NAME} (a URL server)')
      .addHelpText(
        'after',
        '\nExamples:\n' +
          '  byre mcp add github --env GITHUB_TOKEN -- github-mcp-server stdio\n' +
          '  byre mcp add docs https://mcp.example.com/mcp --bearer DOCS_TOKEN\n' +
          'A URL opens egress to its host (attributed mcp:<name>). Tokens stay out of\n' +
          'byre files: name the variable, and pass its value with env_from_host.\n',
      ),
  ).action(
    async (
      name: string,
      target: string[],
      options: {
        env?: string[];
        egress?: string[];
        header?: string[];
        bearer?: string;
        global?: boolean;
        layer?: string;
      },
    ) => (await load()).mcpAddCommand(io, name, target, options),
  );
  targetOptions(
    mcp
      .command('remove')
      .description(
        'Remove an MCP server here; closes it (!name) when a lower layer or a skill declares it.',
      )
      .argument('<name>', 'the server name'),
  ).action(async (name: string, options: { global?: boolean; layer?: string }) =>
    (await load()).wiringRemoveCommand(io, 'mcp', name, options),
  );
  mcp
    .command('list')
    .description(
      'The effective MCP servers of this directory’s box, attributed, and who gets them.',
    )
    .action(async () => (await load()).wiringListCommand(io, 'mcp'));

  const cs = program
    .command('claude-skill')
    .description('Declare Claude Skills for the box (wiring, not a grant): add, remove, list.')
    .helpCommand(false);
  targetOptions(
    cs
      .command('add')
      .description('Add a Claude Skill directory (validated: SKILL.md front matter, bounds).')
      .argument('<dir>', 'the directory whose root holds SKILL.md')
      .option('--name <name>', 'the skill name (must match SKILL.md; default: its front matter)'),
  ).action(async (dir: string, options: { name?: string; global?: boolean; layer?: string }) =>
    (await load()).claudeSkillAddCommand(io, dir, options),
  );
  targetOptions(
    cs
      .command('remove')
      .description(
        'Remove a Claude Skill here; closes it (!name) when a lower layer or a skill declares it.',
      )
      .argument('<name>', 'the skill name'),
  ).action(async (name: string, options: { global?: boolean; layer?: string }) =>
    (await load()).wiringRemoveCommand(io, 'claude_skills', name, options),
  );
  cs.command('list')
    .description(
      'The effective Claude Skills of this directory’s box, attributed, and who gets them.',
    )
    .action(async () => (await load()).wiringListCommand(io, 'claude_skills'));

  const context = program
    .command('context')
    .description('Declare standing instructions for the agent: add, remove, list.')
    .helpCommand(false);
  targetOptions(
    context
      .command('add')
      .description('Add (or replace) a block of standing instructions; no flag opens $EDITOR.')
      .argument('<name>', 'the block name: lowercase letters, digits and "-"')
      .option('--text <prose>', 'the instructions, inline')
      .option('--file <path>', 'a host file holding them (read at every develop)'),
  ).action(
    async (
      name: string,
      options: { text?: string; file?: string; global?: boolean; layer?: string },
    ) => (await load()).contextAddCommand(io, name, options),
  );
  targetOptions(
    context
      .command('remove')
      .description('Remove a block here; writes !name when a lower layer still declares it.')
      .argument('<name>', 'the block name'),
  ).action(async (name: string, options: { global?: boolean; layer?: string }) =>
    (await load()).wiringRemoveCommand(io, 'context', name, options),
  );
  context
    .command('list')
    .description('The standing instructions this directory’s box gets, attributed.')
    .action(async () => (await load()).wiringListCommand(io, 'context'));
}

/** `byre layer new|list|validate`: named layers, chained by extends. */
function addLayerCommands(program: Command, io: Io): void {
  const load = () => import('../commands/layer.js');
  const layer = program
    .command('layer')
    .description('Manage named layers: shared baselines projects build on with extends.')
    .helpCommand(false);
  layer
    .command('new')
    .description('Create ~/.byre/layers/<name>/layer.config.')
    .argument('<name>', 'lowercase letters, digits and "-"')
    .option('--extends <parent>', 'the layer this one builds on')
    .action(async (name: string, options: { extends?: string }) =>
      (await load()).layerNewCommand(io, name, options),
    );
  layer
    .command('list')
    .description('List the layers with their chains, root first; BROKEN ones say why.')
    .action(async () => (await load()).layerListCommand(io));
  layer
    .command('validate')
    .description('Check a layer (or all) and walk its extends chain: loops, missing parents.')
    .argument('[name]', 'the layer to check (default: every one)')
    .action(async (name: string | undefined) => (await load()).layerValidateCommand(io, name));
}

/** `byre preset inspect|apply`: review and apply a repository's config proposal. */
function addPresetCommands(program: Command, io: Io): void {
  const load = () => import('../commands/preset.js');
  const preset = program
    .command('preset')
    .description('Review and apply a config preset (a byre.preset a repository ships).')
    .helpCommand(false)
    .addHelpText(
      'after',
      '\nCloning a repository never changes a box: a byre.preset applies only when you\n' +
        'run byre preset apply, after its review. The retired in-repo name byre.config\n' +
        'is refused; rename it to byre.preset.\n',
    );
  preset
    .command('inspect')
    .description(
      'Show the box a preset would make (every grant, attributed) and its diff against byre.config.',
    )
    .argument('[source]', 'a path or https:// URL (default ./byre.preset)')
    .action(async (source: string | undefined) => (await load()).presetInspectCommand(io, source));
  preset
    .command('apply')
    .description(
      'Review a preset, offer installs for missing packages, then write it as this project’s byre.config.',
    )
    .argument('[source]', 'a path or https:// URL (default ./byre.preset)')
    .option('--yes', 'apply (and install what it needs) without asking; required in a pipe')
    .action(async (source: string | undefined, options: { yes?: boolean }) =>
      (await load()).presetApplyCommand(io, source, options),
    );
}

/**
 * Commander's message as byre's lines: its `(Did you mean x?)` suffix joins the
 * first line the way an unknown config key's suggestion does, and any other
 * line becomes a detail line. The renderer escapes a newline inside one line,
 * so a message handed over whole would print a literal backslash-n.
 */
function commanderLines(message: string): string[] {
  const text = message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.+)\?\)$/, ' — did you mean $1?');
  return text.split('\n').filter((line) => line.trim() !== '');
}

const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'byre.version']);

/** Parse argv and run the chosen command. Returns the exit status for success paths. */
export async function runCli(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  const program = buildProgram(io);
  if (argv.length === 0) {
    io.stderr.write(program.helpInformation());
    throw new UsageError('a command is required (see the list above)');
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (HELP_CODES.has(error.code)) return 0;
      const [message, ...details] = commanderLines(error.message);
      throw new UsageError(message ?? error.message, {
        details,
        remedy: 'run `byre --help` for the list of commands, or `byre <command> --help`',
      });
    }
    throw error;
  }
}
