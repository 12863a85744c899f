// Shared engine vocabulary: which engine, what detection learned about it, and
// the option shapes the Engine interface takes, and the one pattern a full
// container id matches. Types and that constant only; no behaviour.

import type { Warning } from './host-user.js';

export type EngineName = 'docker' | 'podman';

/** A full container id: it can name one container on one engine, and nothing else. */
export const FULL_CONTAINER_ID = /^[0-9a-f]{64}$/;

/** What detection pinned for this invocation. Every engine call runs `path`. */
export interface EngineFacts {
  name: EngineName;
  /** Absolute path of the engine CLI. */
  path: string;
  rootless: boolean;
  /** Rootless Podman >= 4.3: the box and its helpers run under keep-id:uid=1000,gid=1000. */
  keepId: boolean;
  /** As the engine reports it (`28.2.2`, `4.3.1`); empty when unparseable or not asked (detection asks only where identity depends on it, or when told to). */
  version: string;
  /** Overrides that let detection continue (BYRE_ALLOW_ROOTLESS_PODMAN=1), for the caller to show. */
  warnings: Warning[];
}

export interface BuildSpec {
  tag: string;
  contextDir: string;
  /** Defaults to `<contextDir>/Dockerfile.generated`. */
  dockerfile?: string;
  noCache: boolean;
  /** The ids baked into the dev user (1000/1000 under keep-id). */
  uid: number;
  gid: number;
  /** Further build args, emitted sorted after BYRE_UID and BYRE_GID. */
  buildArgs?: Readonly<Record<string, string>>;
  labels?: Readonly<Record<string, string>>;
  /**
   * The `dockerfile` already ends in one LABEL instruction carrying `labels`
   * (labelInstruction): no `--label` flags, which podman turns into one
   * committed step per label (adr/0069).
   */
  labelsInDockerfile?: boolean;
}

/** A `ps` row with the label values asked for. */
export interface LabelledContainer {
  id: string;
  labels: Record<string, string>;
}

/** What one `container inspect` says about a container byre may talk to. */
export interface ContainerFacts {
  id: string;
  running: boolean;
  labels: Record<string, string>;
  env: Record<string, string>;
}

export interface PsQuery {
  labels: Readonly<Record<string, string>>;
  /** Labels that must be present, whatever their value. */
  hasLabels?: readonly string[];
  /** Include stopped containers (`-a`). */
  all: boolean;
  /** Only containers that mount this named volume. */
  volume?: string;
}

/** `volume ls` filters; both must hold (the adapter ANDs them where the engine does not). */
export interface VolumeFilter {
  /** Engine name filter (docker matches substrings); callers re-check exact names. */
  name?: string;
  labels?: Readonly<Record<string, string>>;
  /** Labels that must be present, whatever their value. */
  hasLabels?: readonly string[];
}

/** `images` filters; callers re-check names themselves. */
export interface ImageFilter {
  labels?: Readonly<Record<string, string>>;
  /** Labels that must be present, whatever their value. */
  hasLabels?: readonly string[];
}

/** A volume or image with its labels, from one batched inspect. */
export interface LabelledObjectFacts {
  /** Volume name, or image id (`sha256:<hex>`). */
  id: string;
  labels: Record<string, string>;
}

/** Where the engine keeps images, and whether that is on this host's filesystem. */
export interface StorageInfo {
  root: string;
  /** In a VM (Docker Desktop, podman machine) or behind a remote daemon. */
  remote: boolean;
}

/** One row of `images`: a tagged image (one row per tag) or a dangling one. */
export interface ImageRef {
  /** `sha256:<hex>` on both engines. */
  id: string;
  /** `repository:tag` as the engine prints it; null for a dangling image. */
  ref: string | null;
}

export interface ExecSpec {
  id: string;
  command: readonly string[];
  user?: string;
  env?: Readonly<Record<string, string>>;
  workdir?: string;
  /** Keep stdin open (`-i`); implied when `input` is given to `exec`. */
  interactive?: boolean;
  /** Allocate a terminal (`-t`); only for execAttached on a TTY. */
  tty?: boolean;
}
