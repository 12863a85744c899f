// What byre's chassis owns inside every box: the paths the image and the
// launcher agree on, and the BYRE_ keys the launcher and byre's own steps
// read. Pure; the one owner of these names, so the Dockerfile, the run argv,
// status and the transfer verbs cannot drift apart.

/** The project, bind-mounted read-write. */
export const WORKSPACE = '/workspace';
/** The baked dev user's home. */
export const DEV_HOME = '/home/dev';
/**
 * `--self-edit`: this project's store, read-write. The launcher adds the
 * baked self-edit note to the session context only while it is mounted rw.
 */
export const SELF_EDIT_DIR = `${DEV_HOME}/.byre-self`;
/** Where deliver lands files. */
export const INBOX = '/inbox';
/** The box's ENTRYPOINT (src/gen/chassis/byre-launch.sh). */
export const LAUNCHER_PATH = '/usr/local/bin/byre-launch';
/**
 * The build-only node helper (src/gen/chassis/byre-ensure-node.sh): the
 * hoisted node layer runs it (adr/0062), and third-party skills may still call it.
 */
export const ENSURE_NODE_PATH = '/usr/local/lib/byre/ensure-node';
/** byre's generated files in the image; a mount over it is a hole. */
export const BYRE_ETC = '/etc/byre';
/** A network posture's ready signal: the launcher waits on the port it names. */
export const LAUNCH_GATE_PATH = `${BYRE_ETC}/launch-gate`;
export const AGENT_CMD_PATH = `${BYRE_ETC}/agent-cmd`;
export const AGENT_CONTEXT_PATH = `${BYRE_ETC}/agent-context.md`;
export const MCP_CONFIG_PATH = `${BYRE_ETC}/mcp.json`;
export const CLAUDE_SKILLS_DIR = `${BYRE_ETC}/claude-skills`;
export const CONTEXT_DIR = `${BYRE_ETC}/context`;
/** Baked with an agent: what a `--self-edit` session may change, and how (the launcher reads it). */
export const SELF_EDIT_NOTE_PATH = `${BYRE_ETC}/self-edit.md`;
/** Baked with an agent: the config reference (docs/CONFIG.md) for a self-editing agent. */
export const CONFIG_REFERENCE_PATH = `${BYRE_ETC}/config-reference.md`;
/** The image's PATH, captured at build time for login shells. */
export const IMAGE_PATH_FILE = `${BYRE_ETC}/image-path`;
/** Baked when the config holds credential rows: the launcher waits for delivery (adr/0012). */
export const CREDENTIAL_GATE_PATH = `${BYRE_ETC}/credential-gate`;
/**
 * Baked when the project injects credentials (adr/0084): `ADDRESS PORT`,
 * where the box's edge listens once it is ready; the launcher waits for a
 * connection there before anything of the box's runs.
 */
export const EDGE_GATE_PATH = `${BYRE_ETC}/edge-gate`;
/**
 * The loopback address the box's host entries point injected names at; the
 * edge, which owns the box's network namespace (adr/0079), listens there. A
 * dedicated address keeps clear of whatever the box serves on 127.0.0.1.
 */
export const EDGE_ADDRESS = '127.31.0.1';
/**
 * The edge's ready signal: it listens here (on EDGE_ADDRESS) only once it
 * holds its routes, after it dropped to EDGE_UID (so above 1023), and the
 * launcher's edge gate waits for it (adr/0084). Beside the wall's 7227.
 */
export const EDGE_GATE_PORT = 7228;
/**
 * The box's variable naming its injected keys (`KEY,KEY`; adr/0084): the
 * launcher sets each to the sentinel once its edge gate opened. Names only:
 * set after skill and delivered env, so neither can rewrite it.
 */
export const EDGE_SENTINELS_ENV = 'BYRE_EDGE_SENTINELS';
/** Where the launcher reads its edge gate's file (EDGE_GATE_PATH unless set). */
export const EDGE_GATE_FILE_ENV = 'BYRE_EDGE_GATE_FILE';
/**
 * The bind proof (adr/0045): `dev:ino:target,…` for every bind byre pinned.
 * The launcher and byre's helper containers check it before anything else;
 * develop sets it after skill and delivered env, so neither can replace it.
 */
export const BIND_PROOF_ENV = 'BYRE_BIND_PROOF';
/**
 * The user the edge drops to once it listens (its script's `NOBODY`). Behind
 * a wall only this user's connections may reach the injected names'
 * addresses (adr/0070); the wall's hook refuses a box or resolver that runs
 * as it.
 */
export const EDGE_UID = 65534;

/**
 * Credentials injected at the edge (adr/0070): the edge process's script,
 * baked root-owned into byre's edge image (adr/0077), whose node runs it.
 */
export const EDGE_SCRIPT_PATH = '/usr/local/lib/byre/byre-edge.cjs';
/**
 * The edge's startup snapshot, built from the script when the edge image is
 * (adr/0078): node restores it instead of bootstrapping and loading the script.
 */
