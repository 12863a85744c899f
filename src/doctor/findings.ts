// byre doctor's judgement: each fact becomes one line that says what was
// found, what byre makes of it (ok, note, warn, fail) and, unless it is fine,
// how to fix it. byre is usable here exactly when no line fails. Pure.
// Over 500 lines: one judgement per doctor line, each a short pure function; the list is the page.

import { checkHostUser } from '../engine/host-user.js';
import type { EngineName } from '../engine/types.js';
import type {
  BaseFact,
  DiskFact,
  EngineFact,
  LimitFacts,
  StoreEntry,
  StoreFacts,
  ToolFact,
} from './facts.js';
import type { LeftoverReport } from './leftovers.js';

export type Verdict = 'ok' | 'note' | 'warn' | 'fail';

export interface Finding {
  /** Stable id for scripts (`engine.docker`, `store.permissions`). */
  id: string;
  /** The short label of the line. */
  subject: string;
  verdict: Verdict;
  found: string;
  fix: string | null;
}

type Env = Readonly<Record<string, string | undefined>>;

function line(
  id: string,
  subject: string,
  verdict: Verdict,
  found: string,
  fix: string | null = null,
): Finding {
  return { id, subject, verdict, found, fix };
}

/** A host tool PATH finds inside a directory the box can write: byre will not run it. */
function declinedLine(id: string, tool: string, at: string, root: string): Finding {
  return line(
    id,
    tool,
    'warn',
    `${at} is inside ${root}, which the box can write; byre will not run it`,
    `remove ${root} from PATH, or install ${tool} outside the project`,
  );
}

export function hostUserFinding(uid: number, gid: number, env: Env): Finding {
  const check = checkHostUser(uid, gid, env);
  const who = `uid ${uid}, gid ${gid}`;
  if (check.kind === 'ok') return line('host.user', 'host user', 'ok', who);
  if (check.kind === 'warn') {
    return line(
      'host.user',
      'host user',
      'warn',
      `${who}: ${check.warning.message}`,
      'run byre as your normal user',
    );
  }
  return line(
    'host.user',
    'host user',
    'fail',
    `${who}: ${check.refusal.message}`,
    check.refusal.remedy,
  );
}

export function engineFinding(e: EngineFact): Finding {
  const id = `engine.${e.name}`;
  switch (e.state) {
    case 'absent':
      return line(id, e.name, 'note', 'not installed (not on PATH)');
    case 'declined':
      return declinedLine(id, e.name, e.path, e.root);
    case 'unusable': {
      const said = e.said === '' ? '' : `; ${e.name} said: ${e.said}`;
      return line(id, e.name, 'warn', `at ${e.path}: ${e.message}${said}`, e.fix);
    }
    case 'ok': {
      const mode = !e.rootless
        ? 'rootful'
        : e.name === 'podman'
          ? e.keepId
            ? 'rootless, keep-id supported (boxes run as uid 1000 mapped to you)'
            : 'rootless, WITHOUT keep-id (Podman older than 4.3)'
          : 'rootless';
      const version = e.version === '' ? 'version unknown' : e.version;
      const found = `${version} at ${e.path}; answering, ${mode}`;
      if (e.warnings.length > 0) {
        return line(
          id,
          e.name,
          'warn',
          `${found}; ${e.warnings.join('; ')}`,
          'upgrade Podman to 4.3 or later',
        );
      }
      return line(id, e.name, 'ok', found);
    }
  }
}

export type EngineChoice = 'auto' | 'docker' | 'podman';

/**
 * Which engine develop would run here, by the same rule as detection: an
 * explicit choice or nothing; `auto` takes the engine this project's boxes
 * are on (`recorded`, adr/0053) or nothing, and for a project that never
 * launched docker when it answers, else podman, never falling through past
 * a declined docker.
 */
