// Unit tier setup: regenerate src/generated/embedded.ts so tests that read
// bundled templates or chassis scripts see the checkout's current files.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/embed.mjs'], { stdio: 'inherit' });
}
