// Value rules for one parsed layer: each is a named, pure function from the
// raw layer to findings (rule id, key path, message, fix), one file per rule
// family. parse.ts attaches file positions; nothing here reads files or
// knows about other layers.

import { checkCredentialRows, checkCredentialsTable } from './credentials.js';
import { checkEgress } from './egress.js';
import { checkEnv, checkEnvFromHost } from './env.js';
import { checkInjections } from '../inject.js';
import type { LayerRule } from './finding.js';
import { checkApt, checkFiles, checkSkills, checkSources } from './lists.js';
import { checkMcp } from './mcp.js';
import { checkMounts } from './mounts.js';
import { checkPortCollisions, checkPorts } from './ports.js';
import {
  checkAgentName,
  checkBase,
  checkEngine,
  checkExtends,
  checkTemplateName,
  checkWorktreeBase,
} from './scalars.js';
import { checkTargetCollisions } from './targets.js';
import { checkVolumes } from './volumes.js';
import { checkClaudeSkills, checkContext } from './wiring.js';

export { checkCredentialRows, checkCredentialsTable } from './credentials.js';
export { checkEgress } from './egress.js';
export { checkEnv, checkEnvFromHost } from './env.js';
export type { Finding, LayerRule } from './finding.js';
export { checkApt, checkFiles, checkSkills, checkSources } from './lists.js';
export { checkMcp } from './mcp.js';
export { checkMounts } from './mounts.js';
export { checkPlacement, kindsBanning } from './placement.js';
export {
  checkPortCollisions,
  checkPorts,
  DEFAULT_INTERFACE,
  layerPortBindings,
  PORT_COLLISION_FIX,
  portCollisionMessage,
  portCollisions,
  type PortBinding,
} from './ports.js';
export {
  checkAgentName,
  checkBase,
  checkEngine,
  checkExtends,
  checkTemplateName,
  checkWorktreeBase,
  layerNameProblem,
} from './scalars.js';
export {
  checkTargetCollisions,
  mountClaimLabel,
  TARGET_COLLISION_FIX,
  targetCollisionMessage,
  targetCollisions,
  type TargetClaim,
} from './targets.js';
export { checkVolumes } from './volumes.js';
export {
  CONTEXT_WARN_BYTES,
  LAYER_WARNINGS,
  warnLargeContext,
  warnUnsupportedBase,
} from './warnings.js';
export { checkClaudeSkills, checkContext } from './wiring.js';

/** Every value rule, in the order issues are reported. */
export const LAYER_RULES: readonly LayerRule[] = [
  checkEngine,
  checkTemplateName,
  checkAgentName,
  checkBase,
  checkExtends,
  checkWorktreeBase,
  checkSources,
  checkApt,
  checkEnv,
  checkEnvFromHost,
  checkCredentialsTable,
  checkCredentialRows,
  checkInjections,
  checkFiles,
  checkSkills,
  checkMounts,
  checkPorts,
  checkPortCollisions,
  checkVolumes,
  checkTargetCollisions,
  checkEgress,
  checkMcp,
  checkClaudeSkills,
  checkContext,
];
