// Which credential rows of the resolved cascade a box takes (adr/0012): every
// env_from_host entry whose source is an encrypted kind, unless an explicit
// [env] key of the same name wins (as it does over any passthrough). Pure.

import type { EffectiveConfig, LayerRef, Sourced } from '../config/types.js';
import { credentialKindOf, type CredentialKind } from './row.js';

export interface CredentialRowRef {
  key: string;
  kind: CredentialKind;
  /** The row as written (`encrypted:<key id>:<ciphertext>`). */
  source: string;
  /** The file the row sits in; its own [credentials] identity opens it. */
  from: LayerRef;
  /** An [env] key of the same name wins; the row is not delivered. */
  overridden: boolean;
}

/** Every credential row in the cascade, sorted by key. */
export function credentialRows(config: EffectiveConfig): CredentialRowRef[] {
  return Object.keys(config.envFromHost)
    .sort()
    .flatMap((key) => {
      const entry = config.envFromHost[key] as Sourced<string>;
      const kind = credentialKindOf(entry.value);
      if (kind === null) return [];
      return [{ key, kind, source: entry.value, from: entry.from, overridden: key in config.env }];
    });
}

/** The rows a box takes: what develop decrypts and delivers. */
export function deliveredCredentialRows(config: EffectiveConfig): CredentialRowRef[] {
  return credentialRows(config).filter((r) => !r.overridden);
}

/** Whether two refs name the same config file. */
export function sameLayer(a: LayerRef, b: LayerRef): boolean {
  return a.kind === b.kind && a.name === b.name && a.path === b.path;
}
