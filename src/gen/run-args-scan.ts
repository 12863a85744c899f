// What raw `run_args` do to a box, read the way docker and podman read them:
// their flag grammar (pflag: `--flag=value`, `--flag value`, `-v value`,
// `-vvalue`, `-it`, `--net` for `--network`) over the two engines' `run`
// flags, and what each flag that widens the box gives it. Pure; it never
// decides whether a flag is allowed (the user is trusted), only what status
// and develop's banner must say about it (adr/0051).
// Over 500 lines: the engines' run-flag grammar is a table, and one judge per widening flag.

import { expandHostPath } from '../config/grammar.js';

/**
 * What one raw entry does: a containment hole (🛑), a host path bound in, a
 * published port, host environment passed in, another widening, nothing
 * that widens the box, or a flag byre does not know (passed through as written).
 */
type RawArgEffect = 'hole' | 'mount' | 'port' | 'env' | 'grant' | 'inert' | 'unknown';

interface RawArg {
  /** The tokens of this entry as written: a flag and its value, a short group, or a bare word and all after it. */
  argv: string[];
  /** Index of the first token in the scanned list. */
  start: number;
  effect: RawArgEffect;
  /** What it gives the box, in a few words; empty for `inert` and `unknown`. */
  what: string;
  /** A host path the entry binds in (also set on a hole that binds the engine socket). */
  mount: { host: string; target: string; mode: 'ro' | 'rw' } | null;
  /** A published port, as written (`8080:80`), or `all` for --publish-all. */
  port: string | null;
  /** The engine's names of the flags it sets (`network` for `--net`; a short group's each); none for a bare word or an unknown flag. */
  flags: string[];
}

// ---------------------------------------------------------------------------
// The flag vocabulary of `docker run` (20.10 and later) and `podman run` (4.x
// and later). A flag missing here is scanned as unknown, never guessed.

const SHORT: Readonly<Record<string, string>> = {
  a: 'attach',
  c: 'cpu-shares',
  d: 'detach',
  e: 'env',
  h: 'hostname',
  i: 'interactive',
  l: 'label',
  m: 'memory',
  p: 'publish',
  P: 'publish-all',
  q: 'quiet',
  t: 'tty',
  u: 'user',
  v: 'volume',
  w: 'workdir',
};

/** Hidden spellings both engines accept. */
const ALIAS: Readonly<Record<string, string>> = {
  net: 'network',
  'net-alias': 'network-alias',
  'dns-opt': 'dns-option',
};

const BOOLEAN = new Set([
  'detach',
  'disable-content-trust',
  'env-host',
  'help',
  'http-proxy',
  'init',
  'interactive',
  'no-healthcheck',
  'no-hostname',
  'no-hosts',
  'oom-kill-disable',
  'passwd',
  'privileged',
  'publish-all',
  'quiet',
  'read-only',
  'read-only-tmpfs',
  'replace',
  'rm',
  'rmi',
  'rootfs',
  'sig-proxy',
  'tls-verify',
  'tty',
  'unsetenv-all',
  'use-api-socket',
]);

