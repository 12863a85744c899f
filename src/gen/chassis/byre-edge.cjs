// byre-edge: the per-box process that terminates TLS for injected hosts and
// adds their credential (adr/0070). byre bakes it root-owned into its own
// edge image (adr/0077) and runs it with that image's node (Debian's; Node 18
// or later, no dependency, no require outside node:) in a helper whose
// network namespace the box joins (adr/0079).
// It must never write a value anywhere: not to stdout, stderr, a file or an
// event; values live in this process's memory only.
// Over 500 lines: one self-contained file baked into the image; its sections
// (input, concealing, serving) share the route and event helpers.
//
// Usage: node byre-edge.cjs [--address A] --port P [--port P ...]
//          [--plain-port N] [--gate-port N] [--upstream-address A]
//   --address           where it listens (default 127.31.0.1, the box's host
//                       entries point injected names there)
//   --port              a TLS port to listen on (every injected host's port)
//   --plain-port        where plain HTTP is refused (default 80)
//   --gate-port         where it listens once ready (the box's edge gate,
//                       adr/0084: the box's launcher waits for a connection)
//   --upstream-address  tests only: connect upstream here instead of
//                       resolving the name (SNI and the certificate check
//                       still use the name)
// argv carries addresses and ports only, never a value.
//
// Order: bind every listener as root, drop to uid/gid 65534 (refusing to go
// on if that fails), then read stdin. Stdin, one JSON object a line
// (written by src/credentials/edge-input.ts, the one encoder):
//   {"byre-edge":1,"route":{"host":"api.x.com","port":443,
//     "header":{"name":"x-api-key","value":"..."},"conceal":["..."],
//     "cert":"<PEM>","key":"<PEM>"}}
//   {"byre-edge":1,"upstreamCa":"<PEM>"}   (tests only; at most once)
//   {"byre-edge":1,"end":true}             (the config is complete)
// Anything else, a route on a port not listened on, a name twice, or EOF
// before the end line: exit 2 with a message that quotes no input. byre
// holds stdin open for the session; its end after the end line (byre ended
// the session, or died) ends the edge: exit 0.
//
// Stdout, one line each: `byre-edge 1 ready` once listening, dropped and
// configured (and listening on the gate port); `byre-edge 1 refused
// <unix-seconds> <reason> <name|->`, reason plain-http, unknown-host,
// host-mismatch, upstream-unverified, reflected-secret (a response held the
// value; masked) or encoded-response (a body it could not check; answered
// 502), the name in the wall's escaped form (src/status/injection.ts reads
// these lines).

'use strict';

const { Transform } = require('node:stream');
const v8 = require('node:v8');

// Loaded when the edge starts, not at the top: node cannot keep these in a
// startup snapshot (see the end of this file).
let dns;
let http;
let net;
let https;
let tls;

const NOBODY = 65534;

/**
 * The edge's own TLS contexts (its servers' and its leaves') ask for no
 * client certificate, so they need no trust store: an empty one spares
 * parsing node's ~140 roots (~35 ms) before the ready line.
 */
const NO_CA = [];
const MAX_LINE = 1 << 20;
const MAX_NAME = 253;

