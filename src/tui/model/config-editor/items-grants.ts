// GRANTS rows: mounts, ports, egress (with the offered doors as switches),
// env and host env. Each entry says where it came from; x on an inherited
// entry writes the removal marker (or closure) at this layer, on this
// layer's own entry it deletes it. Pure.
// Over 500 lines: one short row builder per GRANTS key, in the section's order.

import { isCredentialSource } from '../../../config/credential-rows.js';
import { closureCovers, parseEgressEntry } from '../../../config/egress-entry.js';
import { normalizeTarget } from '../../../config/grammar.js';
import { isInjectedSource } from '../../../config/inject.js';
import type { EgressEntry } from '../../../config/types.js';
import { deriveBoxEgress } from '../../../gen/allowlist.js';
import type { TomlTable } from '../../../tomldoc/index.js';
import {
  dropRemovalMarker,
  listAdd,
  listRemove,
  addRemovalMarker,
  removeEntry,
  setAt,
  upsertEntry,
} from './edits.js';
import { mountForm, pairForm, portForm, textForm } from './forms.js';
import {
  addRow,
  heading,
  markerRow,
  noUnset,
  originTag,
  row,
  skillTag,
  sourcedRow,
  switchActs,
  type RowBuilders,
  type RowContext,
} from './kit.js';
import type { Change, Item } from './types.js';

function table(value: object | undefined): TomlTable | null {
  return value === undefined ? null : (value as TomlTable);
}

function mounts(ctx: RowContext): Item[] {
  const own = ctx.raw.mounts ?? [];
  const { config, skills } = ctx.derived;
  const items: Item[] = [heading(ctx, config.mounts.length === 0 ? 'none' : '')];
  for (const entry of config.mounts) {
    const m = entry.value;
    const { origin, here } = sourcedRow(ctx, entry);
    const base = here
      ? table(own.find((r) => normalizeTarget(r.target ?? '') === normalizeTarget(m.target)))
      : null;
    const prefill: TomlTable = {
      host: m.host,
      target: m.target,
      mode: m.mode,
      ...(m.disabled ? { disabled: true } : {}),
    };
    const kept: TomlTable = { ...(base ?? { host: m.host, target: m.target, mode: m.mode }) };
    delete kept['disabled'];
    const toggled: TomlTable = m.disabled ? kept : { ...kept, disabled: true };
    items.push(
      row(ctx, `m:${m.target}`, {
        label: `${m.host} → ${m.target}`,
        value: m.disabled ? `${m.mode}, disabled` : m.mode,
        origin,
        here,
        tone: m.disabled ? 'dim' : 'normal',
        act: {
          open: {
            kind: 'form',
            form: mountForm({ prefill, base }, here ? 'Mount' : `Mount (overrides ${origin})`),
          },
          cycle: () => ({
            edits: [upsertEntry('mounts', toggled)],
            says: `mount ${m.target} ${m.disabled ? 'enabled' : 'disabled'}`,
          }),
          remove:
            here && base !== null
              ? {
                  edits: [removeEntry('mounts', String(base['target']))],
                  says: `mount ${m.target} removed`,
                }
              : {
                  edits: [addRemovalMarker('mounts', m.target)],
                  says: `removal marker written here for ${m.target} (from ${origin})`,
                },
        },
      }),
    );
  }
  for (const s of skills) {
    for (const m of s.runtime.mounts) {
      items.push(
        row(ctx, `skill:${s.id}:${m.target}`, {
          label: `${m.host} → ${m.target}`,
          value: m.mode,
          origin: skillTag(s.id),
          tone: 'dim',
          act: { note: `declared by skill ${s.id}; disable the skill to drop it` },
        }),
      );
    }
  }
  for (const r of own) {
    const target = r.target ?? '';
    if (!target.startsWith('!')) continue;
    items.push(
      markerRow(
        ctx,
        target.slice(1),
        target.slice(1),
        dropRemovalMarker('mounts', target.slice(1)),
      ),
    );
  }
  items.push(
    addRow(ctx, 'add a mount', {
      kind: 'form',
      form: mountForm({ prefill: null, base: null }, 'New mount'),
    }),
  );
  return items;
}