const VALUE = new Set([
  'add-host',
  'annotation',
  'arch',
  'attach',
  'authfile',
  'blkio-weight',
  'blkio-weight-device',
  'cap-add',
  'cap-drop',
  'cert-dir',
  'cgroup-conf',
  'cgroup-parent',
  'cgroupns',
  'cgroups',
  'chrootdirs',
  'cidfile',
  'conmon-pidfile',
  'cpu-period',
  'cpu-quota',
  'cpu-rt-period',
  'cpu-rt-runtime',
  'cpu-shares',
  'cpus',
  'cpuset-cpus',
  'cpuset-mems',
  'creds',
  'decryption-key',
  'detach-keys',
  'device',
  'device-cgroup-rule',
  'device-read-bps',
  'device-read-iops',
  'device-write-bps',
  'device-write-iops',
  'dns',
  'dns-option',
  'dns-search',
  'domainname',
  'entrypoint',
  'env',
  'env-file',
  'env-merge',
  'expose',
  'gidmap',
  'gpus',
  'group-add',
  'group-entry',
  'health-cmd',
  'health-interval',
  'health-log-destination',
  'health-max-log-count',
  'health-max-log-size',
  'health-on-failure',
  'health-retries',
  'health-start-period',
  'health-startup-cmd',
  'health-startup-interval',
  'health-startup-retries',
  'health-startup-success',
  'health-startup-timeout',
  'health-timeout',
  'hostname',
  'hosts-file',
  'hostuser',
  'image-volume',
  'init-path',
  'ip',
  'ip6',
  'ipc',
  'isolation',
  'kernel-memory',
  'label',
  'label-file',
  'link',
  'link-local-ip',
  'log-driver',
  'log-opt',
  'mac-address',
  'memory',
  'memory-reservation',
  'memory-swap',
  'memory-swappiness',
  'mount',
  'name',
  'network',
  'network-alias',
  'oom-score-adj',
  'os',
  'passwd-entry',
  'personality',
  'pid',
  'pidfile',
  'pids-limit',
  'platform',
  'pod',
  'pod-id-file',
  'preserve-fd',
  'preserve-fds',
  'publish',
  'pull',
  'rdt-class',
  'requires',
  'restart',
  'retry',
  'retry-delay',
  'runtime',
  'sdnotify',
  'seccomp-policy',
  'secret',
  'security-opt',
  'shm-size',
  'shm-size-systemd',
  'stop-signal',
  'stop-timeout',
  'storage-opt',
  'subgidname',
  'subuidname',
  'sysctl',
  'systemd',
  'timeout',
  'tmpfs',
  'tz',
  'uidmap',
  'ulimit',
  'umask',
  'unsetenv',
  'user',
  'userns',
  'uts',
  'variant',
  'volume',
  'volume-driver',
  'volumes-from',
  'workdir',
]);

// ---------------------------------------------------------------------------
// What a flag gives the box

type Judged = Pick<RawArg, 'effect' | 'what' | 'mount' | 'port'>;

const INERT: Judged = { effect: 'inert', what: '', mount: null, port: null };
const judged = (effect: RawArgEffect, what: string): Judged => ({
  effect,
  what,
  mount: null,
  port: null,
});

/**
 * Where the engines' API sockets live: a bind of one of these, or of a
 * directory holding one, hands the box the engine (root on the host), even
 * read-only, since connecting to a socket is not a write.
 */
const SOCKETS = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/podman/podman.sock',
  '/var/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
  '/run/user/0/podman/podman.sock',
];

/** Does a bind of host path `source` reach an engine socket? */
function reachesEngineSocket(source: string): boolean {
  if (/(^|\/)(docker|podman|containerd)\.sock$/.test(source)) return true;
  // `.` and `..` applied; `~` is left alone (not a path the sockets live under).
  const clean = source.startsWith('/') ? expandHostPath(source, '/') : null;
  if (clean === null) return false;
  if (/^\/run\/user(\/\d+(\/(podman(\/.*)?|docker\.sock))?)?$/.test(clean)) return true;
  return SOCKETS.some((s) => s === clean || clean === '/' || s.startsWith(`${clean}/`));
}

function bindMount(host: string, target: string, readOnly: boolean, how: string): Judged {
  const mount = { host, target, mode: readOnly ? ('ro' as const) : ('rw' as const) };
  if (reachesEngineSocket(host)) {
    return {
      effect: 'hole',
      what: `binds the engine socket (${host}): root on the host${readOnly ? ', read-only or not' : ''}`,
      mount,
      port: null,
    };
  }
  return {
    effect: 'mount',
    what: `binds host ${host} at ${target} (${mount.mode}; ${how})`,
    mount,
    port: null,
  };
}

/** `-v SRC:DST[:OPTS]`, as both engines split it on Linux. */
function judgeVolume(value: string): Judged {
  const [src = '', dst, opts = ''] = value.split(':');
  if (dst === undefined) return INERT; // an anonymous volume at SRC
  const readOnly = opts.split(',').includes('ro');
  if (src.startsWith('/') || src.startsWith('~') || src.startsWith('.')) {
    return bindMount(src, dst, readOnly, '-v');
  }
  return judged('grant', `named volume ${src} at ${dst}, shared with whatever else mounts it`);
}

