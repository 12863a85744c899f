// `npm run release`: byre for every platform in RELEASE_TARGETS, compiled
// exactly as `npm run build` compiles dist/byre (scripts/compile.ts), each
// embedding the bun runtime of its target. Runtimes come from the npm
// registry through npm itself and must match the integrity package-lock.json
// pins; an artifact whose header does not match its name fails the release.
// Writes <out>/byre-<os>-<arch>, <out>/install.sh and <out>/SHA256SUMS.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { compileByre } from './compile.js';
import { formatMismatch, HEADER_BYTES, readArtifactFormat } from './release/artifact-format.js';
import {
  lockedIntegrity,
  RELEASE_TARGETS,
  renderSums,
  type ReleaseTarget,
} from './release/targets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = path.resolve(arg('--out') ?? 'dist');
const cache = path.join(root, 'node_modules', '.cache', 'byre-release');
const bunVersion = (
  JSON.parse(readFileSync('node_modules/bun/package.json', 'utf8')) as { version: string }
).version;
const lock: unknown = JSON.parse(readFileSync('package-lock.json', 'utf8'));

function sha512(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The verified bun runtime for `t`, from the cache or fetched with `npm pack`. */
function runtimeFor(t: ReleaseTarget): string {
  const integrity = lockedIntegrity(lock, t.runtimePackage, bunVersion);
  const dir = path.join(cache, `${t.runtimePackage.replace('/', '+')}-${bunVersion}`);
  const bin = path.join(dir, 'bun');
  const stamp = path.join(dir, 'integrity');
  if (existsSync(bin) && existsSync(stamp) && readFileSync(stamp, 'utf8') === integrity) return bin;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(path.join(cache, '.fetch-'));
  try {
    const packed = JSON.parse(
      execFileSync(
        'npm',
        ['pack', `${t.runtimePackage}@${bunVersion}`, '--json', '--pack-destination', work],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      ),
    ) as { filename: string }[];
    const tgz = path.join(work, packed[0]?.filename ?? '');
    const got = sha512(tgz);
    if (got !== integrity) {
      throw new Error(
        `${t.runtimePackage}@${bunVersion}: integrity ${got} is not the locked ${integrity}`,
      );
    }
    execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/bin/bun'], { stdio: 'inherit' });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    renameSync(path.join(work, 'package', 'bin', 'bun'), bin);
    writeFileSync(stamp, integrity);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function checkFormat(file: string, t: ReleaseTarget): void {
  const head = readFileSync(file).subarray(0, HEADER_BYTES);
  const wrong = formatMismatch(readArtifactFormat(head), t.os, t.arch);
  if (wrong !== null) throw new Error(`${file} is ${wrong}`);
}

mkdirSync(out, { recursive: true });
const sums = new Map<string, string>();
for (const t of RELEASE_TARGETS) {
  const file = path.join(out, t.artifact);
  // A failed compile must not leave last release's file standing under this name.
  rmSync(file, { force: true });
  await compileByre({ outfile: file, target: t.bunTarget, executablePath: runtimeFor(t) });
  checkFormat(file, t);
  sums.set(t.artifact, sha256(file));
  process.stderr.write(`release: ${path.relative(root, file) || file}\n`);
}
copyFileSync('scripts/install.sh', path.join(out, 'install.sh'));
sums.set('install.sh', sha256(path.join(out, 'install.sh')));
writeFileSync(path.join(out, 'SHA256SUMS'), renderSums(sums));
process.stderr.write(`release: ${path.join(path.relative(root, out) || out, 'SHA256SUMS')}\n`);