function ports(ctx: RowContext): Item[] {
  const own = ctx.raw.ports ?? [];
  const items: Item[] = [heading(ctx, ctx.derived.config.ports.length === 0 ? 'none' : '')];
  for (const entry of ctx.derived.config.ports) {
    const p = entry.value;
    const { origin, here } = sourcedRow(ctx, entry);
    const base = here
      ? table(own.find((r) => r.container === p.container && r.remove !== true))
      : null;
    const hostPort = p.host === 0 ? p.container : p.host;
    items.push(
      row(ctx, `p:${p.container}`, {
        label: `${p.interface}:${hostPort} → ${p.container}`,
        origin,
        here,
        act: {
          open: {
            kind: 'form',
            form: portForm(
              {
                prefill: base ?? { container: p.container, host: p.host, interface: p.interface },
                base,
              },
              here ? 'Port' : `Port (overrides ${origin})`,
            ),
          },
          remove: here
            ? { edits: [removeEntry('ports', p.container)], says: `port ${p.container} removed` }
            : {
                edits: [addRemovalMarker('ports', p.container)],
                says: `removal marker written here for port ${p.container} (from ${origin})`,
              },
        },
      }),
    );
  }
  for (const r of own) {
    if (r.remove !== true || r.container === undefined) continue;
    items.push(
      markerRow(
        ctx,
        `port:${r.container}`,
        `port ${r.container}`,
        dropRemovalMarker('ports', r.container),
      ),
    );
  }
  items.push(
    addRow(ctx, 'add a port', {
      kind: 'form',
      form: portForm({ prefill: null, base: null }, 'New port'),
    }),
  );
  return items;
}

// ------------------------------------------------------------------ egress

const egressId = (e: EgressEntry): string => (e.port === null ? e.host : `${e.host}:${e.port}`);

/** This file's egress strings: plain entries and closures, parsed, as written. */
function ownEgress(ctx: RowContext): { text: string; closure: boolean; entry: EgressEntry }[] {
  return (ctx.raw.egress ?? []).flatMap((text) => {
    const parsed = parseEgressEntry(text);
    return parsed.ok ? [{ text, closure: parsed.closure, entry: parsed.entry }] : [];
  });
}

/**
 * The switch for one host:port at this layer. Closing removes this layer's
 * own entry when it alone opens it, else writes a closure; opening takes
 * this layer's closures back, else writes the entry (a later plain entry
 * reopens what a lower layer closed).
 */
function egressSwitch(
  ctx: RowContext,
  entry: EgressEntry,
  open: boolean,
  onlyHere: boolean,
): Change {
  const own = ownEgress(ctx);
  const id = egressId(entry);
  if (open) {
    const mine = own.filter(
      (o) => !o.closure && o.entry.host === entry.host && o.entry.port === entry.port,
    );
    if (onlyHere && mine.length > 0) {
      return { edits: mine.map((o) => listRemove('egress', o.text)), says: `egress ${id} removed` };
    }
    return { edits: [listAdd('egress', `!${id}`)], says: `egress ${id} closed here (!${id})` };
  }
  const closures = own.filter((o) => o.closure && closureCovers(o.entry, entry));
  if (closures.length > 0) {
    return {
      edits: closures.map((o) => listRemove('egress', o.text)),
      says: `egress ${id} reopened (closure taken back)`,
    };
  }
  return { edits: [listAdd('egress', id)], says: `egress ${id} opened here` };
}

function egress(ctx: RowContext): Item[] {
  const { config, skills, facts } = ctx.derived;
  const derivedEgress = deriveBoxEgress(config, skills);
  const posture = facts.network.posture;
  const note =
    posture === 'deny-by-default'
      ? 'enforced'
      : posture === 'open'
        ? 'network open: entries are not enforced'
        : posture;
  const items: Item[] = [heading(ctx, derivedEgress.entries.length === 0 ? `none; ${note}` : note)];
  const own = ownEgress(ctx);
  for (const e of derivedEgress.entries) {
    const entry = { host: e.host, port: e.port };
    const declared = config.egress.find((c) => c.value.host === e.host && c.value.port === e.port);
    const origins = e.sources.map((s) =>
      s === 'config'
        ? declared === undefined
          ? 'config'
          : originTag(declared.from)
        : s.startsWith('mcp:')
          ? s
          : skillTag(s),
    );
    const here = declared !== undefined && ctx.here(declared.from);
    const onlyHere = here && e.sources.length === 1;
    const open = e.closedBy === null;
    const flip = egressSwitch(ctx, entry, open, onlyHere);
    const mine = own.filter(
      (o) => !o.closure && o.entry.host === e.host && o.entry.port === e.port,
    );
    items.push(
      row(ctx, `e:${e.host}:${e.port}`, {
        label: `${e.host}:${e.port}`,
        value: open ? 'open' : `closed (${e.closedBy ?? ''})`,
        origin: origins.join(', '),
        here,
        tone: open ? 'normal' : 'dim',
        act: {
          ...switchActs(
            `egress ${e.host}:${e.port}`,
            open ? 'close it at this layer' : 'open it at this layer',
            flip,
          ),
          remove:
            mine.length > 0
              ? {
                  edits: mine.map((o) => listRemove('egress', o.text)),
                  says: `egress ${e.host}:${e.port} removed`,
                }
              : open
                ? flip
                : 'closed already; ←→ reopens it at this layer',
        },
      }),
    );
  }
  for (const c of config.egressClosed) {
    if (derivedEgress.entries.some((e) => closureCovers(c.value, e))) continue;
    const here = ctx.here(c.from);
    const text = `!${egressId(c.value)}`;
    items.push(
      row(ctx, `closed:${text}`, {
        label: text,
        value: 'closure',
        origin: originTag(c.from),
        here,
        tone: 'marker',
        act: here
          ? {
              remove: {
                edits: own
                  .filter((o) => o.closure && egressId(o.entry) === egressId(c.value))
                  .map((o) => listRemove('egress', o.text)),
                says: `closure ${text} removed`,
              },
            }
          : { note: `closed by ${originTag(c.from)}; add the entry here to reopen it` },
      }),
    );
  }
  items.push(...deniedOffers(ctx, new Set(derivedEgress.allowed)));
  items.push(
    addRow(ctx, 'add a host', {
      kind: 'form',
      form: textForm(
        'New egress entry',
        'host[:port]',
        '',
        (value) => {
          const text = value.trim();
          const parsed = parseEgressEntry(text);
          const closures = parsed.ok
            ? own.filter((o) => o.closure && closureCovers(o.entry, parsed.entry))
            : [];
          return {
            edits: [...closures.map((o) => listRemove('egress', o.text)), listAdd('egress', text)],
            says: `egress ${text} added`,
          };
        },
        'registry.npmjs.org',
      ),
    }),
  );
  return items;
}

