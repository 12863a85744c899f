// `npm run build`: embed bundled packages, then compile the single executable.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync(process.execPath, ['scripts/embed.mjs'], { cwd: root, stdio: 'inherit' });
execFileSync('node_modules/.bin/bun', ['scripts/bun-build.ts'], { cwd: root, stdio: 'inherit' });
