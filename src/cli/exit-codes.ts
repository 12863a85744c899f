// The exit statuses each verb can end with, beyond the ones every verb shares
// (adr/0002). docs/COMMANDS.md is generated from this table and the command
// tree together; a verb missing here fails src/cli/commands-doc.test.ts.

export interface ExitDoc {
  /** `0`, `3`, `0–127`, `any`. */
  code: string;
  meaning: string;
}

/** What every command may exit with. */
export const COMMON_EXITS: readonly ExitDoc[] = [
  { code: '0', meaning: 'success' },
  { code: '1', meaning: 'byre failed; the reason is on stderr as `byre: …`, with a fix' },
  { code: '2', meaning: 'usage error: an unknown command or flag, a wrong number of arguments' },
  {
    code: '3',
    meaning:
      'refused on purpose, nothing changed: e.g. a host tool (docker, podman, git, ssh) that PATH finds inside a directory the box can write, an id another directory owns, a worktree structure a box could have forged, or a directory whose identity changed since byre launched in it',
  },
  { code: '70', meaning: 'byre crashed: a bug, with a stack on stderr' },
];

/** A build Ctrl-C (or SIGTERM, SIGHUP) stopped: 128 + the signal's number, as a shell reports it. */
const BUILD_INTERRUPTED: ExitDoc = {
  code: '130',
  meaning:
    'Ctrl-C during the image build: the build was stopped and what it left removed (SIGTERM 143, SIGHUP 129)',
};

/** Per command path (`develop`, `skill install`): statuses beyond COMMON_EXITS. */
export const COMMAND_EXITS: Readonly<Record<string, readonly ExitDoc[]>> = {
  develop: [
    {
      code: '0–127',
      meaning: 'the agent’s own exit status, passed through unchanged and silently',
    },
    {
      code: '1',
      meaning:
        'the box died of a signal (status 128 or more, decoded on stderr), or the network wall did not apply',
    },
    {
      code: '3',
      meaning:
        'a session already runs in this directory, an exclusive volume or a host port is held, or byre cannot rule either out; or a fresh config would drop what this directory’s earlier identity restricted, unconfirmed',
    },
    BUILD_INTERRUPTED,
  ],
  worktree: [
    {
      code: '0–127',
      meaning: 'the new worktree’s session ended: the agent’s exit status, as `develop`',
    },
    {
      code: '3',
      meaning: 'as `develop`; or the project’s image has no git to register the worktree with',
    },
    BUILD_INTERRUPTED,
  ],
  'worktree list': [],
  'worktree remove': [
    {
      code: '3',
      meaning:
        'the worktree’s session runs, byre cannot rule one out, or the project’s image has no git',
    },
  ],
  config: [
    {
      code: '1',
      meaning:
        'no terminal, or the file (or one beneath it) does not load: refused before the screen opens, located',
    },
  ],
  shell: [
    { code: 'any', meaning: 'the exit status of the shell, or of `-- <cmd>`, passed through' },
  ],
  deliver: [
    { code: '3', meaning: 'the box has no usable /inbox, or the remote byre refused' },
    { code: '4', meaning: '`--boxes`: only part of the engine pool answered; the list is partial' },
  ],
  grab: [{ code: '3', meaning: 'the box refused the path (not a file or directory there)' }],
  status: [],
  doctor: [
    {
      code: '1',
      meaning: 'byre is not usable here (a check failed), or `--prune` could not remove everything',
    },
  ],
  reset: [
    { code: '1', meaning: 'the wipe was cancelled, or an engine could not be reached' },
    { code: '3', meaning: 'a session of the project is live: nothing was removed' },
  ],
  rebuild: [
    { code: '3', meaning: 'the config’s engine changed while byre was starting' },
    BUILD_INTERRUPTED,
  ],
  rehome: [
    {
      code: '3',
      meaning:
        'a session of either id is live, this is a linked worktree (whose own identity did not change), a differing byre.config waits at the new id, or this directory’s own identity change is unsettled',
    },
  ],
  forget: [
    { code: '1', meaning: 'forget was cancelled, or an engine could not be reached' },
    { code: '3', meaning: 'a session of the project is live: nothing was removed' },
  ],
  dockerfile: [
    {
      code: '3',
      meaning: '--context names a directory that exists or that a box of this project can write',
    },
  ],
  dockerrun: [],
  ejectfirewall: [],
  version: [],
  completion: [],
  skill: [],
  'skill list': [],
  'skill inspect': [],
  'skill install': [],
  'skill uninstall': [],
  'skill fork': [],
  'skill init': [],
  'skill adopt': [],
  'skill validate': [],
  'skill pack': [],
  credential: [],
  'credential add': [],
  'credential list': [],
  'credential remove': [],
  'credential rekey': [],
  mcp: [],
  'mcp add': [],
  'mcp remove': [],
  'mcp list': [],
  'claude-skill': [],
  'claude-skill add': [],
  'claude-skill remove': [],
  'claude-skill list': [],
  context: [],
  'context add': [],
  'context remove': [],
  'context list': [],
  preset: [],
  'preset inspect': [],
  'preset apply': [],
  layer: [],
  'layer new': [],
  'layer list': [],
  'layer validate': [
    { code: '1', meaning: 'a layer is broken: a parse error, a loop, a missing parent' },
  ],
  template: [],
  'template list': [],
  'template inspect': [],
  'template install': [],
  'template uninstall': [],
  'template fork': [],
  'template init': [],
  'template adopt': [],
  'template validate': [],
  'template pack': [],
};