export function selectedEngine(
  choice: EngineChoice,
  engines: readonly EngineFact[],
  recorded: EngineName | null = null,
): { name: EngineName } | { name: null; why: string; fix: string } {
  const fact = (n: EngineName): EngineFact =>
    engines.find((e) => e.name === n) ?? { name: n, state: 'absent' };
  const usable = (
    e: EngineFact,
  ): { name: EngineName } | { name: null; why: string; fix: string } => {
    switch (e.state) {
      case 'ok':
        return { name: e.name };
      case 'absent':
        return {
          name: null,
          why: `${e.name} is not installed`,
          fix: `install ${e.name}, or set engine = "auto"`,
        };
      case 'declined':
        return {
          name: null,
          why: `${e.name} is declined (see its line)`,
          fix: `remove ${e.root} from PATH`,
        };
      case 'unusable':
        return {
          name: null,
          why: `${e.name} cannot be used (see its line)`,
          fix: e.fix ?? `fix ${e.name}`,
        };
    }
  };
  if (choice !== 'auto') return usable(fact(choice));
  if (recorded !== null) {
    const pinned = usable(fact(recorded));
    if (pinned.name !== null) return pinned;
    const other = recorded === 'docker' ? 'podman' : 'docker';
    return {
      name: null,
      why: `this project's boxes are on ${recorded}, and ${pinned.why}; byre does not guess another engine`,
      fix: `${pinned.fix}; or move this project with engine = "${other}"`,
    };
  }
  const docker = fact('docker');
  if (docker.state === 'declined' || docker.state === 'ok') return usable(docker);
  const podman = fact('podman');
  if (podman.state !== 'absent') return usable(podman);
  if (docker.state === 'unusable') return usable(docker);
  return {
    name: null,
    why: 'neither docker nor podman is installed',
    fix: 'install Docker or Podman (docs/INSTALL.md)',
  };
}

export function engineChoiceFinding(
  choice: EngineChoice | null,
  engines: readonly EngineFact[],
  recorded: EngineName | null = null,
): Finding {
  if (choice === null) {
    return line(
      'engine.selected',
      'engine here',
      'fail',
      'unknown: the config for this directory did not load',
      'fix the config (see its line)',
    );
  }
  const picked = selectedEngine(choice, engines, recorded);
  if (picked.name === null) {
    return line(
      'engine.selected',
      'engine here',
      'fail',
      `engine = "${choice}": ${picked.why}`,
      picked.fix,
    );
  }
  const where = choice === 'auto' && recorded !== null ? "; this project's boxes are there" : '';
  return line(
    'engine.selected',
    'engine here',
    'ok',
    `${picked.name} (engine = "${choice}"${where})`,
  );
}

const TOOL_WHY: Record<string, string> = {
  git: 'passes your commit identity (user.name/user.email) into boxes',
  ssh: 'carries `byre deliver ssh://…` to another machine',
};

export function toolFinding(t: ToolFact): Finding {
  const id = `tool.${t.tool}`;
  const why = TOOL_WHY[t.tool] ?? 'used by deliver';
  switch (t.state) {
    case 'found':
      return line(id, t.tool, 'ok', `${t.path}`);
    case 'declined':
      return declinedLine(id, t.tool, t.path, t.root);
    case 'absent':
      return line(
        id,
        t.tool,
        t.tool === 'git' ? 'warn' : 'note',
        `not on PATH; it ${why}`,
        `install ${t.tool} if you need that`,
      );
  }
}

/**
 * One line for the clipboard helpers deliver may use here: those of this
 * platform and display. No display at all is not a problem to fix.
 */
export function clipboardFinding(tools: readonly ToolFact[]): Finding {
  const found = tools.filter((t) => t.state === 'found').map((t) => t.tool);
  const declined = tools.filter((t) => t.state === 'declined');
  if (declined.length > 0) {
    return line(
      'tool.clipboard',
      'clipboard',
      'warn',
      `declined (inside a box-writable directory): ${declined.map((t) => t.tool).join(', ')}`,
      'remove that directory from PATH',
    );
  }
  if (found.length > 0) return line('tool.clipboard', 'clipboard', 'ok', found.join(', '));
  const fallback = 'deliver copies landed paths with an OSC 52 escape instead';
  if (tools.length === 0) {
    return line('tool.clipboard', 'clipboard', 'note', `no graphical display here; ${fallback}`);
  }
  const names = tools.map((t) => t.tool).join(', ');
  return line(
    'tool.clipboard',
    'clipboard',
    'note',
    `none of ${names} is installed; ${fallback}`,
    `install ${names.includes('wl-copy') ? 'wl-clipboard' : names.includes('xclip') ? 'xclip' : names}`,
  );
}

const NOFILE_MIN = 4096;
const INOTIFY_WATCHES_MIN = 65536;

