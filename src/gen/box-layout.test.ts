import { describe, expect, it } from 'vitest';
import { NETWORK_CLAIM, portEnvKey, reservedClaims } from './box-layout.js';

// The claims as status names them when a skill sets a reserved key.
const LAUNCH_CLAIM = 'launch';
const PORT_CLAIM = 'port announcement';

describe('reservedClaims', () => {
  it.each([
    ['BYRE_EGRESS', true, [NETWORK_CLAIM]],
    ['BYRE_WORKTREE', true, [LAUNCH_CLAIM]],
    [portEnvKey(3000), true, [PORT_CLAIM]],
    ['BYRE_PORT_', false, [NETWORK_CLAIM, LAUNCH_CLAIM]],
    ['BYRE_PORT_03000', false, [NETWORK_CLAIM, LAUNCH_CLAIM]],
    ['BYRE_SOMETHING_NEW', false, [NETWORK_CLAIM, LAUNCH_CLAIM]],
  ])('%s -> known %s, claims %j', (key, known, claims) => {
    expect(reservedClaims(key)).toEqual({ known, claims });
  });
});
