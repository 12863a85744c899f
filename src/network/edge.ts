// The edge-only helper (adr/0070): a container on byre's own edge image
// (adr/0077), never the box's, that owns the network namespace the box then
// joins (adr/0079): made and started attached in one `run` (adr/0081)
// before the box is, with the box's host entries, published
// ports and (rootless podman) user namespace, and fed the routes,
// credentials and leaves on its stdin, which byre holds open for the session
// (its end ends the edge). Values travel on that pipe only: never in argv,
// env, a file or anything `inspect` shows. Nothing of the box's runs before
// it is ready: the box's launcher waits for its gate port (adr/0084), which
// it opens with its `byre-edge 1 ready` line; if it fails, the launch fails
// closed: the helper (and the box, when made) are removed.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';

import { cidfileId } from '../engine/cidfile.js';
import type { SessionRunner } from '../engine/engine.js';
import { DROP_PRIVILEGES, capAddFlags } from '../engine/argv.js';
import { ByreError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { redactSecrets } from '../output/redact.js';
import { EDGE_GATE_PORT, EDGE_SNAPSHOT_PATH } from '../gen/box-layout.js';
import { helperName, LABEL } from '../gen/names.js';
import { lazyPrivateTempDir } from '../host/private-temp.js';
import {
  helperIdentityFlags,
  NETNS_HELPER_STOP,
  readyOrNot,
  type AttachedHelper,
} from './netns.js';

/**
 * The edge's privileges: bind its ports (NET_BIND_SERVICE), then drop to
 * 65534 (SETUID, SETGID). Nothing else (adr/0050); no NET_ADMIN, which is
 * the wall's.
 */
const EDGE_HELPER_PRIVILEGES: readonly string[] = [
  ...DROP_PRIVILEGES,
  ...capAddFlags(['NET_BIND_SERVICE', 'SETGID', 'SETUID']),
];

/** The line the edge prints once it listens, has dropped to 65534 and has read its routes. */
const EDGE_READY = 'byre-edge 1 ready';

/** Bytes of the edge's stdout kept before its ready line (it prints nothing else before it). */
const MAX_PRE_READY = 4096;

/**
 * Event lines kept, the newest: the box causes them (a refused request is
 * one), so a session of them must not grow byre's memory without bound.
 */
const MAX_EDGE_EVENTS = 1000;

export interface EdgePlan {
  /** The box's container name; names its edge helper. */
  box: string;
  /** The box's project id: the helper's `byre.helper` label. */
  project: string;
  /** byre's edge image (its id): its node and the edge's script, nothing of the config's (adr/0077). */
  image: string;
  /** The TLS ports the edge listens on (every injected host's; :80 is the script's default). */
  ports: readonly number[];
  /**
   * The edge's whole stdin (src/credentials/edge-input.ts's encoding): the
   * values. Written to the helper's stdin and nowhere else; a promise when
   * the edge starts before they are known (adr/0080): it listens and waits.
   */
  input: string | Promise<string>;
  /**
   * The box's network as the host sees it (run-argv's publishFlags: host
   * entries, published ports) and, under keep-id, its user namespace flag:
   * the edge owns both, and the box joins them (adr/0079).
   */
  network: readonly string[];
  /** Tests only: the edge connects upstream here instead of resolving the name. */
  upstreamAddress?: string;
}

/** The edge helper for a box (by the box's container name): one per box. */
export function edgeHelperName(box: string): string {
  return helperName('edge', createHash('sha256').update(box).digest('hex').slice(0, 16));
}

/** What the helper's shell prints as it starts, before node: the container runs. */
const EDGE_UP = 'byre-edge 1 up';

/**
 * How the helper runs the edge: a shell says the container runs (the box
 * may start in its network then, adr/0079), then becomes node, restored
 * from the startup snapshot the edge image built from the script
 * (adr/0078), the script's arguments after `--`. No warnings: the script
 * loads http, https and tls once restored, and node warns that a snapshot
 * could not hold them; the edge's stderr is kept for its failure's last
 * words.
 */
const EDGE_ENTRYPOINT: readonly string[] = [
  '-c',
  `printf '%s\\n' '${EDGE_UP}'; exec node --no-warnings --snapshot-blob ${EDGE_SNAPSHOT_PATH} -- "$@"`,
  'byre-edge',
];

/**
 * What the helper is, as a create argv (pure): stdin kept open, no value
 * in it. Its own network (the engine's default), which the box joins. It
 * is run, not created (edgeRunArgv); two plans with the same argv make the
 * same edge (an early one is adopted by it, adr/0080).
 */
export function edgeCreateArgv(plan: Omit<EdgePlan, 'input'>): string[] {
  const name = edgeHelperName(plan.box);
  const ports = [...new Set(plan.ports)].sort((a, b) => a - b);
  return [
    'create',
    '-i',
    ...helperIdentityFlags(name, plan.project),
    ...plan.network,
    '--label',
    `${LABEL.edge}=${plan.box}`,
    ...EDGE_HELPER_PRIVILEGES,
    ...NETNS_HELPER_STOP,
    '--entrypoint',
    '/bin/sh',
    plan.image,
    ...EDGE_ENTRYPOINT,
    ...ports.flatMap((p) => ['--port', String(p)]),
    '--gate-port',
    String(EDGE_GATE_PORT),
    ...(plan.upstreamAddress === undefined ? [] : ['--upstream-address', plan.upstreamAddress]),
  ];
}

/**
 * The helper's run argv (pure): its create argv made and started attached
 * in one engine call (adr/0081), which writes the container's id to
 * `cidfile` once it exists, before it starts.
 */
export function edgeRunArgv(plan: Omit<EdgePlan, 'input'>, cidfile: string): string[] {
  return ['run', '--cidfile', cidfile, ...edgeCreateArgv(plan).slice(1)];
}

export interface EdgeHandle extends AttachedHelper {
  name: string;
  /** The helper's container id (the box's network mode names it). */
  id: string;
  /** End the edge's stdin: the edge exits (its session is over). */
  close(): void;
  /** The edge's lines after its ready line (its refusal events), the last MAX_EDGE_EVENTS, as they came. */
  events: string[];
}

/** Splits the edge's stdout into lines: the ready line resolves `ready`, the rest are events. */
function lineSink(onLine: (line: string) => void): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      if (pending.length > MAX_PRE_READY) pending = '';
      done();
    },
  });
}

