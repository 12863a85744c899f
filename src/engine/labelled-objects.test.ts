import { describe, expect, it } from 'vitest';

import {
  imageListArgv,
  inspectImagesArgv,
  inspectVolumesArgv,
  manifestInspectArgv,
  storageInfoArgv,
  volumeListArgv,
} from './argv.js';
import { parseLabelledObjects, parseStorageInfo } from './output.js';

describe('doctor’s engine questions: argv', () => {
  it('filters on a label’s presence, after value filters, sorted', () => {
    expect(volumeListArgv({ hasLabels: ['byre.project'], labels: { a: '1' } })).toEqual([
      'volume',
      'ls',
      '-q',
      '--filter',
      'label=a=1',
      '--filter',
      'label=byre.project',
    ]);
    expect(imageListArgv({ hasLabels: ['z', 'byre.project'] }).slice(-4)).toEqual([
      '--filter',
      'label=byre.project',
      '--filter',
      'label=z',
    ]);
  });

  it('inspects volumes and images in one call each, as JSON rows', () => {
    expect(inspectVolumesArgv(['v1', 'v2'])).toEqual([
      'volume',
      'inspect',
      '-f',
      '[{{json .Name}},{{json .Labels}}]',
      'v1',
      'v2',
    ]);
    expect(inspectImagesArgv(['sha256:1'])).toEqual([
      'image',
      'inspect',
      '-f',
      '[{{json .ID}},{{json .Config.Labels}}]',
      'sha256:1',
    ]);
  });

  it.each([
    ['docker', '[{{json .DockerRootDir}},{{json .OperatingSystem}}]'],
    ['podman', '[{{json .Store.GraphRoot}},{{json .Host.ServiceIsRemote}}]'],
  ] as const)('asks %s where images live', (engine, format) => {
    expect(storageInfoArgv(engine)).toEqual(['info', '--format', format]);
  });

  it('asks the registry without pulling', () => {
    expect(manifestInspectArgv('debian:bookworm')).toEqual([
      'manifest',
      'inspect',
      'debian:bookworm',
    ]);
  });
});

describe('doctor’s engine answers: parsing', () => {
  const hex = 'b'.repeat(64);

  it('reads volume and image rows; null labels are none; podman’s bare image ids gain sha256:', () => {
    expect(
      parseLabelledObjects('["v1",{"byre.project":"p-123456"}]\n["v2",null]\n', 'volume'),
    ).toEqual([
      { id: 'v1', labels: { 'byre.project': 'p-123456' } },
      { id: 'v2', labels: {} },
    ]);
    expect(parseLabelledObjects(`["${hex}",{"a":"b"}]`, 'image')).toEqual([
      { id: `sha256:${hex}`, labels: { a: 'b' } },
    ]);
  });

  it.each(['not json', '["only-one"]', '[1,{}]', '["v",{"k":1}]', '["v",[]]'])(
    'refuses a malformed row %j',
    (row) => {
      expect(() => parseLabelledObjects(row, 'volume')).toThrow();
    },
  );

  it.each([
    [
      'docker',
      '["/var/lib/docker","Debian GNU/Linux 12 (bookworm)"]',
      { root: '/var/lib/docker', remote: false },
    ],
    ['docker', '["/var/lib/docker","Docker Desktop"]', { root: '/var/lib/docker', remote: true }],
    [
      'podman',
      '["/home/u/.local/share/containers/storage",false]',
      { root: '/home/u/.local/share/containers/storage', remote: false },
    ],
    [
      'podman',
      '["/var/lib/containers/storage",true]',
      { root: '/var/lib/containers/storage', remote: true },
    ],
  ] as const)('reads %s storage info %s', (engine, text, expected) => {
    expect(parseStorageInfo(engine, `${text}\n`)).toEqual(expected);
  });

  it('refuses storage info it does not understand', () => {
    expect(() => parseStorageInfo('docker', '"/var/lib/docker"')).toThrow(TypeError);
  });
});