/** `--mount type=…,source=…,target=…[,readonly]`: comma-separated, a key alone is `true`. */
function judgeMount(value: string): Judged {
  const fields = new Map<string, string[]>();
  for (const field of value.split(',')) {
    const eq = field.indexOf('=');
    const key = (eq < 0 ? field : field.slice(0, eq)).trim().toLowerCase();
    const val = eq < 0 ? 'true' : field.slice(eq + 1);
    fields.set(key, [...(fields.get(key) ?? []), val]);
  }
  const one = (...keys: string[]): string | undefined =>
    keys.map((k) => fields.get(k)?.[0]).find((v) => v !== undefined);
  const type = (one('type') ?? 'volume').toLowerCase();
  const source = one('source', 'src') ?? '';
  const target = one('target', 'destination', 'dst') ?? '';
  const ro = (one('readonly', 'ro') ?? 'false').toLowerCase();
  const readOnly = ro === 'true' || ro === '1';
  if (type === 'bind' || type === 'glob') return bindMount(source, target, readOnly, '--mount');
  if (type === 'volume') {
    // The local driver binds a host path when told `device=`: a host mount in disguise.
    const device = (fields.get('volume-opt') ?? []).find((o) => o.startsWith('device='));
    if (device !== undefined) {
      return bindMount(device.slice('device='.length), target, readOnly, '--mount volume-opt');
    }
    return source === ''
      ? INERT
      : judged('grant', `named volume ${source} at ${target}, shared with whatever else mounts it`);
  }
  return INERT; // tmpfs, ramfs, devpts, image: nothing of the host
}

/** A namespace flag (`--pid`, `--ipc`, `--uts`, `--cgroupns`, `--userns`). */
function judgeNamespace(flag: string, value: string): Judged {
  const v = value.toLowerCase();
  const what: Readonly<Record<string, string>> = {
    pid: 'PID namespace (it sees and signals their processes)',
    ipc: 'IPC namespace (shared memory and semaphores)',
    uts: 'UTS namespace (hostname)',
    cgroupns: 'cgroup namespace',
    userns: 'user namespace (its root is that namespace’s root)',
  };
  if (v === 'host') return judged('hole', `shares the host's ${what[flag] ?? 'namespace'}`);
  if (v.startsWith('container:') || v.startsWith('ns:')) {
    return judged('hole', `shares ${value}'s ${what[flag] ?? 'namespace'}`);
  }
  if (flag === 'userns') return judged('grant', `user namespace ${value} instead of byre's`);
  return INERT;
}

function judgeNetwork(value: string): Judged {
  const v = value.toLowerCase();
  if (v === 'host') {
    return judged(
      'hole',
      "shares the host's network stack (every host port and interface, localhost services included)",
    );
  }
  if (v.startsWith('container:') || v.startsWith('ns:')) {
    return judged('hole', `shares ${value}'s network stack`);
  }
  if (
    ['none', 'bridge', 'default', 'private', 'slirp4netns', 'pasta'].includes(v.split(':')[0] ?? '')
  ) {
    return INERT;
  }
  return judged('grant', `joins network ${value} (and reaches what is on it)`);
}

const LOOSER_SECURITY: Readonly<Record<string, string>> = {
  'seccomp=unconfined': 'turns off the seccomp filter',
  'apparmor=unconfined': 'turns off AppArmor',
  'label=disable': 'turns off SELinux labelling',
  'systempaths=unconfined': "unmasks the kernel's /proc and /sys paths",
  'no-new-privileges=false': 'turns off no-new-privileges (a setuid binary can raise privilege)',
};

function judgeSecurityOpt(value: string): Judged {
  // docker still accepts the old `key:value` spelling.
  const eq = /^[a-z-]+:/.test(value) && !value.includes('=') ? value.replace(':', '=') : value;
  const [key = '', rest = ''] = eq.split(/=(.*)/s);
  const lower = `${key.toLowerCase()}=${rest.toLowerCase()}`;
  const known = LOOSER_SECURITY[lower];
  if (known !== undefined) return judged('hole', known);
  if (key === 'no-new-privileges' && (rest === '' || rest.toLowerCase() === 'true')) return INERT;
  if (key === 'mask') return INERT;
  if (key === 'unmask') return judged('hole', `unmasks ${rest} in /proc and /sys`);
  if (key === 'seccomp')
    return judged(
      'hole',
      `a seccomp profile of its own (${rest}): byre cannot tell what it allows`,
    );
  if (key === 'apparmor')
    return judged(
      'hole',
      `an AppArmor profile of its own (${rest}): byre cannot tell what it allows`,
    );
  if (key === 'label') return judged('hole', `an SELinux label of its own (${rest})`);
  return judged('hole', `security option ${value}: byre cannot tell what it loosens`);
}