function notReady(why: string, stderr: string): ByreError {
  // The edge's stderr quotes no input (its script's rule), so it may be shown.
  const said = stderr.trim().split('\n').slice(-5);
  return new ByreError(`the edge for injected credentials ${why}`, {
    rule: 'edge.not-ready',
    ...(said.join('') === '' ? {} : { details: said.map(escapeTerminal) }),
    remedy:
      'the box was removed; run byre develop again (byre rebuild builds the edge image afresh)',
  });
}

/** One `run` of the helper: its id once made (null: it was not), its stdin, its end. */
interface EdgeRun {
  id: Promise<string | null>;
  stdin: PassThrough;
  ended: AttachedHelper['ended'];
}

function runOnce(
  engine: SessionRunner,
  plan: EdgePlan,
  cidfile: string,
  out: { onLine: (line: string) => void; onStderr: (chunk: string) => void },
): EdgeRun {
  // Held open for the session: its end (close, or this process gone) ends the edge.
  const stdin = new PassThrough();
  const ended = engine
    .runStream(edgeRunArgv(plan, cidfile), {
      stdin,
      stdout: lineSink(out.onLine),
      onStderr: out.onStderr,
    })
    .catch((error: unknown) => ({ error }));
  return { id: cidfileId(cidfile, ended), stdin, ended };
}

/**
 * The helper run, made once: under the setup lock (`replace`) a helper an
 * earlier session left under its name is removed when the engine refuses
 * the name, and the run made again; before it (adr/0080) that name may be
 * a live session's edge, and the refusal stands.
 */
