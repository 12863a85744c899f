// The config vocabulary as data: one entry per key of a config-family file,
// with its merge rule, grammar, an example and the rule ids that police it.
// Types and the layers that may set a key are derived (from the shapes in
// schema.ts and the placement bans in rules/), never restated. docs/CONFIG.md
// is rendered from here, and the config editor reads the same entries. Pure.
// Over 500 lines: the key registry is data, one entry per config key.

import { LAYER_SHAPE, type RawLayer } from './schema.js';
import { kindsBanning } from './rules/index.js';
import { describeShape, type ValueShape } from './shape.js';
import type { LayerKind } from './types.js';

/** Every top-level key a config-family file may carry. */
export type ConfigKey = keyof RawLayer & string;

/** The files a user writes; `core` is built in. */
export type LayerFileKind = Exclude<LayerKind, 'core'>;
export const LAYER_FILE_KINDS: readonly LayerFileKind[] = [
  'default',
  'template',
  'layer',
  'project',
];

/** Where the editor shows a key, and the chapters of docs/CONFIG.md. */
type KeySection = 'box' | 'grants' | 'storage' | 'build' | 'wiring' | 'raw' | 'machine';

export const SECTION_TITLES: Readonly<Record<KeySection, string>> = {
  box: 'The box: engine, base, template, agent, layers',
  grants: 'Grants: what the box can reach',
  storage: 'Volumes',
  build: 'Build: what goes into the image',
  wiring: 'Wiring: MCP servers, Claude Skills, standing instructions',
  raw: 'Raw blocks: passed through, never parsed',
  machine: 'Machine-wide settings (default.config)',
};

export const SECTION_ORDER: readonly KeySection[] = [
  'box',
  'grants',
  'storage',
  'build',
  'wiring',
  'raw',
  'machine',
];

/** How a key's values from several layers combine (lowest layer first). */
type MergeRule =
  /** The last layer that sets it wins; an empty string inherits. */
  | { kind: 'scalar' }
  /** An explicit true or false in a later layer wins; unset inherits. */
  | { kind: 'tristate' }
  /** Not merged: names the parent layer; the chain is walked root-first. */
  | { kind: 'chain' }
  /** Union, deduplicated; `!name` drops an inherited entry. */
  | { kind: 'union' }
  /** Union by host:port; `!host[:port]` closures survive and subtract last. */
  | { kind: 'egress' }
  /** Merged key by key; a later layer's value for a key wins. */
  | { kind: 'map'; unset: string | null }
  /** An entry replaces the inherited entry with the same identity. */
  | { kind: 'identity'; identity: string; removal: string }
  /** As identity, by name, and a `!name` closure survives to reach skill-declared entries. */
  | { kind: 'closable' }
  /** Every layer's lines, lowest first; nothing removes a line. */
  | { kind: 'append' }
  /** Onboarding answers: the last layer that sets one wins; never part of a box. */
  | { kind: 'picker' }
  /** Not merged: each file keeps its own, for its own rows only. */
  | { kind: 'per-file' }
  /** Not merged: a key's entries come from the file whose env_from_host row for it wins. */
  | { kind: 'with-row' };

export interface FieldDoc {
  summary: string;
  required?: boolean;
  /** Fields of a table-valued field (a volume's `seed`). */
  fields?: Readonly<Record<string, FieldDoc>>;
}

interface KeyDoc {
  section: KeySection;
  summary: string;
  merge: MergeRule;
  /** What a value may be, beyond its type. */
  grammar: string;
  /** TOML a project config (or, where a project may not set it, default.config) accepts. */
  example: string;
  /** The rule ids that refuse (or warn about) a value of this key. */
  rules: readonly string[];
  /** Anything else a user must know: what a layer's value means, where it is read. */
  note?: string;
  /** The keys of each entry (lists of tables, tables of tables, tables). */
  fields?: Readonly<Record<string, FieldDoc>>;
}

const WIRING_NAME_GRAMMAR = 'lowercase letters, digits and "-", at most 64 characters';

