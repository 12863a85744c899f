import { describe, expect, it } from 'vitest';
import type { PortSpec } from '../config/types.js';
import { PORT_BLOCK_COUNT, choosePorts, type PortChoice, type PortHolder } from './port-block.js';
import { listeningInodes } from '../host/port-probe.js';
import { planPorts, portRefusal } from '../session/port-plan.js';

const WT = 'app-feat-1a2b3c';
const port = (container: number, host = 0, iface = '127.0.0.1'): PortSpec => ({
  container,
  host,
  interface: iface,
});
const free: PortHolder = () => Promise.resolve(null);
const heldSet =
  (held: readonly string[], who = 'pid 7 (node)'): PortHolder =>
  (iface, p) =>
    Promise.resolve(held.includes(`${iface}:${p}`) ? who : null);

/**
 * The blocks a linked worktree `id` tries, in order, and the stride between
 * blocks, read from the host ports choosePorts asks about for port 1 when
 * every port is held: block n asks about 1 + n × stride, and block 1 is the
 * lowest.
 */
async function triedBlocks(id: string): Promise<{ order: number[]; stride: number }> {
  const asked: number[] = [];
  const held: PortHolder = (_iface, p) => {
    asked.push(p);
    return Promise.resolve('held');
  };
  await choosePorts({ ports: [port(1)], linked: true, worktreeId: id, holderOf: held });
  const stride = Math.min(...asked) - 1;
  return { order: asked.map((p) => (p - 1) / stride), stride };
}
const blockOrder = async (id: string): Promise<number[]> => (await triedBlocks(id)).order;
const firstBlock = async (id: string): Promise<number | undefined> => (await blockOrder(id))[0];
const { order: ORDER, stride: PORT_BLOCK_STRIDE } = await triedBlocks(WT);

describe('the blocks a linked worktree tries', () => {
  it('is deterministic, within 1..COUNT, and visits every block once from the first', async () => {
    const first = await firstBlock(WT);
    expect(await firstBlock(WT)).toBe(first);
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(PORT_BLOCK_COUNT);
    const order = await blockOrder(WT);
    expect(order).toEqual(ORDER);
    expect(order[0]).toBe(first);
    expect([...order].sort((a, b) => a - b)).toEqual(
      Array.from({ length: PORT_BLOCK_COUNT }, (_, i) => i + 1),
    );
  });

  it('spreads different worktrees over different blocks', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `app-wt${i}-1a2b3c`);
    expect(new Set(await Promise.all(ids.map(firstBlock))).size).toBeGreaterThan(10);
  });
});