/**
 * The names the wall refused in the last walled session, each a one-key
 * addition to `egress` at this layer (effective at the next launch). Only a
 * name that is a valid egress entry and not allowed already is offered; the
 * name came from the box, so it is shown only in the grammar's escaped form.
 */
function deniedOffers(ctx: RowContext, allowed: ReadonlySet<string>): Item[] {
  const items: Item[] = [];
  for (const d of ctx.world.denied ?? []) {
    if (d.name.includes('\\')) continue;
    const parsed = parseEgressEntry(d.name);
    if (!parsed.ok || parsed.closure || allowed.has(egressId(parsed.entry))) continue;
    const allow = egressSwitch(ctx, parsed.entry, false, false);
    items.push(
      row(ctx, `denied:${d.name}`, {
        label: `+ ${d.name}`,
        value: `refused${d.count === 1 ? '' : ` ×${d.count}`} last session; ←→ allows it`,
        origin: 'wall',
        tone: 'dim',
        act: {
          ...switchActs(
            `allow ${d.name}`,
            'allow it (writes it into egress here; the next launch reaches it)',
            { ...allow, says: `${allow.says}; the next launch reaches it` },
          ),
          remove: 'a name the wall refused; ←→ allows it',
        },
      }),
    );
  }
  return items;
}

function offered(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  const derivedEgress = deriveBoxEgress(config, skills);
  const allowed = new Set(derivedEgress.allowed);
  const doors: { entry: EgressEntry; origin: string; here: boolean; text: string | null }[] = [];
  const seen = new Set<string>();
  const ownOffered = ctx.raw.egress_offered ?? [];
  for (const o of config.egressOffered) {
    const id = egressId(o.value);
    if (seen.has(id)) continue;
    seen.add(id);
    const here = ctx.here(o.from);
    const text = here
      ? (ownOffered.find((t) => {
          const p = parseEgressEntry(t);
          return p.ok && !p.closure && egressId(p.entry) === id;
        }) ?? null)
      : null;
    doors.push({ entry: o.value, origin: originTag(o.from), here, text });
  }
  for (const s of skills) {
    for (const raw of s.runtime.egressOffered) {
      const p = parseEgressEntry(raw);
      if (!p.ok || p.closure || seen.has(egressId(p.entry))) continue;
      seen.add(egressId(p.entry));
      doors.push({ entry: p.entry, origin: skillTag(s.id), here: false, text: null });
    }
  }
  const items: Item[] = [heading(ctx, doors.length === 0 ? 'none' : '←→ opens or closes a door')];
  for (const d of doors) {
    const id = egressId(d.entry);
    const open = allowed.has(id);
    const opened = derivedEgress.entries.find((e) => `${e.host}:${e.port}` === id);
    const declared = config.egress.find((c) => egressId(c.value) === id);
    const onlyHere =
      opened !== undefined &&
      opened.sources.length === 1 &&
      declared !== undefined &&
      ctx.here(declared.from);
    const flip = egressSwitch(ctx, d.entry, open, onlyHere);
    items.push(
      row(ctx, `door:${id}`, {
        label: `${open ? '[x]' : '[ ]'} ${id}`,
        value: open ? 'open' : 'offered, closed',
        origin: d.origin,
        here: d.here,
        tone: open ? 'normal' : 'dim',
        act: {
          ...switchActs(
            `door ${id}`,
            open ? 'close it' : 'open it (writes it into egress here)',
            flip,
          ),
          remove:
            d.text !== null
              ? {
                  edits: [listRemove('egress_offered', d.text)],
                  says: `offered door ${id} removed`,
                }
              : {
                  edits: [listAdd('egress_offered', `!${id}`)],
                  says: `offered door ${id} withdrawn here (!${id})`,
                },
        },
      }),
    );
  }
  items.push(
    addRow(ctx, 'offer a door', {
      kind: 'form',
      form: textForm(
        'Offer a door (closed until switched on)',
        'host[:port]',
        '',
        (value) => ({
          edits: [listAdd('egress_offered', value.trim())],
          says: `door ${value.trim()} offered`,
        }),
        'github.com',
      ),
    }),
  );
  return items;
}