export function limitFinding(l: LimitFacts, platform: string): Finding {
  if (l.nofileHard === null)
    return line('limits.nofile', 'open files', 'note', 'could not read the limit', null);
  const inotify =
    l.inotifyWatches === null
      ? ''
      : `; inotify: ${l.inotifyWatches} watches, ${l.inotifyInstances ?? '?'} instances per user`;
  const found = `soft ${l.nofileSoft ?? '?'}, hard ${l.nofileHard}${inotify}`;
  if (l.nofileHard < NOFILE_MIN) {
    return line(
      'limits.nofile',
      'open files',
      'warn',
      `${found}: under ${NOFILE_MIN}, agents and engine clients can run out`,
      platform === 'darwin'
        ? 'raise it: sudo launchctl limit maxfiles 65536 200000'
        : 'raise `nofile` in /etc/security/limits.conf (or the service unit), then log in again',
    );
  }
  if (l.inotifyWatches !== null && l.inotifyWatches < INOTIFY_WATCHES_MIN) {
    return line(
      'limits.nofile',
      'open files',
      'warn',
      `${found}: few inotify watches; file watchers in boxes share them with your host`,
      'sudo sysctl fs.inotify.max_user_watches=524288 (and persist it in /etc/sysctl.d/)',
    );
  }
  return line('limits.nofile', 'open files', 'ok', found);
}

const GIB = 1024 ** 3;
export const DISK_WARN_BYTES = 5 * GIB;
export const DISK_FAIL_BYTES = 1 * GIB;

function gib(bytes: number): string {
  return `${(bytes / GIB).toFixed(1)} GiB`;
}

export function diskFinding(d: DiskFact): Finding {
  const id = `disk.${d.engine}`;
  const subject = `disk (${d.engine})`;
  if (d.state === 'unmeasured') {
    return line(
      id,
      subject,
      'note',
      `${d.root === null ? 'image store unknown' : d.root}: ${d.why}`,
      null,
    );
  }
  const found = `${gib(d.freeBytes)} free of ${gib(d.totalBytes)} at ${d.root}`;
  if (d.freeBytes < DISK_FAIL_BYTES) {
    return line(
      id,
      subject,
      'fail',
      `${found}: too little to build a box image`,
      `free space on that filesystem (\`${d.engine} system prune\` removes unused engine data)`,
    );
  }
  if (d.freeBytes < DISK_WARN_BYTES) {
    return line(
      id,
      subject,
      'warn',
      `${found}: builds may run out`,
      `free space on that filesystem (\`${d.engine} system prune\` removes unused engine data)`,
    );
  }
  return line(id, subject, 'ok', found);
}

/** How an image a build starts FROM is named in its row, and what fixes one that cannot be had. */
interface FromImageRow {
  id: string;
  subject: string;
  /** Which develop pulls it when it is not here. */
  firstUse: string;
  /** The remedy when it is neither here nor pullable, for an engine. */
  unpullableFix: (engine: string) => string;
}

/** One image a build starts FROM: here, pullable, neither, or not asked. */
function fromImageFinding(b: BaseFact, row: FromImageRow): Finding {
  switch (b.state) {
    case 'local':
      return line(row.id, row.subject, 'ok', `${b.ref} is present on ${b.engine}`);
    case 'pullable':
      return line(
        row.id,
        row.subject,
        'ok',
        `${b.ref} is not on ${b.engine} yet; its registry has it (${row.firstUse} pulls it)`,
      );
    case 'unpullable':
      return line(
        row.id,
        row.subject,
        'fail',
        `${b.ref} is not on ${b.engine} and cannot be pulled: ${b.why}`,
        row.unpullableFix(b.engine),
      );
    case 'unknown':
      return line(
        row.id,
        row.subject,
        'warn',
        `${b.ref ?? `the ${row.subject}`}: not checked (${b.why})`,
        'fix the lines above, then run byre doctor again',
      );
  }
}

export function baseFinding(b: BaseFact): Finding {
  return fromImageFinding(b, {
    id: 'base.image',
    subject: 'base image',
    firstUse: 'the first develop',
    unpullableFix: (engine) =>
      `pull it where its registry is reachable, correct the name, or set base = "<an image ${engine} already has>" (\`${engine} images\` lists them)`,
  });
}

/**
 * The base byre's edge image is built from, for a config that injects
 * credentials: no config key names it, so only making it available fixes it.
 */
export function edgeBaseFinding(b: BaseFact): Finding {
  return fromImageFinding(b, {
    id: 'edge.base',
    subject: 'edge image base',
    firstUse: 'the first develop that injects',
    unpullableFix: (engine) =>
      `pull it where its registry is reachable, or \`${engine} load\` it from a saved copy: byre builds the image that holds injected credentials from it alone`,
  });
}

const GROUP_OTHER_WRITE = 0o022;
const GROUP_OTHER_ALL = 0o077;