async function madeRun(
  engine: SessionRunner,
  plan: EdgePlan,
  replace: boolean,
  out: { onLine: (line: string) => void; onStderr: (chunk: string) => void },
): Promise<{ run: EdgeRun; id: string | null }> {
  const temp = lazyPrivateTempDir('byre-edge-');
  try {
    const dir = await temp.dir();
    const run = runOnce(engine, plan, path.join(dir, 'cid'), out);
    const id = await run.id;
    if (id !== null || !replace) return { run, id };
    await run.ended;
    await engine.remove(edgeHelperName(plan.box)).catch(() => false);
    const again = runOnce(engine, plan, path.join(dir, 'cid-again'), out);
    return { run: again, id: await again.id };
  } finally {
    await temp.remove();
  }
}

/** The box's edge as it starts: its id, its container running, its ready handle. */
export interface EdgeStarting {
  /** The helper's container id once the engine made it (the box's create waits for it). */
  created: Promise<string>;
  /** Its container runs (its shell's first line, before node; the box may start then), or it is ready. */
  up: Promise<void>;
  /** Ready: it listens, has dropped its privileges and read its values. */
  started: Promise<EdgeHandle>;
}

/**
 * Make and start the box's edge helper, attached, in one engine call
 * (adr/0081), then write its values once it exists (at once, or when they
 * are known, adr/0080) and wait for its ready line (at most `readyMs` from
 * then). Its stdin is held open. Fails closed (`edge.not-ready`) when the
 * engine refuses it, or it exits or stays silent first: the helper is
 * removed, by its id (its name may since be another launch's edge).
 */
export function startEdge(
  engine: SessionRunner,
  plan: EdgePlan,
  options: { replace?: boolean; readyMs?: number } = {},
): EdgeStarting {
  let made = (_id: string): void => undefined;
  let running = (): void => undefined;
  const id = new Promise<string>((resolve) => {
    made = resolve;
  });
  const ran = new Promise<void>((resolve) => {
    running = resolve;
  });
  const started = runEdge(engine, plan, {
    replace: options.replace ?? true,
    readyMs: options.readyMs ?? 30_000,
    made: (i) => made(i),
    onUp: () => running(),
  });
  const created = Promise.race([id, started.then((h) => h.id)]);
  const up = Promise.race([ran, started.then(() => undefined)]);
  // Awaited before the box's create and start (or by its drop); not unhandled meanwhile.
  for (const p of [created, up, started]) p.catch(() => undefined);
  return { created, up, started };
}

async function runEdge(
  engine: SessionRunner,
  plan: EdgePlan,
  o: { replace: boolean; readyMs: number; made: (id: string) => void; onUp: () => void },
): Promise<EdgeHandle> {
  const name = edgeHelperName(plan.box);
  const events: string[] = [];
  let stderr = '';
  let sawReady = false;
  let onReady = (): void => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const onLine = (line: string): void => {
    if (sawReady) {
      if (events.length >= MAX_EDGE_EVENTS) events.shift();
      events.push(line);
    } else if (line === EDGE_READY) {
      sawReady = true;
      onReady();
    } else if (line === EDGE_UP) o.onUp();
  };
  const onStderr = (chunk: string): void => {
    stderr = (stderr + chunk).slice(-4096);
  };
  const { run, id } = await madeRun(engine, plan, o.replace, { onLine, onStderr });
  if (id === null) {
    await run.ended;
    // The engine's refusal: nothing was written to the helper, yet no value is shown.
    throw notReady('could not be created', redactSecrets(stderr));
  }
  o.made(id);
  const { stdin, ended } = run;
  // The values once known (at once, or after the setup lock's read, adr/0080).
  const given = Promise.resolve(plan.input).then(
    (text) => {
      stdin.write(text, 'utf8');
      return true;
    },
    () => false,
  );
  const close = (): void => {
    stdin.end();
  };
  // The ready line's wait starts once the values are written: they may come
  // after a setup lock another launch held for a long build.
  const fed = await Promise.race([given, ended.then(() => true)]);
  const outcome = fed ? await readyOrNot(ready, ended, o.readyMs) : 'dropped';
  if (outcome === 'ready') return { name, id, events, ended, close };
  close();
  await engine.remove(id).catch(() => false);
  await ended;
  throw notReady(
    outcome === 'ended'
      ? 'exited before it was ready'
      : outcome === 'dropped'
        ? 'was dropped before it was given its values'
        : 'never became ready',
    stderr,
  );
}