export const EDGE_SNAPSHOT_PATH = '/usr/local/lib/byre/byre-edge.blob';
/** The project CA's certificate in the image (Debian's update-ca-certificates reads this folder). */
export const EDGE_CA_PATH = '/usr/local/share/ca-certificates/byre-edge.crt';
/** Debian's system bundle, which update-ca-certificates rewrites with the CA in it. */
const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/**
 * The variables common clients read for their trust roots, baked with the
 * CA. Node adds NODE_EXTRA_CA_CERTS to its own roots; OpenSSL-based tools
 * (Python's ssl, Rust's openssl and rustls-native-certs) read SSL_CERT_FILE;
 * requests reads REQUESTS_CA_BUNDLE (else certifi's bundle, without the CA);
 * git reads GIT_SSL_CAINFO as http.sslCAInfo; curl and most Debian tools
 * read the system bundle already.
 */
/** The trust variable node reads once, at its start. */
const NODE_CA_VAR = 'NODE_EXTRA_CA_CERTS';
export const EDGE_TRUST_ENV: Readonly<Record<string, string>> = {
  GIT_SSL_CAINFO: SYSTEM_BUNDLE,
  [NODE_CA_VAR]: EDGE_CA_PATH,
  REQUESTS_CA_BUNDLE: SYSTEM_BUNDLE,
  SSL_CERT_FILE: SYSTEM_BUNDLE,
};
/** The session tmpfs credentials are delivered onto; its parent is root's, so the box cannot swap it for a link. */
export const CREDENTIAL_DIR = '/run/byre/credentials';

// ---------------------------------------------------------------------------
// Reserved BYRE_ keys. A skill may set one (that is how a posture reaches the
// launcher), but then byre cannot vouch for what the key feeds: each key maps
// to the status claims it can skew.

/** The claim names a reserved key can skew (status degrades them). */
export const NETWORK_CLAIM = 'network';
const LAUNCH_CLAIM = 'launch';
const RESERVED_ENV: Readonly<Record<string, readonly string[]>> = {
  BYRE_EGRESS: [NETWORK_CLAIM],
  BYRE_EGRESS_DENY: [NETWORK_CLAIM],
  BYRE_INBOUND: [NETWORK_CLAIM],
  BYRE_LAUNCH_GATE_FILE: [NETWORK_CLAIM],
  BYRE_LAUNCH_GATE_TIMEOUT: [NETWORK_CLAIM],
  BYRE_CONTEXT_DIR: ['context delivery'],
  BYRE_AGENT_CONTEXT: ['context delivery'],
  BYRE_SESSION_CONTEXT: ['context delivery'],
  BYRE_MCP_CONFIG: ['MCP delivery'],
  BYRE_CREDENTIAL_GATE_FILE: ['credential delivery'],
  BYRE_CREDENTIAL_GATE_TIMEOUT: ['credential delivery'],
  BYRE_CREDENTIAL_DIR: ['credential delivery'],
  [EDGE_GATE_FILE_ENV]: ['credential delivery'],
  BYRE_EDGE_GATE_TIMEOUT: ['credential delivery'],
  [EDGE_SENTINELS_ENV]: ['credential delivery'],
  BYRE_ENVD_DIR: ['context delivery', 'MCP delivery', LAUNCH_CLAIM],
  BYRE_FIRSTRUN_DIR: ['context delivery', 'MCP delivery', LAUNCH_CLAIM],
  BYRE_WORKSPACE_DIR: [LAUNCH_CLAIM],
  BYRE_IMAGE_PATH_FILE: [LAUNCH_CLAIM],
  BYRE_ASSUME_TTY: [LAUNCH_CLAIM],
  BYRE_GEMINI_DIR: [LAUNCH_CLAIM],
  BYRE_IDENTITY_BASE: [LAUNCH_CLAIM],
  BYRE_UID: [LAUNCH_CLAIM],
  BYRE_GID: [LAUNCH_CLAIM],
  BYRE_PROJECT: [LAUNCH_CLAIM],
  BYRE_WORKTREE: [LAUNCH_CLAIM],
  [BIND_PROOF_ENV]: [LAUNCH_CLAIM],
};

/**
 * `BYRE_PORT_<container port>=<host port>`: each published port as this
 * session publishes it (a linked worktree's block shifts it, adr/0034), so
 * the agent can tell the user where its server is. Set after skill env.
 */
const PORT_ENV_PREFIX = 'BYRE_PORT_';
const PORT_CLAIM = 'port announcement';

export function portEnvKey(containerPort: number): string {
  return `${PORT_ENV_PREFIX}${containerPort}`;
}

/** The claims a skill-set BYRE_ key can skew; an unknown one degrades network and launch. */
export function reservedClaims(key: string): { known: boolean; claims: readonly string[] } {
  if (/^BYRE_PORT_[1-9][0-9]*$/.test(key)) return { known: true, claims: [PORT_CLAIM] };
  const claims = RESERVED_ENV[key];
  return claims === undefined
    ? { known: false, claims: [NETWORK_CLAIM, LAUNCH_CLAIM] }
    : { known: true, claims };
}