describe('choosePorts', () => {
  const b = ORDER[0] as number;
  const next = ORDER[1] as number;
  const shift = (p: number, block: number): number => p + block * PORT_BLOCK_STRIDE;

  const cases: {
    name: string;
    ports: PortSpec[];
    linked: boolean;
    holder: PortHolder;
    want: unknown;
  }[] = [
    {
      name: 'no ports',
      ports: [],
      linked: true,
      holder: free,
      want: { kind: 'ok', ports: [], block: null },
    },
    {
      name: 'main worktree keeps the configured ports; host 0 mirrors',
      ports: [port(3000), port(8080, 9090)],
      linked: false,
      holder: free,
      want: {
        kind: 'ok',
        block: null,
        ports: [
          { interface: '127.0.0.1', host: 3000, container: 3000 },
          { interface: '127.0.0.1', host: 9090, container: 8080 },
        ],
      },
    },
    {
      name: 'main worktree refuses a held port, naming the holder',
      ports: [port(3000)],
      linked: false,
      holder: heldSet(['127.0.0.1:3000']),
      want: { kind: 'collision', port: '127.0.0.1:3000', holder: 'pid 7 (node)', block: null },
    },
    {
      name: 'linked worktree shifts every port into its own block',
      ports: [port(3000), port(8080, 9090, '0.0.0.0')],
      linked: true,
      holder: free,
      want: {
        kind: 'ok',
        block: b,
        ports: [
          { interface: '127.0.0.1', host: shift(3000, b), container: 3000 },
          { interface: '0.0.0.0', host: shift(9090, b), container: 8080 },
        ],
      },
    },
    {
      name: 'a held port moves the whole block to the next one',
      ports: [port(3000), port(4000)],
      linked: true,
      holder: heldSet([`127.0.0.1:${shift(4000, b)}`]),
      want: {
        kind: 'ok',
        block: next,
        ports: [
          { interface: '127.0.0.1', host: shift(3000, next), container: 3000 },
          { interface: '127.0.0.1', host: shift(4000, next), container: 4000 },
        ],
      },
    },
    {
      name: 'a block landing on a configured host port is skipped (the main worktree keeps it)',
      ports: [port(3000), port(3000 + b * PORT_BLOCK_STRIDE)],
      linked: true,
      holder: free,
      want: {
        kind: 'ok',
        block: next,
        ports: [
          { interface: '127.0.0.1', host: shift(3000, next), container: 3000 },
          {
            interface: '127.0.0.1',
            host: shift(3000 + b * PORT_BLOCK_STRIDE, next),
            container: 3000 + b * PORT_BLOCK_STRIDE,
          },
        ],
      },
    },
    {
      name: 'every block held: refuses naming the holder in the first block',
      ports: [port(3000)],
      linked: true,
      holder: () => Promise.resolve('the other session'),
      want: {
        kind: 'collision',
        port: `127.0.0.1:${shift(3000, b)}`,
        holder: 'the other session',
        block: b,
      },
    },
    {
      name: 'no block fits below 65536: refuses with no holder',
      ports: [port(65500)],
      linked: true,
      holder: free,
      want: { kind: 'collision', port: '127.0.0.1:65500', holder: null, block: null },
    },
  ];

  it.each(cases)('$name', async ({ ports, linked, holder, want }) => {
    expect(await choosePorts({ ports, linked, worktreeId: WT, holderOf: holder })).toEqual(want);
  });

  it('a port near the top takes only blocks that fit', async () => {
    const choice = await choosePorts({
      ports: [port(65000)],
      linked: true,
      worktreeId: WT,
      holderOf: free,
    });
    expect(choice.kind).toBe('ok');
    if (choice.kind === 'ok') {
      expect(choice.ports[0]?.host).toBeLessThanOrEqual(65535);
      expect(choice.block).toBeLessThanOrEqual(5);
    }
  });
});

describe('planPorts', () => {
  const sibling = {
    id: 'abcdef0123456789',
    workdir: '/repo-other',
    ports: [{ interface: '0.0.0.0', host: 3000, container: 3000 }],
  };

  it('a sibling session holding a port (even on the wildcard) is named as the holder', async () => {
    const choice = await planPorts({
      ports: [port(3000)],
      linked: false,
      worktreeId: WT,
      siblings: [sibling],
      hostHolder: free,
    });
    expect(choice).toMatchObject({
      kind: 'collision',
      holder: 'the session of worktree /repo-other (box abcdef012345)',
    });
    expect(portRefusal(choice)?.rule).toBe('develop.port-held');
  });

  it('asks the host when no sibling holds the port', async () => {
    const choice = await planPorts({
      ports: [port(3000)],
      linked: false,
      worktreeId: WT,
      siblings: [],
      hostHolder: heldSet(['127.0.0.1:3000'], 'another program on this host'),
    });
    expect(portRefusal(choice)?.message).toBe(
      'host port 127.0.0.1:3000 is held by another program on this host',
    );
  });

  it.each<[PortChoice, string | null]>([
    [{ kind: 'ok', ports: [], block: null }, null],
    [
      { kind: 'collision', port: '127.0.0.1:65500', holder: null, block: null },
      'develop.port-blocks-exhausted',
    ],
    [
      { kind: 'collision', port: '127.0.0.1:3400', holder: 'x', block: 4 },
      'develop.port-blocks-exhausted',
    ],
  ])('portRefusal(%j) -> %s', (choice, rule) => {
    expect(portRefusal(choice)?.rule ?? null).toBe(rule);
  });
});

describe('listeningInodes', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0',
    '   1: 0100007F:0BB8 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0',
    '   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0',
  ].join('\n');

  it.each([
    [3000, ['4242']],
    [8080, ['4444']],
    [9999, []],
  ])('port %i -> %j (listening sockets only)', (p, want) => {
    expect([...listeningInodes([table], p)]).toEqual(want);
  });
});