function judgeCapAdd(value: string): Judged {
  const caps = value
    .split(',')
    .map((c) => c.trim().toUpperCase().replace(/^CAP_/, ''))
    .filter((c) => c !== '');
  if (caps.includes('ALL')) return judged('hole', 'adds every capability');
  return judged(
    'hole',
    `adds capabilit${caps.length === 1 ? 'y' : 'ies'} ${caps.join(', ')} (byre gives the box none of its own)`,
  );
}

function judgeEnv(value: string): Judged {
  const eq = value.indexOf('=');
  const key = eq < 0 ? value : value.slice(0, eq);
  if (key.startsWith('BYRE_')) {
    return judged(
      'hole',
      `overrides ${key}, which byre sets itself (its claims are not guaranteed)`,
    );
  }
  if (eq < 0) return judged('env', `passes the host's ${key}`);
  return INERT;
}

/** `true` for a boolean flag written bare or `=true`. */
function on(value: string | null): boolean {
  return value === null || /^(true|1|t)$/i.test(value);
}

/** What `--flag` with `value` (null: a boolean written bare) gives the box. */
function judgeFlag(flag: string, value: string | null): Judged {
  const v = value ?? '';
  switch (flag) {
    case 'privileged':
      return on(value)
        ? judged('hole', 'every capability and host device, confinement off')
        : INERT;
    case 'use-api-socket':
      return on(value)
        ? judged('hole', "binds the engine's API socket and credentials: root on the host")
        : INERT;
    case 'env-host':
      return on(value) ? judged('hole', "the host's whole environment, every secret in it") : INERT;
    case 'rootfs':
      return on(value) ? judged('hole', 'the image argument becomes a host directory') : INERT;
    case 'pid':
    case 'ipc':
    case 'uts':
    case 'cgroupns':
    case 'userns':
      return judgeNamespace(flag, v);
    case 'network':
      return judgeNetwork(v);
    case 'pod':
      return judged('hole', `joins pod ${v} (shares its namespaces)`);
    case 'cap-add':
      return judgeCapAdd(v);
    case 'device':
      return judged('hole', `host device ${v.split(':')[0] ?? v}`);
    case 'device-cgroup-rule':
      return judged('hole', `device access rule ${v}`);
    case 'gpus':
      return judged('hole', `host GPUs (${v})`);
    case 'security-opt':
      return judgeSecurityOpt(v);
    case 'seccomp-policy':
      return v === 'image' ? judged('hole', 'lets the image choose its seccomp profile') : INERT;
    case 'entrypoint':
      return judged('hole', "replaces byre's launcher (its gates do not run)");
    case 'volume':
      return judgeVolume(v);
    case 'mount':
      return judgeMount(v);
    case 'volumes-from':
      return judged('grant', `every mount of container ${v}`);
    case 'publish':
      return { effect: 'port', what: `publishes ${v}`, mount: null, port: v };
    case 'publish-all':
      return on(value)
        ? { effect: 'port', what: 'publishes every exposed port', mount: null, port: 'all' }
        : INERT;
    case 'env':
      return judgeEnv(v);
    case 'env-file':
      return judged('env', `every variable in host file ${v}`);
    case 'secret':
      return judged('env', `engine secret ${v.split(',')[0] ?? v}`);
    case 'group-add':
      return judged('grant', `adds group ${v}`);
    case 'user':
      return judged('grant', `runs as ${v} instead of byre's dev user`);
    case 'uidmap':
    case 'gidmap':
    case 'subuidname':
    case 'subgidname':
      return judged('grant', `maps ids (${flag} ${v}) instead of byre's user namespace`);
    case 'link':
      return judged('grant', `reaches container ${v.split(':')[0] ?? v}`);
    case 'runtime':
      return judged('grant', `runtime ${v}: byre cannot tell how it isolates`);
    case 'cgroup-parent':
      return judged('grant', `cgroup parent ${v}`);
    case 'preserve-fd':
    case 'preserve-fds':
      return judged('grant', 'passes open host file descriptors in');
    default:
      return INERT;
  }
}

// ---------------------------------------------------------------------------
// The scan

