// The box's RunParams for this session, built in two pure steps: from the
// run params every launch shares (gen/run-params.ts) and what this session
// decided (the run nonce, its ports, the self-edit bind, the socket groups
// probed in the image), the params the launch record describes; then those
// sealed with the record's hash and the bind proof (adr/0045), the params
// the box is created with.

import { proofOfBox, type BindPins, type BoxProof } from '../containment/bind-pins.js';
import { bindProofValue } from '../gen/bind-proof.js';
import type { PortChoice } from '../gen/port-block.js';
import type { RunBind, RunParams } from '../gen/run-argv.js';

interface SessionChoices {
  /** The nonce the outside-the-box steps (wall, edge, credentials) find the box by; absent when none runs. */
  run: string | undefined;
  ports: PortChoice;
  /** `--self-edit`'s bind of the store; null without it. */
  selfEdit: RunBind | null;
  /** The socket groups the probe found in the image. */
  groupAdd: number[];
  /**
   * A helper (the wall's, or the edge's) will join the box's network
   * namespace: byre removes the box after it.
   */
  walled: boolean;
  /** The edge's host entries; empty when nothing is injected. */
  edgeHosts: readonly string[];
  /** The injected keys, which hold the sentinel in the box (adr/0084); empty when nothing is injected. */
  edgeKeys: readonly string[];
  /** The edge helper whose network namespace the box joins (adr/0079); absent when nothing is injected. */
  edgeHelper?: string | undefined;
}

/** The ports the box publishes: the session's choice, or the config's when it made none. */
export function chosenPorts(shared: RunParams, choice: PortChoice): RunParams['ports'] {
  return choice.kind === 'ok' ? choice.ports : shared.ports;
}

/** The params the launch record describes. */
export function sessionRunParams(shared: RunParams, choices: SessionChoices): RunParams {
  return {
    ...shared,
    labels: choices.run === undefined ? shared.labels : { ...shared.labels, run: choices.run },
    ports: chosenPorts(shared, choices.ports),
    extraBinds:
      choices.selfEdit === null ? shared.extraBinds : [...shared.extraBinds, choices.selfEdit],
    groupAdd: choices.groupAdd,
    ...(choices.walled ? { removedBy: 'byre' as const } : {}),
    ...(choices.edgeHosts.length === 0 ? {} : { edgeHosts: choices.edgeHosts }),
    ...(choices.edgeKeys.length === 0 ? {} : { edgeKeys: choices.edgeKeys }),
    ...(choices.edgeHelper === undefined ? {} : { edgeHelper: choices.edgeHelper }),
  };
}

/**
 * The params the box is created with, and what its launcher proves first
 * (null: nothing pinned). `wiring`: the read-only binds of a bound wiring
 * (adr/0075), last; the record names their directory, not each bind, as it
 * names the image rather than its files.
 */
export function sealRunParams(
  described: RunParams,
  launchHash: string,
  pins: BindPins | null,
  wiring: readonly RunBind[] = [],
): { params: RunParams; proof: BoxProof | null } {
  const labelled: RunParams = {
    ...described,
    extraBinds: [...described.extraBinds, ...wiring],
    labels: { ...described.labels, launch: launchHash },
  };
  if (pins === null) return { params: labelled, proof: null };
  const proof = proofOfBox(labelled, pins);
  return { params: { ...labelled, bindProof: bindProofValue(proof.proven) }, proof };
}
