// The wall's resolver's upstream in the engine tier (firewall.test.ts,
// credentials.test.ts): a DNS server in the test process, so no query ever
// leaves the machine.

import { createSocket, type Socket } from 'node:dgram';

/**
 * The resolver's upstream in these tests: a DNS server in this process on
 * `bindTo` (0.0.0.0: reached from boxes through their network's gateway;
 * an address of this machine, for answers that leave from that very
 * address, since one bound to 0.0.0.0 answers from the bridge's), answering A
 * queries from `answers` (TTL 1 s) and nothing for `silent` names, NXDOMAIN
 * for the rest; every query name it saw is in `seen`. Nothing leaves the machine.
 */
export interface FixtureDns {
  port: number;
  answers: Map<string, string>;
  silent: Set<string>;
  seen: string[];
  close(): Promise<void>;
}

export async function fixtureDns(bindTo = '0.0.0.0'): Promise<FixtureDns> {
  const socket: Socket = createSocket('udp4');
  const answers = new Map<string, string>();
  const silent = new Set<string>();
  const seen: string[] = [];
  socket.on('message', (msg, peer) => {
    if (msg.length < 12) return;
    const labels: string[] = [];
    let at = 12;
    while (at < msg.length && msg[at] !== 0) {
      const len = msg[at] ?? 0;
      labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
      at += 1 + len;
    }
    const qtype = msg.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    seen.push(name);
    if (silent.has(name)) return;
    const question = msg.subarray(12, at + 5);
    const address = answers.get(name);
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    header.writeUInt16BE(address === undefined ? 0x8183 : 0x8180, 2);
    header.writeUInt16BE(1, 4);
    const answer =
      address !== undefined && qtype === 1
        ? Buffer.concat([
            Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 1, 0, 4]),
            Buffer.from(address.split('.').map(Number)),
          ])
        : Buffer.alloc(0);
    header.writeUInt16BE(answer.length === 0 ? 0 : 1, 6);
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, bindTo, resolve));
  return {
    port: socket.address().port,
    answers,
    silent,
    seen,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