function known(flag: string): 'bool' | 'value' | null {
  if (BOOLEAN.has(flag)) return 'bool';
  if (VALUE.has(flag)) return 'value';
  return null;
}

function entry(argv: string[], start: number, j: Judged, flags: string[] = []): RawArg {
  return { argv, start, ...j, flags };
}

/**
 * Each raw entry of `args` (skill run_args then the project's, as the engine
 * gets them), with what it does. A bare word ends the flags: the engine takes
 * it as the image and everything after it as the command, so byre's own image
 * and launcher would not run; it and the rest are one hole.
 */
export function scanRunArgs(args: readonly string[]): RawArg[] {
  const out: RawArg[] = [];
  let i = 0;
  while (i < args.length) {
    const start = i;
    const token = args[i] ?? '';
    i++;
    if (token === '--' || !token.startsWith('-') || token === '-') {
      out.push(
        entry(
          args.slice(start),
          start,
          judged(
            'hole',
            "a bare word ends the flags: the engine runs it as the image, and what follows as its command (byre's image and launcher do not run)",
          ),
        ),
      );
      break;
    }
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const written = eq < 0 ? token.slice(2) : token.slice(2, eq);
      const flag = ALIAS[written] ?? written;
      const inline = eq < 0 ? null : token.slice(eq + 1);
      const kind = known(flag);
      if (kind === 'bool' || (kind === 'value' && inline !== null)) {
        out.push(entry([token], start, judgeFlag(flag, inline), [flag]));
      } else if (kind === 'value') {
        if (i >= args.length) {
          out.push(
            entry([token], start, judged('unknown', 'needs a value; the engine will refuse it')),
          );
        } else {
          // pflag takes the next token as the value, whatever it looks like.
          out.push(entry([token, args[i] ?? ''], start, judgeFlag(flag, args[i] ?? ''), [flag]));
          i++;
        }
      } else {
        // Unknown: a bare word after it is read as its value, so it is not
        // taken for the image; the pair is passed through as written.
        const next = args[i];
        const takes = inline === null && next !== undefined && !next.startsWith('-');
        out.push(entry(takes ? [token, next] : [token], start, judged('unknown', '')));
        if (takes) i++;
      }
      continue;
    }
    // A short group: `-it`, `-v/a:/b`, `-p=80:80`, `-itp 80:80`.
    let rest = token.slice(1);
    const argv = [token];
    const judgements: Judged[] = [];
    const flags: string[] = [];
    while (rest !== '') {
      const letter = rest[0] ?? '';
      rest = rest.slice(1);
      const flag = SHORT[letter];
      if (flag === undefined) {
        judgements.push(judged('unknown', ''));
        break;
      }
      flags.push(flag);
      if (known(flag) === 'bool') {
        judgements.push(judgeFlag(flag, null));
        continue;
      }
      let value = rest.startsWith('=') ? rest.slice(1) : rest;
      rest = '';
      if (value === '') {
        if (i >= args.length) {
          judgements.push(judged('unknown', 'needs a value; the engine will refuse it'));
          break;
        }
        value = args[i] ?? '';
        argv.push(value);
        i++;
      }
      judgements.push(judgeFlag(flag, value));
    }
    // One entry per flag of the group that says something (`-Pv /a:/b` is a
    // port and a bind); a group of inert flags is one inert entry.
    const telling = judgements.filter((j) => j.effect !== 'inert');
    for (const j of telling.length === 0 ? [INERT] : telling) {
      out.push(entry(argv, start, j, flags));
    }
  }
  return out;
}

/**
 * What an injecting box's edge owns (adr/0079): the box runs in its edge's
 * network namespace (and, under keep-id, its user namespace), where the
 * engines refuse, or would quietly undo, these on the box.
 */
const EDGE_OWNED = new Set([
  'add-host',
  'dns',
  'dns-option',
  'dns-search',
  'expose',
  'hostname',
  'ip',
  'ip6',
  'link',
  'link-local-ip',
  'mac-address',
  'network',
  'network-alias',
  'no-hosts',
  'publish',
  'publish-all',
  'userns',
  'uts',
]);

/** The raw entries an injecting box cannot carry (its edge owns what they set), as written. */
export function edgeOwnedRunArgs(args: readonly string[]): RawArg[] {
  return scanRunArgs(args).filter((a) => a.flags.some((f) => EDGE_OWNED.has(f)));
}
