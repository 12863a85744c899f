// The cli tier drives dist/byre; fail fast and clearly when it was not built.
import { existsSync } from 'node:fs';

export default function setup(): void {
  if (!existsSync('dist/byre')) {
    throw new Error(
      'dist/byre is missing: the cli tier drives the built binary; run `npm run build`.',
    );
  }
}