const KEY_DOCS: Readonly<Record<ConfigKey, KeyDoc>> = {
  engine: {
    section: 'box',
    summary: 'Which container engine runs the box.',
    merge: { kind: 'scalar' },
    grammar:
      '`auto` (for a project that never launched: docker when it answers, else podman; after that, the engine its boxes are on, answering or not), `docker` or `podman` (naming another engine than the boxes are on moves the project, announced).',
    example: 'engine = "podman"',
    rules: ['config.engine-invalid'],
  },
  template: {
    section: 'box',
    summary: 'The template the box builds on: its base image and shared early build steps.',
    merge: { kind: 'scalar' },
    grammar:
      'A bare name (`node`: a local template under `templates/`, else the bundled one), `owner/name` for an installed one, `byre/<name>` to force the bundled one, or `none`.',
    example: 'template = "node"',
    rules: ['config.template-name-invalid', 'config.template-missing', 'config.key-banned-here'],
    note: 'Only the project config selects a template; `none` beats a lower layer and selects none. In default.config it is the onboarding favourite, never part of a box.',
  },
  agent: {
    section: 'box',
    summary: 'The agent skill the box launches; it is enabled implicitly.',
    merge: { kind: 'scalar' },
    grammar:
      'A skill name with an `[agent]` table (`claude`, `codex`, `gemini`, `grok`, `opencode`, or an installed or local one), or `none` for a login shell.',
    example: 'agent = "claude"',
    rules: ['config.agent-invalid', 'config.key-banned-here'],
    note: 'In default.config it is the onboarding favourite, never part of a box.',
  },
  base: {
    section: 'box',
    summary: 'The base image (FROM). Defaults to debian:bookworm.',
    merge: { kind: 'scalar' },
    grammar:
      'An image reference: `[A-Za-z0-9][A-Za-z0-9._:/@-]*`. Debian-derived bases are supported; alpine, scratch and distroless warn.',
    example: 'base = "node:22-bookworm"',
    rules: ['config.base-invalid', 'config.base-unsupported'],
  },
  extends: {
    section: 'box',
    summary: 'The named layer this file builds on (`~/.byre/layers/<name>/layer.config`).',
    merge: { kind: 'chain' },
    grammar:
      'A layer name: lowercase letters, digits and "-", starting with a letter or digit, at most 64 characters; not `none` nor a bundled package name.',
    example: 'extends = "work"',
    rules: [
      'config.layer-name-invalid',
      'config.extends-cycle',
      'config.extends-missing',
      'config.key-banned-here',
    ],
    note: 'Chains are linear: each file names at most one parent. A cycle or a missing layer is an error naming the loop or the file to create (`byre layer new <name>`).',
  },
  seed_prefs: {
    section: 'box',
    summary:
      "Copy the agent's curated, non-secret preferences (its skill's `[agent.prefs]`) from the host into a fresh state volume, once.",
    merge: { kind: 'tristate' },
    grammar: '`true` or `false`; off when no layer sets it.',
    example: 'seed_prefs = true',
    rules: [],
  },
  mounts: {
    section: 'grants',
    summary: 'Host directories bound into the box (a grant).',
    merge: {
      kind: 'identity',
      identity: 'target',
      removal: '`target = "!/path"` removes the inherited mount at that target',
    },
    grammar:
      '`host` is `~/…` or absolute and must exist unless the mount is disabled; `target` is absolute; neither holds a comma. Two mounts (or a mount and a volume) on one target collide. A host path reached through a link that lives in a box-writable tree (the project, a read-write mount …) is refused when a box is loaded (`containment.link-in-box-tree`, adr/0046): name where the link leads.',
    example: '[[mounts]]\nhost = "~/src/shared-lib"\ntarget = "/opt/shared-lib"\nmode = "ro"',
    rules: [
      'config.mount-host-invalid',
      'config.mount-host-missing',
      'config.mount-target-not-absolute',
      'config.mount-target-invalid',
      'config.mount-mode-invalid',
      'config.target-collision',
    ],
    fields: {
      host: { summary: 'The host path (`~/…` or absolute).', required: true },
      target: { summary: 'Where it appears in the box (absolute).', required: true },
      mode: {
        summary: '`ro` (default) or `rw`. Read-only protects it from edits, not from being read.',
      },
      disabled: {
        summary:
          'Keep the entry (and its mode) but bind nothing; its host path may be absent. Status still lists it.',
      },
    },
  },
  ports: {
    section: 'grants',
    summary: 'Box ports published on the host (a grant).',
    merge: {
      kind: 'identity',
      identity: 'container',
      removal: '`remove = true` (with only `container`) drops every binding of that port',
    },
    grammar:
      'Ports 1–65535 (`host = 0` mirrors the container port); `interface` is a canonical IPv4 address. Two bindings of one host port on one interface collide, and `0.0.0.0` collides with every interface.',
    example: '[[ports]]\ncontainer = 3000',
    rules: ['config.port-range', 'config.port-interface-invalid', 'config.port-collision'],
    fields: {
      container: { summary: 'The port inside the box.', required: true },
      host: { summary: 'The host port; 0 or absent mirrors the container port.' },
      interface: { summary: 'The host address to bind; default 127.0.0.1.' },
      remove: { summary: '`true` drops the inherited bindings of `container`.' },
    },
  },
  egress: {
    section: 'grants',
    summary:
      'Hosts the box may reach when a firewall posture is enabled, added to what the skills declare; `!host[:port]` closes one.',
    merge: { kind: 'egress' },
    grammar:
      '`host[:port]` (port defaults to 443), an IPv4 address, or `[IPv6]:port`; hostnames are lowercased. `!host` closes every port of a host, `!host:port` one port.',
    example: 'egress = ["registry.npmjs.org", "!statsig.anthropic.com"]',
    rules: ['config.egress-invalid'],
    note: "Without a posture skill (`firewall`, `firewall-open`) the network is open and these entries are unenforced; status says so. Under `firewall` a connect to anything off the list, and under `firewall-open` one to a closed host, is refused at once (\"connection refused\" for tcp), never left to time out. Under `firewall` a host entry covers that name and every name under it (`github.com` admits `api.github.com` too, on the same port), as the wall's resolver answers them during the session: nothing is resolved at launch, and a name off the list does not resolve in the box at all. A closure `!name` closes that name and every name under it, after everything else, from the entries above it too (`!github.com` closes `api.github.com:443`), and below one (`github.com` with `!api.github.com`): the resolver refuses the closed name as a name off the list. `!name:port` closes only that port: the name still resolves, and its own answers open its other ports only (an address it shares with an allowed name stays open on that name's ports). An address entry admits that address only, and an address closure (`!192.0.2.7`, `!192.0.2.7:22`) refuses that address (on that port) whatever else admits it, an allowed name's answer included. Under `firewall-open` a closed name closes that name and every name under it, as the same resolver answers them (a fresh address of a closed host is closed too); a closure that does not resolve blocks nothing and never stops a launch.",
  },
  env_from_host: {
    section: 'grants',
    summary:
      'Box variables whose values are read from the host at each launch (a grant); never baked into the image or written to a record.',
    merge: { kind: 'map', unset: '`KEY = ""` disables an inherited passthrough' },
    grammar:
      'Keys are variable names (not `BYRE_…`). Sources: `git:<config key>`, `env:<HOST_VAR>`, `tz:` (the host time zone), `""` (disabled), or an encrypted credential row `byre credential add` writes: `encrypted:<key id>:<ciphertext>` (the box gets the value) or `encrypted-file:<key id>:<ciphertext>` (the box gets the path of a 0600 file on a tmpfs), or `injected:<key id>:<ciphertext>` (the box holds a sentinel; the edge presents the value to the hosts `[[inject.KEY]]` names). A literal value belongs in `env`.',
    example: '[env_from_host]\nGITHUB_TOKEN = "env:GITHUB_TOKEN"',
    rules: [
      'config.env-key-invalid',
      'config.env-reserved',
      'config.env-source-invalid',
      'config.credential-no-identity',
      'config.credential-foreign',
      'config.inject-undeclared',
    ],
    note: "The built-in core layer passes git user.name/user.email (as GIT_AUTHOR_*/GIT_COMMITTER_*), TERM and TZ. An `env` key of the same name overrides the passthrough. An encrypted row asks the host for nothing: it opens only with its own file's `[credentials]` identity, only in `byre develop` (which asks the passphrase), and reaches the box over the credential channel, never as `-e` (docs/CREDENTIALS.md). Edit these rows with `byre credential`, not by hand.",
  },
  credentials: {
    section: 'grants',
    summary:
      "This file's credential identity: an age key sealed with your passphrase, which opens the file's encrypted env_from_host rows.",
    merge: { kind: 'per-file' },
    grammar:
      '`recipient` is the age X25519 recipient (`age1…`); `identity` is the base64 of an age file sealed with the passphrase (scrypt) whose plaintext is the key. A plain `AGE-SECRET-KEY-…` is refused.',
    example: `[credentials]\nrecipient = "age1${'q'.repeat(58)}"\nidentity = "YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IHNjcnlwdCBjMkZzZEEgMTgK"`,
    rules: ['config.credential-identity-invalid'],
    note: '`byre credential add` creates it with the first row in a file and `byre credential rekey` replaces it; a copied or edited table no longer opens the rows. Not allowed in template.config.',
    fields: {
      recipient: { summary: 'The public half: rows are sealed to it without the passphrase.' },
      identity: { summary: 'The private half, sealed with your passphrase.' },
    },
  },
  inject: {
    section: 'grants',
    summary:
      'For which hosts, and how, the edge presents a credential injected at the edge: the box holds only a sentinel (adr/0070).',
    merge: { kind: 'with-row' },
    grammar:
      '`[[inject.KEY]]` beside an `injected:` row for KEY in the same file; each rule has `hosts` (DNS names with a dot, `name[:port]`, port 443 by default, lowercased; no scheme, path, wildcard or address: an exact name, not a suffix as in `egress`) and exactly one presentation: `header = "NAME"` (the value as that header; not one that frames or routes the request: `host`, `content-length`, `transfer-encoding`, `connection`, `upgrade`, `te`, `trailer`, `keep-alive`, `proxy-*`), `bearer = true` (`Authorization: Bearer <value>`) or `basic = "USER"` (`Authorization: Basic`, no colon or control character in USER). A host is given once across every key and file of the cascade.',
    example: `[env_from_host]\nGITHUB_TOKEN = "injected:d3eeac9b7373788d:YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBjMkZ0Y0d4bAo="\n\n[[inject.GITHUB_TOKEN]]\nhosts = ["api.github.com"]\nbearer = true\n\n[[inject.GITHUB_TOKEN]]\nhosts = ["github.com"]\nbasic = "x-access-token"\n\n[credentials]\nrecipient = "age1${'q'.repeat(58)}"\nidentity = "YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IHNjcnlwdCBjMkZzZEEgMTgK"`,
    rules: [
      'config.inject-no-row',
      'config.inject-undeclared',
      'config.inject-host-twice',
      'config.inject-host-invalid',
      'config.inject-hosts-empty',
      'config.inject-presentation',
      'config.env-key-invalid',
      'config.key-banned-here',
    ],
    note: 'The rules are sealed with the value: a file whose rules differ from the sealed ones opens nothing, so widening where a secret goes needs the passphrase. Written by `byre credential add KEY --inject HOST[,HOST] --header NAME|--bearer|--basic USER` (again to add a host, `byre credential remove KEY --inject HOST` to drop one), not by hand; docs/CREDENTIALS.md has recipes. `byre develop` starts the edge before the box, which joins its network (so develop refuses `run_args` that set its network: `edge.run-args`); behind a network wall (`firewall`) only the edge may connect to the addresses of the injected names, and a direct connect from the box to them is refused unless `egress` admits it. Not allowed in template.config.',
    fields: {
      hosts: {
        summary: 'The hosts (`name[:port]`) the edge presents the credential to.',
        required: true,
      },
      header: { summary: 'Present the value as this header.' },
      bearer: { summary: '`true`: present it as `Authorization: Bearer <value>`.' },
      basic: {
        summary: 'Present it as `Authorization: Basic` with this user (GitHub: `x-access-token`).',
      },
    },
  },
  volumes: {
    section: 'storage',
    summary: 'Named volumes that outlive the box: caches, and state such as agent logins.',
    merge: {
      kind: 'identity',
      identity: 'name',
      removal: '`name = "!x"` removes the inherited volume x',
    },
    grammar:
      'Names are `[A-Za-z0-9_.-]+`; `target` is absolute. A seed is allowed only on a project-scoped state volume; `exclusive` only on project scope. A seed `host` reached through a link that lives in a box-writable tree (the project, a read-write mount …) is refused when a box is loaded (`containment.link-in-box-tree`, adr/0046): name where the link leads.',
    example: '[[volumes]]\nname = "cargo"\nrole = "cache"\ntarget = "/home/dev/.cargo"',
    rules: [
      'config.volume-name-invalid',
      'config.volume-role-invalid',
      'config.volume-target-not-absolute',
      'config.volume-scope-invalid',
      'config.volume-sharing-invalid',
      'config.volume-exclusive-on-machine',
      'config.volume-seed-invalid',
      'config.volume-seed-not-state',
      'config.volume-seed-on-machine',
      'config.volume-duplicate',
      'config.target-collision',
    ],
    fields: {
      name: {
        summary: 'The volume name (the engine calls it byre-<project id>-<name>).',
        required: true,
      },
      role: {
        summary: '`cache` (disposable) or `state` (precious; `byre reset` warns).',
        required: true,
      },
      target: { summary: 'Where it mounts in the box (absolute).', required: true },
      scope: {
        summary:
          '`project` (default) or `machine`: one volume shared by every project of this user.',
      },
      sharing: {
        summary:
          '`shared` (default) or `exclusive`: develop refuses a second box while one holds it.',
      },
      seed: {
        summary:
          'Fill a fresh state volume once: from a host path, or from a literal written to `path`.',
        fields: {
          host: { summary: 'A host directory (`~/…` or absolute) copied in.' },
          literal: { summary: 'Text written to `path` (non-secrets only).' },
          path: { summary: 'The relative path `literal` is written to.' },
        },
      },
    },
  },
  env: {
    section: 'build',
    summary: 'Literal variables baked into the image (not a grant: nothing comes from the host).',
    merge: { kind: 'map', unset: null },
    grammar:
      'Keys are variable names (`[A-Za-z_][A-Za-z0-9_]*`), not `BYRE_…`; values are strings, which the box gets byte for byte (`$HOME` stays those five characters; ESC, tab and CR are carried) except a line feed or NUL, which an image ENV line cannot hold and are refused.',
    example: '[env]\nRUST_BACKTRACE = "1"',
    rules: ['config.env-key-invalid', 'config.env-reserved', 'config.env-value-unbakeable'],
    note: 'No unset: override the value instead. A secret does not belong here (it would be in the image); use env_from_host. A multi-line value travels at launch instead: env_from_host from a host variable, or run_args `-e`.',
  },
  apt: {
    section: 'build',
    summary: 'Debian packages installed in the project block of the image.',
    merge: { kind: 'union' },
    grammar:
      'Package names `[A-Za-z0-9@][A-Za-z0-9@/._+:=~^-]*`; `!name` removes an inherited one.',
    example: 'apt = ["build-essential", "jq"]',
    rules: ['config.apt-invalid'],
  },
  files: {
    section: 'build',
    summary: 'Project files copied into the image, read-only.',
    merge: { kind: 'map', unset: null },
    grammar:
      'Keys are paths inside the project (relative, no `..` escape, no link leading out); values are absolute paths in the image.',
    example: '[files]\n"./config/dev.toml" = "/etc/app/dev.toml"',
    rules: ['config.files-src-invalid', 'config.files-dest-not-absolute'],
  },
  skills: {
    section: 'build',
    summary: 'Skills to enable: bundled names bare (`firewall`), installed ones as `owner/name`.',
    merge: { kind: 'union' },
    grammar: 'A package name or `owner/name`; `!name` removes an inherited one.',
    example: 'skills = ["firewall", "docker-host"]',
    rules: ['config.skill-invalid', 'config.key-banned-here'],
  },
  sources: {
    section: 'build',
    summary:
      'Where to get a package this config names but the store lacks: printed as an install hint, never fetched by itself.',
    merge: { kind: 'map', unset: null },
    grammar:
      '`uri` is required, with no whitespace; `digest` is `sha256:` plus 64 lowercase hex digits.',
    example:
      '[sources."acme/lint"]\nuri = "https://example.com/lint/skill.toml"\ndigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"',
    rules: ['config.source-uri-invalid', 'config.source-digest-invalid', 'config.key-banned-here'],
    fields: {
      uri: { summary: 'The distribution manifest (https:// or a path).', required: true },
      digest: { summary: 'The package digest the install must match.' },
    },
  },
  egress_offered: {
    section: 'build',
    summary:
      'Doors offered, not opened: hosts the config editor can switch into egress with one press. Never enforced.',
    merge: { kind: 'union' },
    grammar: 'The egress grammar; `!host[:port]` removes an inherited offer.',
    example: 'egress_offered = ["pypi.org"]',
    rules: ['config.egress-invalid'],
  },
  mcp: {
    section: 'wiring',
    summary:
      'MCP servers for the agent (wiring, not a grant): baked into /etc/byre/mcp.json and handed to agents that take it.',
    merge: { kind: 'closable' },
    grammar: `Names are ${WIRING_NAME_GRAMMAR}. Exactly one of \`command\` (an argv list, no element empty) or \`url\` (http or https, with a host). \`headers\` only on a url server; \`\${VAR}\` in a header value is filled from the box env at launch.`,
    example:
      '[[mcp]]\nname = "github"\ncommand = ["github-mcp-server", "stdio"]\nenv = ["GITHUB_TOKEN"]',
    rules: [
      'config.mcp-name-invalid',
      'config.mcp-command-and-url',
      'config.mcp-needs-command-or-url',
      'config.mcp-command-empty',
      'config.mcp-command-blank',
      'config.mcp-control-chars',
      'config.mcp-url-invalid',
      'config.mcp-env-invalid',
      'config.mcp-headers-local',
      'config.mcp-header-invalid',
      'config.mcp-header-duplicate',
      'config.mcp-duplicate',
      'config.egress-invalid',
    ],
    note: "A url server's host and port, and its `egress`, become egress grants attributed `mcp:<name>`; its `env` NAMES render as grants. Values (tokens) never go in config: they come from env_from_host or the box's own env. `byre mcp add|remove|list` edits and shows them.",
    fields: {
      name: {
        summary: 'The server name; `!name` closes an inherited or skill-declared one.',
        required: true,
      },
      command: { summary: 'A local (stdio) server: its argv, program first.' },
      url: { summary: 'A remote server: its http(s) URL.' },
      env: { summary: 'Variable NAMES the server reads, never values.' },
      egress: { summary: 'Extra hosts the server needs (egress grammar, no closures).' },
      headers: { summary: 'HTTP headers for a url server; use `${VAR}` for secrets.' },
    },
  },
  claude_skills: {
    section: 'wiring',
    summary:
      'Claude Skills (a directory whose root holds SKILL.md) baked into /etc/byre/claude-skills and handed to agents that take them.',
    merge: { kind: 'closable' },
    grammar: `Names are ${WIRING_NAME_GRAMMAR}; \`path\` is a host directory, \`~/…\` or absolute. A \`path\` reached through a link that lives in a box-writable tree (the project, a read-write mount …) is refused when a box is loaded (\`containment.link-in-box-tree\`, adr/0046): name where the link leads.`,
    example: '[[claude_skills]]\nname = "tdd-loop"\npath = "~/claude-skills/tdd-loop"',
    rules: [
      'config.claude-skill-name-invalid',
      'config.claude-skill-path-invalid',
      'config.claude-skill-duplicate',
    ],
    note: '`byre claude-skill add|remove|list` edits and shows them.',
    fields: {
      name: {
        summary:
          "The skill's name (its SKILL.md frontmatter name); `!name` closes an inherited one.",
        required: true,
      },
      path: { summary: 'The host directory whose root holds SKILL.md.' },
    },
  },
  context: {
    section: 'wiring',
    summary:
      "Standing instructions for the agent: prose joined into the baked agent context after the skills' snippets, in cascade order.",
    merge: {
      kind: 'identity',
      identity: 'name',
      removal: '`name = "!x"` removes the inherited block x',
    },
    grammar: `Names are ${WIRING_NAME_GRAMMAR}. Exactly one of \`text\` (no control characters but newline and tab) or \`file\` (\`~/…\` or absolute, read at each develop; a missing file fails it, one over 16 MiB is refused, one reached through a link inside a box-writable tree is refused: \`containment.link-in-box-tree\`, adr/0046). A block of 100 KiB, 500 KiB or 1 MiB gets a warning that says what it costs the agent.`,
    example: '[[context]]\nname = "house-rules"\ntext = "Run the linter before committing."',
    rules: [
      'config.context-name-invalid',
      'config.context-text-or-file',
      'config.context-control-chars',
      'config.context-file-invalid',
      'config.context-duplicate',
      'config.context-large',
    ],
    note: '`byre context add|remove|list` edits and shows them; `add` with neither --text nor --file opens $EDITOR.',
    fields: {
      name: { summary: 'The block name; `!name` removes an inherited block.', required: true },
      text: { summary: 'The prose, inline.' },
      file: { summary: 'A host file holding the prose.' },
    },
  },
  dockerfile_pre: {
    section: 'raw',
    summary: 'Raw Dockerfile lines placed before the core block (right after FROM).',
    merge: { kind: 'append' },
    grammar:
      'Any Dockerfile lines; byre never parses them, and status counts them as not introspected.',
    example: 'dockerfile_pre = ["RUN apt-get update && apt-get install -y postgresql-client"]',
    rules: [],
  },
  dockerfile_post: {
    section: 'raw',
    summary: 'Raw Dockerfile lines at the end of the project block.',
    merge: { kind: 'append' },
    grammar:
      'Any Dockerfile lines; byre never parses them, and status counts them as not introspected.',
    example: 'dockerfile_post = ["RUN npm ci"]',
    rules: [],
  },
  run_args: {
    section: 'raw',
    summary:
      "Raw engine run arguments, appended after byre's own (so they win, except byre's labels).",
    merge: { kind: 'append' },
    grammar:
      'One argv word per string (`["-v", "/srv:/srv:ro"]` or `["--pid=host"]`), passed as written.',
    example: 'run_args = ["--cap-add=SYS_PTRACE"]',
    rules: [],
    note: "byre reads them as docker and podman do and refuses none, but for a box that injects a credential at the edge: it runs in its edge's network, so flags that set the box's network (`--network`, `-p`, `-P`, `--add-host`, `--dns*`, `--hostname`, `--ip`, `--mac-address`, `--network-alias`, `--link`, `--expose`, `--no-hosts`, `--userns`, `--uts`) are refused there (`edge.run-args`; ports belong in `ports`). A bind or port counts with the others in develop's banner and status, a flag that opens a hole (`--privileged`, a host namespace, the engine socket, `--cap-add`, `--device`, a loosening `--security-opt`, `--entrypoint`, a bare word) gets a 🛑 line, and a flag neither engine has is listed as not introspected. They still degrade the network and privileges claims in status.",
  },
  worktree_base: {
    section: 'machine',
    summary: 'Where `byre worktree` puts new worktrees.',
    merge: { kind: 'scalar' },
    grammar:
      '`""`, `sibling` (`<repo>-<name>` beside the repository), or a `~/…` or absolute directory without commas.',
    example: 'worktree_base = "sibling"',
    rules: ['config.worktree-base-invalid'],
    note: '`sibling` puts `byre worktree <name>` at `<repo>-<name>` beside the repository; a directory puts it at `<dir>/<repo>-<name>`. Unset, `byre worktree` needs `--path`. `byre status` shows it (docs/WORKTREES.md).',
  },
  defaults: {
    section: 'machine',
    summary: "Onboarding's stored answers (written by the picker); never part of a box.",
    merge: { kind: 'picker' },
    grammar:
      '`shared_auth` maps an agent to its shared-auth companion (`{ claude = "claude-shared-auth" }`; the legacy list `["claude"]` names the bundled companion). `skip_questions = true` configures new projects from these answers unasked.',
    example: '[defaults]\nskip_questions = true',
    rules: [],
    note: '`skip_questions` is sticky: once a layer sets it true, a later false does not clear it.',
    fields: {
      shared_auth: { summary: 'Agent → shared-auth companion skill, offered at onboarding.' },
      skip_questions: { summary: 'Onboard new projects from the stored answers without asking.' },
    },
  },
  shared_auth: {
    section: 'machine',
    summary: 'The legacy spelling of `[defaults] shared_auth`.',
    merge: { kind: 'picker' },
    grammar: 'As `[defaults] shared_auth`.',
    example: 'shared_auth = ["claude"]',
    rules: [],
    note: 'Read as written; the next write byre makes to the file moves it under [defaults].',
  },
};

