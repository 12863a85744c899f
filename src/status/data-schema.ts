// The shape of `byre status --data`, written once in zod: the TypeScript type
// the model builds and the JSON Schema pinned in test/golden/ are both derived
// from it, so they cannot drift apart. Versioned, not yet a scripting contract.
// A field added leaves the version alone; a field removed, renamed or changed
// in meaning bumps it (adr/0037). 3: `engine.rootless_error` (always null) is gone.
// 4: an egress entry no longer means "reachable now" (`resolution`, adr/0064).

import '../zod.js';
import { z } from 'zod';

import { STATUS_DATA_VERSION } from './data-version.js';

// Built on first use, not at load: status's text page and every other
// command that loads the model never need it (a few ms of zod in the binary).
function buildStatusDataSchema() {
  const text = z.string();
  const nullableText = z.string().nullable();
  /** Who set a value: a config layer (`project`, `template byre/go`), `skill <id>`, `mcp:<name>`, `launch record`. */
  const source = z
    .string()
    .describe('who set it: a config layer, skill <id>, mcp:<name>, worktree');

  const closureState = z.enum(['enforced', 'blocked', 'unenforced', 'unknown']);

  const launchState = z.enum([
    'none',
    'outside_byre',
    'pre_record',
    'unreadable',
    'missing',
    'tampered',
    'newer_schema',
    'verified',
  ]);

  return z
    .object({
      version: z.literal(STATUS_DATA_VERSION),
      subject: z.enum(['running_box', 'next_launch']),
      project_id: text,
      workdir: text,
      project_config: text.describe(
        'the project layer: where an `egress` entry opens an offered host',
      ),
      refused: z
        .array(z.object({ rule: text, message: text }))
        .describe('why byre refuses to launch this box; empty when it would launch'),
      worktree_of: nullableText,
      agent: z.object({ id: text, source }).nullable(),
      template: z.object({ id: text, source, bundled: z.boolean() }).nullable(),
      extends: z.array(text),
      config_files: z
        .array(
          z.object({
            kind: z.enum(['default', 'template', 'layer', 'project']),
            name: text,
            path: nullableText.describe(
              'null: a template byre or a package ships (no file of yours)',
            ),
            present: z.boolean(),
          }),
        )
        .describe('the files of this directory’s cascade, lowest first'),
      preset_note: nullableText,
      self_edit: z.boolean(),
      worktree_base: z
        .object({ value: text, source })
        .nullable()
        .describe('where `byre worktree` puts new worktrees; null when no layer sets it'),
      port_block: z
        .number()
        .int()
        .nullable()
        .describe(
          'a linked worktree’s port block (its host ports shifted by 100 × block); null: the configured ports',
        ),
      engine: z.object({
        choice: text,
        name: nullableText,
        error: nullableText,
        rootless: z.boolean().nullable(),
        keep_id: z.boolean().nullable(),
      }),
      network: z.object({
        posture: text.describe('open, deny-by-default, open-denylist, or unknown'),
        posture_skill: nullableText,
        warranted: z
          .boolean()
          .describe('a firewall posture is declared and nothing degrades it; never true when open'),
        degraded_by: z
          .array(text)
          .describe('what present could change the posture (raw run_args even on an open network)'),
        egress: z
          .array(
            z.object({
              host: text,
              port: z.number().int(),
              source: z.array(source),
              enforced: z.boolean(),
              closed_by: nullableText,
              resolution: z
                .enum(['resolved', 'not_resolved', 'unknown', 'address'])
                .nullable()
                .describe(
                  'the running walled box’s resolver: resolved (it answered this name or one under it), not_resolved (allowed, not resolved yet: unreachable until it is), unknown (its events could not be read or were too many to tell), address (nothing to resolve); null: no running walled box',
                ),
            }),
          )
          .describe(
            'the allowlist under deny-by-default; otherwise only config entries (unenforced)',
          ),
        offered: z
          .array(z.object({ host: text, port: z.number().int(), source: z.array(source) }))
          .describe(
            'egress_offered entries not open (deny-by-default only): opened by adding to egress',
          ),
        closed: z.array(
          z.object({
            entry: text,
            source,
            state: closureState.describe(
              'enforced: outside the allowlist; blocked: refused by the denylist; unenforced: network open',
            ),
          }),
        ),
        denials: z
          .object({
            of: z.enum(['running_box', 'last_session']),
            error: nullableText.describe('why the running box’s wall events could not be read'),
            ended: nullableText.describe('when the last session ended (ISO 8601, UTC)'),
            launch_record: nullableText.describe('the last session’s launch record hash'),
            partial: z
              .boolean()
              .describe('older events were beyond what byre reads: counts are at least these'),
            names: z.array(
              z.object({
                name: text.describe('as the box asked it, bytes outside [a-z0-9._-] as \\DDD'),
                qtypes: z.array(text),
                count: z.number().int(),
                first: text,
                last: text,
              }),
            ),
            names_more: z.number().int().describe('distinct refused names beyond the 200 listed'),
            connects: z.array(
              z.object({
                proto: text,
                address: text,
                port: z.number().int(),
                count: z.number().int(),
                first: text,
                last: text,
              }),
            ),
            connects_more: z.number().int(),
          })
          .nullable()
          .describe(
            'what the wall refused: names its resolver refused and connects it rejected, of the running walled box or else the last walled session; null: neither',
          ),
      }),
      privileges: z
        .object({
          no_new_privileges: z
            .literal(true)
            .describe(
              'exec never raises privilege: setuid, setgid and file capabilities gain nothing',
            ),
          capabilities: z
            .array(z.object({ name: text, skill: text }))
            .nullable()
            .describe(
              'the only capabilities the box holds, each a skill’s `caps`; every other one is dropped. null: skills unresolved',
            ),
          degraded_by: z.array(text).describe('what present could change the claim (raw run_args)'),
        })
        .describe('what the box may hold and gain (adr/0050)'),
      ports: z.array(
        z.object({
          interface: text,
          host: z.number().int(),
          container: z.number().int(),
          source,
        }),
      ),
      binds: z.array(
        z.object({
          host: text,
          target: text,
          mode: z.enum(['ro', 'rw']),
          disabled: z.boolean(),
          source,
        }),
      ),
      volumes: z.array(
        z.object({
          name: text,
          engine_name: text,
          target: text,
          role: z.enum(['state', 'cache']),
          scope: z.enum(['project', 'machine']),
          sharing: z.enum(['shared', 'exclusive']),
          source,
        }),
      ),
      skills: z.array(
        z.object({
          id: text,
          provenance: z.enum(['bundled', 'installed', 'local']),
          version: nullableText,
        }),
      ),
      skill_error: nullableText,
      skill_grants: z.array(
        z.object({
          skill: text,
          kind: z.enum(['mount', 'cap', 'run_arg', 'netns_init', 'sock_group']),
          value: text,
        }),
      ),
      reserved_env: z.array(
        z.object({
          skill: text,
          key: text,
          known: z.boolean(),
          claims: z.array(text),
          note: text,
        }),
      ),
      mcp_servers: z.array(
        z.object({
          name: text,
          transport: z.enum(['command', 'url']),
          target: text,
          env: z
            .array(
              z.object({
                key: text,
                provided_by: nullableText.describe(
                  "env_from_host <source>, [env], skill <id>, byre (every box), or the box's launch env (a running box); null when the box does not get it",
                ),
                missing: nullableText.describe('why it is not provided; null when it is'),
              }),
            )
            .describe('each env var the server consumes (env, and ${VAR} in header values)'),
          operational: z.boolean(),
          not_operational: nullableText.describe(
            'why the server cannot work in this box: each host it needs (its endpoint, its declared egress) that the firewall shuts',
          ),
          egress: z
            .array(text)
            .describe(
              'the extra hosts it declares (`egress`, as written), whatever the posture: a firewall opens them for it',
            ),
          outbound_unknown: nullableText.describe(
            'a local server that declares no egress under an allowlist: what it needs is unknown, and only allowlisted hosts leave the box; null otherwise',
          ),
          source,
        }),
      ),
      mcp_closed: z.array(z.object({ name: text, source })),
      mcp_delivery: nullableText,
      claude_skills: z.array(z.object({ name: text, path: text, source })),
      claude_skills_closed: z.array(z.object({ name: text, source })),
      claude_skills_delivery: nullableText,
      instructions: z.array(
        z.object({ name: text, source, text: nullableText, file: nullableText }),
      ),
      instructions_delivery: nullableText,
      host_env: z.array(
        z.object({
          key: text,
          source: text,
          state: z
            .enum(['delivered', 'overridden', 'empty'])
            .describe('a disabled entry ("" in env_from_host) passes nothing and is not listed'),
          layer: source,
        }),
      ),
      credentials: z.array(
        z.object({
          key: text,
          kind: z.enum(['encrypted', 'encrypted-file']).nullable(),
          layer: source,
          state: z
            .enum(['sealed', 'overridden', 'delivered', 'not_delivered'])
            .describe(
              'sealed: delivered at the next develop; delivered / not_delivered: the running box',
            ),
        }),
      ),
      credential_delivery: nullableText,
      injections: z
        .array(
          z.object({
            key: text,
            layer: source,
            hosts: z.array(text).describe('name, or name:port when not 443'),
            text: text.describe('the one-line row status shows'),
            detail: text.describe('how each host gets it (the full tier)'),
          }),
        )
        .describe(
          'credentials injected at the edge (adr/0070), from the config: the box holds a sentinel',
        ),
      edge: z
        .object({
          state: z
            .enum(['up', 'down', 'unknown', 'no-box'])
            .describe("the running box's edge: its helper runs and said it is ready, or not"),
          text: text.describe('the row status shows'),
          refused: nullableText.describe('what the running edge refused, summed up; null: nothing'),
        })
        .nullable()
        .describe('null when nothing is injected'),
      env_keys: z.array(text),
      run_args: z.array(text),
      raw_run_args: z
        .array(
          z.object({
            argv: z.array(text).describe('the tokens of this entry as written'),
            source,
            effect: z
              .enum(['hole', 'mount', 'port', 'env', 'grant', 'inert', 'unknown'])
              .describe(
                'hole: a containment hole; mount/port/env/grant: widens the box; inert: widens nothing; unknown: not introspected',
              ),
            what: text,
            mount: z.object({ host: text, target: text, mode: z.enum(['ro', 'rw']) }).nullable(),
            port: nullableText,
          }),
        )
        .describe(
          "every raw run_args entry, skills' then the project's, read as the engine reads them (adr/0051)",
        ),
      build_raw: z.array(text),
      containments: z.array(z.object({ skill: text, text })),
      managed_path_shadows: z.array(
        z.object({ target: text, kind: z.enum(['mount', 'volume']), shadows: text, source }),
      ),
      container: z.object({
        state: z.enum(['not_running', 'running', 'unknown']),
        id: nullableText,
        engine: nullableText,
        orphaned: z.boolean().describe('started by a byre that is gone'),
        outside_byre: z
          .boolean()
          .describe(
            'carries no byre.client pid: started outside byre (e.g. the dockerrun command)',
          ),
        client_label_unreadable: z
          .boolean()
          .describe(
            'carries a byre.client label that is not a pid: who started it, and whether that byre still runs, is unknown',
          ),
        client_pid: z.number().int().nullable(),
        error: nullableText,
        siblings: z.array(
          z.object({
            worktree: text,
            id: text,
            engine: text,
            path: nullableText.describe('the worktree directory, from git’s files'),
            branch: nullableText,
          }),
        ),
        siblings_error: nullableText,
      }),
      launch: z.object({
        state: launchState,
        note: nullableText,
        record: nullableText.describe('the record hash (its file name and byre.launch label)'),
        schema: z.number().int().nullable(),
        byre: nullableText,
        created: nullableText,
        engine: nullableText,
        image: z
          .object({
            tag: text,
            digest: text,
            digest_error: nullableText,
            base: text,
            wiring: nullableText.describe(
              "the store directory the box's wiring is bound from, read-only (rootless podman); null when the image carries it",
            ),
          })
          .nullable(),
        box_env_keys: z.array(text).nullable(),
      }),
      changes_on_next_launch: z.array(text),
    })
    .strict();
}

type StatusDataSchema = ReturnType<typeof buildStatusDataSchema>;
let built: StatusDataSchema | null = null;

/** The `--data` document's schema (built once, on first use). */
export function statusDataSchema(): StatusDataSchema {
  built ??= buildStatusDataSchema();
  return built;
}

export type StatusData = z.infer<StatusDataSchema>;
export type LaunchDataState = StatusData['launch']['state'];