/** The store must be yours and writable by you alone: it holds every box's grants. */
export function storeFinding(s: StoreFacts): Finding {
  if (s.entries === null) {
    return line(
      'store.permissions',
      'store',
      'note',
      `${s.home} does not exist yet (the first byre develop creates it)`,
    );
  }
  const home = s.entries.find((e) => e.path === s.home);
  if (home === undefined || home.kind !== 'dir') {
    return line(
      'store.permissions',
      'store',
      'fail',
      `${s.home} is not a directory`,
      `move it aside; byre recreates ${s.home} at the next develop`,
    );
  }
  const foreign = s.entries.filter((e) => e.uid !== s.uid && e.kind !== 'symlink');
  const writable = s.entries.filter(
    (e) => e.kind !== 'symlink' && (e.mode & GROUP_OTHER_WRITE) !== 0,
  );
  const list = (es: readonly StoreEntry[]): string =>
    es.length <= 3
      ? es.map((e) => e.path).join(', ')
      : `${es
          .slice(0, 3)
          .map((e) => e.path)
          .join(', ')} and ${es.length - 3} more`;
  if (foreign.length > 0) {
    return line(
      'store.permissions',
      'store',
      'fail',
      `owned by another user (you are uid ${s.uid}): ${list(foreign)}`,
      `sudo chown -R ${s.uid} ${s.home}`,
    );
  }
  if (writable.length > 0) {
    return line(
      'store.permissions',
      'store',
      'fail',
      `writable by group or others, who could rewrite what your boxes are granted: ${list(writable)}`,
      `chmod -R go-rwx ${s.home}`,
    );
  }
  if ((home.mode & GROUP_OTHER_ALL) !== 0) {
    return line(
      'store.permissions',
      'store',
      'warn',
      `${s.home} is mode ${home.mode.toString(8).padStart(4, '0')}: others can read your configs and launch records`,
      `chmod 700 ${s.home}`,
    );
  }
  return line(
    'store.permissions',
    'store',
    'ok',
    `${s.home}: yours alone (${s.entries.length} entries checked)`,
  );
}

export function launchRecordFinding(
  stale: readonly { project: string }[] | null,
  unreached: readonly string[],
): Finding {
  if (stale === null) {
    return line(
      'launch.records',
      'launch records',
      'note',
      `not counted: could not ask ${unreached.join(', ')}`,
    );
  }
  if (stale.length === 0) return line('launch.records', 'launch records', 'ok', 'none stale');
  const projects = new Set(stale.map((s) => s.project)).size;
  return line(
    'launch.records',
    'launch records',
    'note',
    `${stale.length} no box points at any more, in ${projects} project(s)`,
    'nothing to do: the next byre develop of each project reaps them',
  );
}

export function leftoverFinding(r: LeftoverReport): Finding {
  const alone: string[] = [];
  if (r.otherStore > 0)
    alone.push(`${r.otherStore} of another byre store (another user or BYRE_HOME)`);
  if (r.unattributed > 0)
    alone.push(`${r.unattributed} without a store label (made by an older byre)`);
  if (r.unreached.length > 0)
    alone.push(`could not ask ${r.unreached.map((u) => u.engine).join(', ')}`);
  const tail = alone.length === 0 ? '' : `; left alone: ${alone.join('; ')}`;
  const running = r.leftovers.filter((l) => l.running).length;
  if (r.leftovers.length === 0 && r.folders.length === 0) {
    return line('leftovers', 'leftovers', 'ok', `none${tail}`);
  }
  const runningText = running === 0 ? '' : ` (${running} running: stop those first)`;
  const found = [
    ...(r.leftovers.length === 0
      ? []
      : [
          `${r.leftovers.length} byre object(s) whose project store or directory is gone${runningText}`,
        ]),
    ...(r.folders.length === 0
      ? []
      : [`${r.folders.length} project store folder(s) whose directory is gone`]),
  ];
  return line(
    'leftovers',
    'leftovers',
    'warn',
    `${found.join('; ')}${tail}`,
    'byre doctor --prune lists and removes them (a moved project keeps its config and volumes with `byre rehome <old-id>` instead)',
  );
}

export function configFinding(error: { message: string; fix: string | null } | null): Finding {
  if (error === null)
    return line('config', 'config', 'ok', 'the cascade for this directory validates');
  return line('config', 'config', 'fail', error.message, error.fix ?? 'fix the file named above');
}

/** byre is usable here when nothing failed. */
export function isUsable(findings: readonly Finding[]): boolean {
  return findings.every((f) => f.verdict !== 'fail');
}
