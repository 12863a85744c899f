import { describe, expect, it } from 'vitest';
import { imageListArgv } from './argv.js';
import { parseImageList } from './output.js';

describe('image listing', () => {
  it('builds the argv with sorted label filters', () => {
    expect(imageListArgv({ labels: { 'byre.project': 'p-123456' } })).toEqual([
      'images',
      '--no-trunc',
      '--format',
      '{{.ID}} {{.Repository}}:{{.Tag}}',
      '--filter',
      'label=byre.project=p-123456',
    ]);
  });

  it('parses docker and podman rows, dangling ones as null', () => {
    const hex = 'a'.repeat(64);
    expect(
      parseImageList(
        `sha256:${hex} byre-p-123456-u0-g0:latest\n${hex} localhost/x:1\nsha256:${hex} <none>:<none>\n\n`,
      ),
    ).toEqual([
      { id: `sha256:${hex}`, ref: 'byre-p-123456-u0-g0:latest' },
      { id: `sha256:${hex}`, ref: 'localhost/x:1' },
      { id: `sha256:${hex}`, ref: null },
    ]);
  });
});