/** Hop-by-hop headers: about one connection, never forwarded (RFC 9110). */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function fail(message, code = 2) {
  process.stderr.write(`byre-edge: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = {
    address: '127.31.0.1',
    ports: [],
    plainPort: 80,
    gatePort: null,
    upstreamAddress: null,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const val = argv[i + 1];
    if (val === undefined) fail(`${flag} needs a value`);
    if (flag === '--address') opts.address = val;
    else if (flag === '--upstream-address') opts.upstreamAddress = val;
    else if (flag === '--port' || flag === '--plain-port' || flag === '--gate-port') {
      if (!/^[1-9][0-9]{0,4}$/.test(val) || Number(val) > 65535) fail(`${flag}: not a port`);
      if (flag === '--port') opts.ports.push(Number(val));
      else if (flag === '--plain-port') opts.plainPort = Number(val);
      else opts.gatePort = Number(val);
    } else fail(`unknown argument ${JSON.stringify(flag).slice(0, 40)}`);
  }
  if (opts.ports.length === 0) fail('no --port given');
  return opts;
}

// ---------------------------------------------------------------------------
// Events.

/** An escaped name's room on a line: status drops event lines over 600 bytes. */
const MAX_ESCAPED = 540;

/**
 * A name in the wall's escaped form (adr/0064): [a-z0-9._-] kept, every
 * other byte \DDD, at most 255 octets, cut short to keep the line in bounds.
 */
function escapeName(name) {
  if (typeof name !== 'string' || name === '') return '-';
  const bytes = Buffer.from(name.toLowerCase(), 'utf8').subarray(0, 255);
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    const piece = /[a-z0-9._-]/.test(c) ? c : `\\${String(b).padStart(3, '0')}`;
    if (out.length + piece.length > MAX_ESCAPED) break;
    out += piece;
  }
  return out;
}

function refused(reason, name) {
  const now = Math.floor(Date.now() / 1000);
  process.stdout.write(`byre-edge 1 refused ${now} ${reason} ${escapeName(name)}\n`);
}

// ---------------------------------------------------------------------------
// Input.

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
const PEM = /^-----BEGIN [A-Z0-9 ]+-----\r?\n[\s\S]*-----END [A-Z0-9 ]+-----\r?\n?$/;
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A route lists at most this many forms of its value to conceal. */
const MAX_CONCEAL = 8;

/** One route from its line's object, or a reason (which never quotes the input). */
function readRoute(r, ports) {
  if (!isObject(r)) return 'a route is not an object';
  const keys = Object.keys(r).sort().join(',');
  if (keys !== 'cert,conceal,header,host,key,port') return 'a route has missing or unknown fields';
  if (typeof r.host !== 'string' || r.host.length > MAX_NAME || !DNS_NAME.test(r.host)) {
    return 'a route host is not a lowercase DNS name';
  }
  if (!Number.isInteger(r.port) || !ports.includes(r.port)) {
    return 'a route port is not one the edge listens on';
  }
  const h = r.header;
  if (!isObject(h) || Object.keys(h).sort().join(',') !== 'name,value') {
    return 'a route header is not {name, value}';
  }
  if (typeof h.name !== 'string' || !TOKEN.test(h.name) || HOP.has(h.name)) {
    return 'a route header name is not a lowercase token that may be set';
  }
  if (['host', 'content-length', 'proxy-authorization'].includes(h.name)) {
    return 'a route header name frames or routes the request';
  }
  if (typeof h.value !== 'string' || h.value === '' || !FIELD_VALUE.test(h.value)) {
    return 'a route header value is not a header field value';
  }
  const c = r.conceal;
  if (
    !Array.isArray(c) ||
    c.length === 0 ||
    c.length > MAX_CONCEAL ||
    c.some((f) => typeof f !== 'string' || f === '' || f.length > MAX_LINE / 8)
  ) {
    return 'a route conceal is not a list of the forms of its value';
  }
  if (typeof r.cert !== 'string' || !PEM.test(r.cert)) return 'a route cert is not PEM';
  if (typeof r.key !== 'string' || !PEM.test(r.key)) return 'a route key is not PEM';
  return {
    host: r.host,
    port: r.port,
    header: { name: h.name, value: h.value },
    conceal: needlesOf(c),
    cert: r.cert,
    key: r.key,
  };
}

/** Reads stdin to its end line; resolves { routes, upstreamCa } or exits. */
function readInput(ports) {
  return new Promise((resolve) => {
    const routes = new Map();
    let upstreamCa = null;
    let buf = '';
    let lineNo = 0;
    let done = false;
    const take = (line) => {
      lineNo += 1;
      if (done) fail(`input line ${lineNo}: nothing may follow the end line`);
      let o;
      try {
        o = JSON.parse(line);
      } catch {
        fail(`input line ${lineNo}: not JSON`);
      }
      if (!isObject(o) || o['byre-edge'] !== 1)
        fail(`input line ${lineNo}: not a byre-edge 1 line`);
      const kinds = Object.keys(o).filter((k) => k !== 'byre-edge');
      if (kinds.length !== 1) fail(`input line ${lineNo}: one of route, upstreamCa, end expected`);
      if (kinds[0] === 'route') {
        const route = readRoute(o.route, ports);
        if (typeof route === 'string') fail(`input line ${lineNo}: ${route}`);
        const where = `${route.host}:${route.port}`;
        if (routes.has(where)) fail(`input line ${lineNo}: ${where} is given twice`);
        routes.set(where, route);
      } else if (kinds[0] === 'upstreamCa') {
        if (upstreamCa !== null || typeof o.upstreamCa !== 'string' || !PEM.test(o.upstreamCa)) {
          fail(`input line ${lineNo}: the upstream CA is not one PEM text`);
        }
        upstreamCa = o.upstreamCa;
      } else if (kinds[0] === 'end' && o.end === true) {
        if (routes.size === 0) fail(`input line ${lineNo}: no route before the end line`);
        done = true;
        resolve({ routes, upstreamCa });
      } else fail(`input line ${lineNo}: one of route, upstreamCa, end expected`);
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        take(line);
      }
      if (buf.length > MAX_LINE) fail(`input line ${lineNo + 1}: longer than ${MAX_LINE} bytes`);
    });
    process.stdin.on('end', () => {
      if (buf !== '') fail(`input line ${lineNo + 1}: no line end`);
      if (!done) fail('input ended before the end line');
      // Configured: stdin's end is the session's (byre holds it open until
      // then, and a byre that dies closes it). Nothing else would end an
      // edge whose network namespace the box joins: the box's exit leaves
      // the namespace as it was.
      process.exit(0);
    });
    process.stdin.on('error', () => fail('stdin failed'));
  });
}

// ---------------------------------------------------------------------------
// Concealing: a response never carries the value back to the box. An
// upstream that reflects what it received (an echo service, an error that
// quotes the request) would otherwise show the box the secret. Every form of
// the value the route lists (the value, the header as presented, basic's
// token) is masked where a response holds it, byte for byte with '*', so
// every length still holds: in the status line and header values, in the
// body, and in an upgraded connection's bytes from upstream. Bodies are
// asked for and must come unencoded (gzip would hide a form), and a
// websocket is asked for without compression.

/** The byte a concealed form is overwritten with. */
const MASK = 0x2a;

/**
 * The forms as bytes: as UTF-8 (a body) and as Latin-1 (a header's bytes),
 * each once, longest first, so a form that holds another is masked whole
 * before the one inside it breaks it up.
 */
function needlesOf(forms) {
  const seen = new Set();
  const out = [];
  for (const f of forms) {
    for (const b of [Buffer.from(f, 'utf8'), Buffer.from(f, 'latin1')]) {
      const key = b.toString('hex');
      if (!seen.has(key)) {
        seen.add(key);
        out.push(b);
      }
    }
  }
  return out.sort((a, b) => b.length - a.length);
}

/** Masks every whole form in buf, in place; whether any was found. */
function maskAll(buf, needles) {
  let found = false;
  for (const n of needles) {
    for (let i = buf.indexOf(n); i !== -1; i = buf.indexOf(n, i + 1)) {
      buf.fill(MASK, i, i + n.length);
      found = true;
    }
  }
  return found;
}

/** The longest tail of buf that begins a form: it may end in the next chunk, so it waits for it. */
function openTail(buf, needles) {
  let hold = 0;
  for (const n of needles) {
    for (let k = Math.min(n.length - 1, buf.length); k > hold; k -= 1) {
      if (buf.compare(n, 0, k, buf.length - k, buf.length) === 0) {
        hold = k;
        break;
      }
    }
  }
  return hold;
}

/**
 * A stream that passes bytes with every form masked, holding back only a
 * tail that could begin one, so no form ever passes whole or in two parts.
 * `found` runs at each chunk that held one.
 */
function concealing(needles, found) {
  let carry = Buffer.alloc(0);
  return new Transform({
    transform(chunk, _enc, done) {
      let buf = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      // A chunk is copied only to be masked: most hold no form and pass as they came.
      if (needles.some((n) => buf.includes(n))) {
        if (buf === chunk) buf = Buffer.from(chunk);
        maskAll(buf, needles);
        found();
      }
      const hold = openTail(buf, needles);
      carry = Buffer.from(buf.subarray(buf.length - hold));
      done(null, buf.subarray(0, buf.length - hold));
    },
    // A tail that begins a form but never completed it is no form.
    flush(done) {
      done(null, carry);
    },
  });
}

/** A header value or status text with every form masked (header strings are Latin-1 bytes). */
function concealText(text, needles, found) {
  const buf = Buffer.from(String(text), 'latin1');
  if (!maskAll(buf, needles)) return text;
  found();
  return buf.toString('latin1');
}

/** Raw header pairs with every value concealed, less the hop-by-hop ones unless `keepHop`. */
function concealHeaders(rawHeaders, needles, found, keepHop) {
  const out = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (!keepHop && HOP.has(rawHeaders[i].toLowerCase())) continue;
    out.push(rawHeaders[i], concealText(rawHeaders[i + 1], needles, found));
  }
  return out;
}

/** An upstream answer's status line and header lines, concealed, for a raw socket. */
function concealedHead(ures, needles, found, keepHop) {
  let text = `HTTP/1.1 ${ures.statusCode} ${concealText(ures.statusMessage, needles, found)}\r\n`;
  const kept = concealHeaders(ures.rawHeaders, needles, found, keepHop);
  for (let i = 0; i + 1 < kept.length; i += 2) text += `${kept[i]}: ${kept[i + 1]}\r\n`;
  return text;
}

/** The answer to a body in a content coding (encodedBody): never the body. */
const ENCODED_REFUSAL =
  'byre-edge: the upstream answered in a content coding the edge cannot check for the credential\n';

/** Whether a response to this request has a body a content coding would hide. */
function encodedBody(method, ures) {
  const coding = String(ures.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (coding === '' || coding === 'identity') return false;
  return method !== 'HEAD' && ures.statusCode !== 204 && ures.statusCode !== 304;
}

// ---------------------------------------------------------------------------
// Serving.

function dropPrivilege() {
  try {
    process.setgroups([]);
    process.setgid(NOBODY);
    process.setuid(NOBODY);
  } catch (e) {
    fail(`cannot drop to uid/gid ${NOBODY} (${e.code ?? 'error'}); refusing to run`, 3);
  }
  // Node may list the primary gid among the groups; any other group, or any
  // id still not 65534, is a failed drop.
  const ids = [process.getuid(), process.geteuid(), process.getgid(), process.getegid()];
  if (ids.some((id) => id !== NOBODY) || process.getgroups().some((g) => g !== NOBODY)) {
    fail(`still not uid/gid ${NOBODY} after dropping; refusing to run`, 3);
  }
}

/** The Host header names this route exactly (its name, with its port or none for 443). */
function hostMatches(hostHeader, route) {
  if (typeof hostHeader !== 'string') return false;
  const h = hostHeader.toLowerCase();
  if (h === `${route.host}:${route.port}`) return true;
  return h === route.host && route.port === 443;
}

/** The request's headers, for upstream: hop-by-hop, the presented name and Proxy-Authorization gone, the one header added. */
function forwardHeaders(rawHeaders, route, upgrade) {
  const strip = new Set([route.header.name, 'proxy-authorization']);
  const named = new Set();
  const conn = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'connection') conn.push(...rawHeaders[i + 1].split(','));
  }
  for (const c of conn) named.add(c.trim().toLowerCase());
  const out = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (strip.has(name) || named.has(name) || HOP.has(name)) continue;
    (out[name] ??= []).push(rawHeaders[i + 1]);
  }
  out[route.header.name] = route.header.value;
  // What comes back is checked for the value (Concealing, above): unencoded.
  out['accept-encoding'] = 'identity';
  delete out['sec-websocket-extensions'];
  if (upgrade !== null) {
    out.connection = 'Upgrade';
    out.upgrade = upgrade;
  }
  return out;
}

const VERIFY_CODES = /CERT|SIGNATURE|ISSUER|ALTNAME|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME/;

/** Whether an upstream error is the certificate not verifying. */
function unverified(err) {
  return typeof err?.code === 'string' && VERIFY_CODES.test(err.code);
}

function plainResponse(res, status, text) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, {
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
}

function rawResponse(socket, status, text) {
  const reason = http.STATUS_CODES[status] ?? '';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/**
 * How the edge finds the real server: by DNS (the resolvers in
 * /etc/resolv.conf), never through /etc/hosts. The edge shares the box's
 * network namespace and, on docker and podman alike, the box's /etc/hosts,
 * whose entries point every injected name at the edge itself; getaddrinfo
 * would send each request back to its own listener.
 */
function dnsLookup(name, options, cb) {
  Promise.allSettled([dns.resolve4(name), dns.resolve6(name)]).then(([v4, v6]) => {
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ].filter(
      (a) => options?.family === undefined || options.family === 0 || a.family === options.family,
    );
    if (found.length === 0) {
      const err = new Error(`no DNS answer for ${name}`);
      err.code = 'ENOTFOUND';
      return cb(err);
    }
    if (options?.all) cb(null, found);
    else cb(null, found[0].address, found[0].family);
  });
}

/** The TLS context for a server name on a port, or undefined: set by serve() once the routes are read. */
let chooseContext = () => undefined;

function serve(tlsServers, plainServer, config, opts) {
  const { routes, upstreamCa } = config;
  const byName = new Map();
  for (const r of routes.values()) {
    if (!byName.has(r.host)) {
      byName.set(r.host, tls.createSecureContext({ cert: r.cert, key: r.key, ca: NO_CA }));
    }
  }
  // Upstream trust (node's roots, parsed once per process: ~35 ms) is made
  // on first use, never on the way to the ready line the box's gate waits for.
  let ca;
  const agentOf = (route) => {
    if (route.agent === undefined) {
      ca ??= upstreamCa === null ? undefined : [...tls.rootCertificates, upstreamCa];
      // Verification is never the environment's to turn off (NODE_TLS_REJECT_UNAUTHORIZED).
      route.agent = new https.Agent({
        keepAlive: true,
        ca,
        servername: route.host,
        rejectUnauthorized: true,
      });
    }
    return route.agent;
  };
  const lookup =
    opts.upstreamAddress === null
      ? dnsLookup
      : (_name, options, cb) =>
          options?.all
            ? cb(null, [
                {
                  address: opts.upstreamAddress,
                  family: opts.upstreamAddress.includes(':') ? 6 : 4,
                },
              ])
            : cb(null, opts.upstreamAddress, opts.upstreamAddress.includes(':') ? 6 : 4);

  /** What a response calls once if it held the value: one event, `reflected-secret`. */
  const reflected = (route) => {
    let told = false;
    return () => {
      if (!told) refused('reflected-secret', route.host);
      told = true;
    };
  };

  /** The route a request on this port for this TLS name is for, after checking Host and form. */
  const routeOf = (req, port) => {
    const name = String(req.socket.servername).toLowerCase();
    const route = routes.get(`${name}:${port}`);
    if (route === undefined) return { refuse: 'unknown-host', name };
    if (!req.url.startsWith('/') || !hostMatches(req.headers.host, route)) {
      return { refuse: 'host-mismatch', name };
    }
    return { route };
  };

  const upstreamOptions = (req, route, upgrade) => ({
    host: route.host,
    port: route.port,
    servername: route.host,
    method: req.method,
    path: req.url,
    headers: forwardHeaders(req.rawHeaders, route, upgrade),
    agent: agentOf(route),
    lookup,
  });

  for (const [port, server] of tlsServers) {
    server.on('request', (req, res) => {
      const r = routeOf(req, port);
      if (r.refuse !== undefined) {
        refused(r.refuse, r.name);
        req.resume();
        return plainResponse(res, 403, `byre-edge: refused (${r.refuse})\n`);
      }
      const up = https.request(upstreamOptions(req, r.route, null));
      up.on('response', (ures) => {
        const found = reflected(r.route);
        if (encodedBody(req.method, ures)) {
          refused('encoded-response', r.route.host);
          ures.resume();
          return plainResponse(res, 502, ENCODED_REFUSAL);
        }
        const { conceal } = r.route;
        const headers = concealHeaders(ures.rawHeaders, conceal, found, false);
        res.writeHead(ures.statusCode, concealText(ures.statusMessage, conceal, found), headers);
        const masked = concealing(conceal, found);
        ures.on('error', () => res.destroy());
        masked.on('error', () => res.destroy());
        ures.pipe(masked).pipe(res);
      });
      up.on('error', (err) => {
        if (unverified(err)) refused('upstream-unverified', r.route.host);
        req.resume();
        plainResponse(res, 502, 'byre-edge: the upstream could not be reached or did not verify\n');
      });
      req.pipe(up);
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
    });

    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      const r = routeOf(req, port);
      if (r.refuse !== undefined) {
        refused(r.refuse, r.name);
        return rawResponse(socket, 403, `byre-edge: refused (${r.refuse})\n`);
      }
      const up = https.request(upstreamOptions(req, r.route, req.headers.upgrade ?? ''));
      up.on('upgrade', (ures, usocket, uhead) => {
        usocket.on('error', () => socket.destroy());
        socket.on('close', () => usocket.destroy());
        usocket.on('close', () => socket.destroy());
        const found = reflected(r.route);
        socket.write(`${concealedHead(ures, r.route.conceal, found, true)}\r\n`);
        const masked = concealing(r.route.conceal, found);
        masked.on('error', () => socket.destroy());
        if (head.length > 0) usocket.write(head);
        masked.pipe(socket);
        if (uhead.length > 0) masked.write(uhead);
        usocket.pipe(masked);
        socket.pipe(usocket);
      });
      up.on('response', (ures) => {
        // Upstream declined the upgrade: pass its answer back and close.
        const found = reflected(r.route);
        if (encodedBody(req.method, ures)) {
          refused('encoded-response', r.route.host);
          ures.resume();
          return rawResponse(socket, 502, ENCODED_REFUSAL);
        }
        socket.write(
          `${concealedHead(ures, r.route.conceal, found, false)}connection: close\r\n\r\n`,
        );
        const masked = concealing(r.route.conceal, found);
        masked.on('error', () => socket.destroy());
        ures.pipe(masked).pipe(socket);
      });
      up.on('error', (err) => {
        if (unverified(err)) refused('upstream-unverified', r.route.host);
        rawResponse(
          socket,
          502,
          'byre-edge: the upstream could not be reached or did not verify\n',
        );
      });
      up.end();
    });
  }
  chooseContext = (name, port) => (routes.has(`${name}:${port}`) ? byName.get(name) : undefined);
  plainServer.on('request', (req, res) => {
    refused(
      'plain-http',
      typeof req.headers.host === 'string' ? req.headers.host.replace(/:[0-9]*$/, '') : '',
    );
    req.resume();
    plainResponse(res, 403, 'byre-edge: plain HTTP to an injected host is refused\n');
  });
  plainServer.on('upgrade', (req, socket) => {
    socket.on('error', () => socket.destroy());
    refused(
      'plain-http',
      typeof req.headers.host === 'string' ? req.headers.host.replace(/:[0-9]*$/, '') : '',
    );
    rawResponse(socket, 403, 'byre-edge: plain HTTP to an injected host is refused\n');
  });
}

function listen(server, port, address) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: address, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * The box's edge gate (adr/0084): a listener opened only now, with the
 * routes read, so a connection that succeeds says the edge is ready. It
 * answers nothing; each connection is closed at once.
 */
async function openGate(port, address) {
  const gate = net.createServer((socket) => socket.destroy());
  try {
    await listen(gate, port, address);
  } catch (e) {
    fail(`cannot listen on the gate port ${port} (${e.code ?? 'error'})`);
  }
  gate.on('error', () => undefined);
}

async function main(args) {
  dns = require('node:dns/promises');
  http = require('node:http');
  https = require('node:https');
  net = require('node:net');
  tls = require('node:tls');
  // As a container's PID 1 no signal has a default action: without these,
  // `rm -f` on podman waits out the stop timeout before it kills the edge.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
  const opts = parseArgs(args);
  const tlsServers = new Map();
  for (const port of new Set(opts.ports)) {
    const server = https.createServer({
      ca: NO_CA,
      ALPNProtocols: ['http/1.1'],
      minVersion: 'TLSv1.2',
      // The leaf for the exact name on this port; none before the routes are read.
      SNICallback: (name, cb) => {
        const ctx = chooseContext(String(name).toLowerCase(), port);
        if (ctx === undefined) cb(new Error('unknown-host'));
        else cb(null, ctx);
      },
    });
    // A refused name (or no name: no SNICallback runs, and no default
    // certificate exists) fails the handshake: nothing is decrypted.
    server.on('tlsClientError', (err, socket) => {
      const name = socket.servername;
      if (err?.message?.includes('unknown-host') || !name) refused('unknown-host', name || '');
      socket.destroy();
    });
    tlsServers.set(port, server);
  }
  const plainServer = http.createServer();
  try {
    for (const [port, server] of tlsServers) await listen(server, port, opts.address);
    await listen(plainServer, opts.plainPort, opts.address);
  } catch (e) {
    fail(`cannot listen on ${opts.address} (${e.code ?? 'error'})`);
  }
  dropPrivilege();
  const config = await readInput([...tlsServers.keys()]);
  serve(tlsServers, plainServer, config, opts);
  if (opts.gatePort !== null) await openGate(opts.gatePort, opts.address);
  process.stdout.write('byre-edge 1 ready\n');
  // The first request upstream then finds node's roots parsed.
  setImmediate(() => tls.createSecureContext());
}

// The edge image runs this file from a startup snapshot (`node
// --snapshot-blob`), built from it when the image is: node's own bootstrap
// and this file's top level are then restored, not run again, which takes
// ~35 ms off the way to the ready line. There node's argv has no script
// path (`node --snapshot-blob BLOB -- ARGS`); run directly, it has one.
if (v8.startupSnapshot?.isBuildingSnapshot()) {
  v8.startupSnapshot.setDeserializeMainFunction(() => main(process.argv.slice(1)));
} else {
  void main(process.argv.slice(2));
}
