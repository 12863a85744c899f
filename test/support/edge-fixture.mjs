// The edge's upstream in the engine tests (test/engine/edge.test.ts,
// credentials.test.ts) and the edge's bench case (bench/cases.mjs): a fixture
// HTTPS server with its own CA, made with openssl here, which the edge is
// told to trust upstream (test-only). The server answers `ok` (at /echo,
// the headers it received, as JSON) and prints one
// JSON line per request (what it received) on stdout; it runs in a container
// on 443 (`/fixture`), or on the host on a port given. Plain JavaScript, so
// the bench (run by node, without TypeScript) shares it; types in
// edge-fixture.d.mts.

import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `node server.mjs [PORT [CERT_DIR [ADDRESS]]]`: 443, /fixture and every address by default (port 0: the OS picks, and the ready line says it). */
const FIXTURE_SERVER = `import https from 'node:https';
import fs from 'node:fs';
const [port = '443', dir = '/fixture', address = '0.0.0.0'] = process.argv.slice(2);
const server = https.createServer(
  { cert: fs.readFileSync(dir + '/fixture.crt'), key: fs.readFileSync(dir + '/fixture.key') },
  (req, res) => {
    process.stdout.write(JSON.stringify({ servername: req.socket.servername, url: req.url, headers: req.headers }) + '\\n');
    req.resume();
    // /echo answers with the headers it received, as a reflecting host would.
    res.end(req.url === '/echo' ? JSON.stringify(req.headers) + '\\n' : 'ok\\n');
  },
);
server.listen(Number(port), address, () => process.stdout.write('fixture ready port ' + server.address().port + '\\n'));
`;

/** @param {string} dir @param {string[]} args */
function openssl(dir, args) {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/**
 * Writes into `dir` the fixture's own CA (its key removed once it signed),
 * a leaf for `names`, and `server.mjs`; returns the CA's PEM.
 */
/**
 * @param {string} dir
 * @param {readonly string[]} names
 * @returns {string}
 */
export function fixtureCerts(dir, names) {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-days',
    '1',
    '-subj',
    '/CN=byretest fixture CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  openssl(dir, [
    'req',
    ...ec,
    '-subj',
    `/CN=${names[0] ?? ''}`,
    '-keyout',
    'fixture.key',
    '-out',
    'f.csr',
  ]);
  writeFileSync(
    path.join(dir, 'f.ext'),
    `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\n`,
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'f.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'f.ext',
    '-out',
    'fixture.crt',
  ]);
  rmSync(path.join(dir, 'ca.key'));
  for (const f of ['fixture.crt', 'fixture.key', 'ca.crt']) chmodSync(path.join(dir, f), 0o644);
  writeFileSync(path.join(dir, 'server.mjs'), FIXTURE_SERVER, { mode: 0o644 });
  return readFileSync(path.join(dir, 'ca.crt'), 'utf8');
}