/** Rules about a whole file rather than one key's value. */
export const FILE_RULES: Readonly<Record<string, string>> = {
  'config.unknown-key': 'a key the vocabulary does not have (byre names the one it is a typo of)',
  'config.wrong-type': 'a value of the wrong TOML type (a string where a list goes)',
  'config.missing-key': 'an entry lacks a key it needs (a mount without target)',
  'config.removal-extra-keys': 'a removal marker carries keys beside its identity',
  'config.key-banned-here': 'a key this kind of file may not carry (see each key’s layers)',
  'config.key-removed':
    'a key that was removed from the vocabulary (the message names its replacement)',
  'config.toml-syntax': 'the file is not TOML (or not UTF-8)',
  'config.toml-redefined': 'a key or table defined twice',
  'config.too-large': 'the file is over 1 MiB',
  'config.symlink':
    'a project config or template that is a symbolic link (only default.config and named layers may be links), or a link to nothing',
  'config.not-file': 'the path (or what its link leads to) is a directory, FIFO or device',
  'config.unreadable': 'the file cannot be read',
  'config.project-id-invalid': 'the project id is not one byre derives',
};

/** A key as the editor and docs/CONFIG.md see it: the doc plus what is derived. */
export interface ConfigKeyInfo extends KeyDoc {
  key: ConfigKey;
  shape: ValueShape;
  /** The shape in words (`array of tables`). */
  type: string;
  /** The files that may set it (the placement bans, inverted). */
  layers: readonly LayerFileKind[];
  /** The field an entry is identified by (`name`, `target`, `container`), or null. */
  identity: string | null;
}