// ------------------------------------------------------------------ env

function env(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  const keys = Object.keys(config.env).sort();
  const items: Item[] = [heading(ctx, keys.length === 0 ? 'none' : 'baked into the image')];
  for (const key of keys) {
    const entry = config.env[key];
    if (entry === undefined) continue;
    const { origin, here } = sourcedRow(ctx, entry);
    items.push(
      row(ctx, `k:${key}`, {
        label: key,
        value: `= ${entry.value}`,
        origin,
        here,
        act: {
          open: {
            kind: 'form',
            form: pairForm(
              'env',
              { key: 'name', value: 'value' },
              { key, value: entry.value },
              'Env',
            ),
          },
          remove: here
            ? { edits: [setAt(['env', key], undefined)], says: `env ${key} removed` }
            : noUnset(`env ${key}`, entry.from),
        },
      }),
    );
  }
  for (const s of skills) {
    for (const [key, value] of Object.entries(s.runtime.env).sort()) {
      items.push(
        row(ctx, `skill:${s.id}:${key}`, {
          label: key,
          value: `= ${value}`,
          origin: skillTag(s.id),
          tone: 'dim',
          act: { note: `set by skill ${s.id}` },
        }),
      );
    }
  }
  items.push(
    addRow(ctx, 'add a variable', {
      kind: 'form',
      form: pairForm('env', { key: 'name', value: 'value' }, null, 'New env variable'),
    }),
  );
  return items;
}

function hostEnv(ctx: RowContext): Item[] {
  const { config, facts } = ctx.derived;
  const keys = Object.keys(config.envFromHost).sort();
  const items: Item[] = [heading(ctx, keys.length === 0 ? 'none' : 'read from the host at launch')];
  const names = { key: 'name', value: 'source', placeholder: 'env:NAME · git:user.email · tz:' };
  for (const key of keys) {
    const entry = config.envFromHost[key];
    if (entry === undefined) continue;
    const { origin, here } = sourcedRow(ctx, entry);
    const state = facts.host_env.find((h) => h.key === key)?.state ?? '';
    const source = entry.value;
    if (isCredentialSource(source) || isInjectedSource(source)) {
      const owner = 'a credential: byre credential add|list|remove owns it';
      const what = isInjectedSource(source) ? 'credential injected at the edge' : 'credential';
      items.push(
        row(ctx, `k:${key}`, {
          label: key,
          value: `${what}  ${state}`,
          origin,
          here,
          tone: 'dim',
          act: { note: owner, remove: owner },
        }),
      );
      continue;
    }
    items.push(
      row(ctx, `k:${key}`, {
        label: key,
        value: `${source === '' ? '(disabled)' : `← ${source}`}  ${state}`,
        origin,
        here,
        tone: state === 'delivered' ? 'normal' : 'dim',
        act: {
          open: {
            kind: 'form',
            form: pairForm('env_from_host', names, { key, value: source }, 'Host env'),
          },
          remove: here
            ? {
                edits: [setAt(['env_from_host', key], undefined)],
                says: source === '' ? `host env ${key} re-enabled` : `host env ${key} removed`,
              }
            : {
                edits: [setAt(['env_from_host', key], '')],
                says: `host env ${key} disabled here (${key} = "")`,
              },
        },
      }),
    );
  }
  items.push(
    addRow(ctx, 'pass a host value', {
      kind: 'form',
      form: pairForm('env_from_host', names, null, 'New host env'),
    }),
  );
  return items;
}

export const buildGrantRows = {
  mounts,
  ports,
  egress,
  offered,
  env,
  'host-env': hostEnv,
} satisfies RowBuilders;
