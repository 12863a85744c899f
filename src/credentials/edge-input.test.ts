// The edge's stdin encoder: the lines the edge process reads, and refusals
// that never quote the value.

import { describe, expect, it } from 'vitest';

import { encodeEdgeInput } from './edge-input.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n';
const SECRET = 'sk-live-0123456789';

const route = (name: string, port = 443) => ({
  host: { name, port },
  presentation: { kind: 'bearer' } as const,
  value: SECRET,
  cert: CERT,
  key: KEY,
});

const lines = (text: string): unknown[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

const TOKEN = Buffer.from(`x-access-token:${SECRET}`).toString('base64');

describe('encodeEdgeInput', () => {
  it('writes one route line per host:port with the presented header, then the end line', () => {
    const r = encodeEdgeInput({
      routes: [
        { ...route('api.example.com'), presentation: { kind: 'header', name: 'X-Api-Key' } },
        { ...route('github.com', 8443), presentation: { kind: 'basic', user: 'x-access-token' } },
      ],
    });
    if (!r.ok) throw new Error(r.problem);
    expect(r.text.endsWith('\n')).toBe(true);
    expect(lines(r.text)).toEqual([
      {
        'byre-edge': 1,
        route: {
          host: 'api.example.com',
          port: 443,
          header: { name: 'x-api-key', value: SECRET },
          conceal: [SECRET],
          cert: CERT,
          key: KEY,
        },
      },
      {
        'byre-edge': 1,
        route: {
          host: 'github.com',
          port: 8443,
          header: {
            name: 'authorization',
            value: `Basic ${TOKEN}`,
          },
          conceal: [SECRET, `Basic ${TOKEN}`, TOKEN],
          cert: CERT,
          key: KEY,
        },
      },
      { 'byre-edge': 1, end: true },
    ]);
  });

  it('adds the upstream CA line before the end line when given', () => {
    const r = encodeEdgeInput({ routes: [route('api.example.com')], upstreamCa: CERT });
    if (!r.ok) throw new Error(r.problem);
    expect(lines(r.text).slice(1)).toEqual([
      { 'byre-edge': 1, upstreamCa: CERT },
      { 'byre-edge': 1, end: true },
    ]);
  });

  it('writes a value with JSON specials so the edge reads it back whole, on one line', () => {
    const value = 'a"b\\c\u00e9';
    const r = encodeEdgeInput({ routes: [{ ...route('api.example.com'), value }] });
    if (!r.ok) throw new Error(r.problem);
    expect(r.text.trimEnd().split('\n')).toHaveLength(2);
    expect(lines(r.text)[0]).toMatchObject({ route: { header: { value: `Bearer ${value}` } } });
  });

  it.each([
    ['no route', { routes: [] }, 'no route'],
    ['a host:port twice', { routes: [route('a.example.com'), route('a.example.com')] }, 'twice'],
    ['a leaf that is not PEM', { routes: [{ ...route('a.example.com'), cert: 'x' }] }, 'not PEM'],
    ['a key that is not PEM', { routes: [{ ...route('a.example.com'), key: 'x' }] }, 'not PEM'],
    [
      'a value with a line break',
      { routes: [{ ...route('a.example.com'), value: `${SECRET}\nx: y` }] },
      'line break',
    ],
    ['an empty value', { routes: [{ ...route('a.example.com'), value: '' }] }, 'empty'],
    [
      'an upstream CA that is not PEM',
      { routes: [route('a.example.com')], upstreamCa: SECRET },
      'upstream CA',
    ],
  ])('refuses %s without quoting the value', (_, input, words) => {
    const r = encodeEdgeInput(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem).toContain(words);
    expect(r.problem).not.toContain(SECRET);
  });
});