const SHAPE: Readonly<Record<ConfigKey, ValueShape>> = LAYER_SHAPE.fields;

function identityOf(merge: MergeRule): string | null {
  if (merge.kind === 'identity') return merge.identity;
  if (merge.kind === 'closable') return 'name';
  return null;
}

function info(key: ConfigKey): ConfigKeyInfo {
  const doc = KEY_DOCS[key];
  const shape = SHAPE[key];
  const banned = kindsBanning(key);
  return {
    ...doc,
    key,
    shape,
    type: describeShape(shape),
    layers: LAYER_FILE_KINDS.filter((kind) => !banned.includes(kind)),
    identity: identityOf(doc.merge),
  };
}

const SCHEMA_KEYS = Object.keys(SHAPE) as ConfigKey[];

// Derived on first use: a command that only reads a config never asks (adr/0041).
let ordered: readonly ConfigKey[] | null = null;
let infos: ReadonlyMap<ConfigKey, ConfigKeyInfo> | null = null;

/** Every key, in the order docs/CONFIG.md lists them: by section, then as the schema lists them. */
export function configKeys(): readonly ConfigKey[] {
  ordered ??= SECTION_ORDER.flatMap((section) =>
    SCHEMA_KEYS.filter((key) => KEY_DOCS[key].section === section),
  );
  return ordered;
}

export function configKey(key: ConfigKey): ConfigKeyInfo {
  infos ??= new Map(configKeys().map((k) => [k, info(k)]));
  return infos.get(key) as ConfigKeyInfo;
}

/** The merge rule in one sentence. */
export function mergeText(merge: MergeRule): string {
  switch (merge.kind) {
    case 'scalar':
      return 'The last layer that sets it wins; an empty string inherits.';
    case 'tristate':
      return 'An explicit true or false in a later layer wins; unset inherits.';
    case 'chain':
      return 'Not merged: it names the parent layer, and the chain is merged root-first below this file.';
    case 'union':
      return 'Lists add up across layers, without duplicates; `!name` removes an inherited entry (in one file, a removal beats an add).';
    case 'egress':
      return 'Entries add up across layers (one per host:port); `!host[:port]` closures survive the merge and subtract last, from skill-declared entries too; a later plain entry reopens a closure; in one file, a closure beats an add.';
    case 'map':
      return `Merged key by key; a later layer's value for a key wins.${merge.unset === null ? ' There is no unset: override the value.' : ` ${merge.unset}.`}`;
    case 'identity':
      return `An entry replaces the inherited entry with the same \`${merge.identity}\` (taking the later position); ${merge.removal}.`;
    case 'closable':
      return 'An entry replaces the inherited entry with the same `name`; `name = "!x"` closes x: the closure survives the merge and removes a skill-declared x too; a later declaration of x reopens it. A name declared twice (config and a skill) is refused.';
    case 'append':
      return 'Every layer’s lines, lowest layer first; there is no removal.';
    case 'picker':
      return 'The last layer that sets an answer wins; stripped from the resolved box config.';
    case 'per-file':
      return 'Not merged: each file keeps its own, and it opens only the rows written in that same file.';
    case 'with-row':
      return "Not merged: a key's rules are those of the file whose `env_from_host` row for the key wins (the highest layer naming it); rules never mix across files.";
  }
}
