/**
 * AWDB's `GET /data` answer: the client's plain shape check (the fast path for tens of thousands of
 * values) accepts what the zod schema accepts and nothing else. A loopback server answers a fixed
 * body; each one-field mutation must be refused with zod's message naming the field.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { JSON_BOUNDS } from '../../src/io/bounded.js';
import { AwdbClient } from '../../src/stations/awdb.js';

// biome-ignore lint/suspicious/noExplicitAny: an answer body, mutated field by field
type Json = any;

const VALUES = [
  { date: '2025-01-01', value: 10.5, qcFlag: 'V', qaFlag: 'P', median: 9 },
  { date: '2025-01-02', value: null, qcFlag: null, qaFlag: 'P', median: null, average: 8.25 },
  { year: 2025, month: 1, monthPart: '1st', collectionDate: '2025-01-14', value: 22 },
];
const BODY = [
  {
    stationTriplet: '1098:UT:SNTL',
    data: [
      {
        stationElement: { elementCode: 'WTEQ', ordinal: 1, heightDepth: null, storedUnitCode: 'in' },
        values: VALUES,
      },
      { stationElement: { elementCode: 'SNWD', durationName: 'DAILY' }, values: [] },
    ],
  },
  { stationTriplet: '1099:UT:SNTL', data: [] },
];

describe('AWDB data answers: the plain check and the schema agree', () => {
  let server: Server;
  let body = '';
  let client: AwdbClient;
  before(async () => {
    server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    client = new AwdbClient({
      url: `http://127.0.0.1:${port}`,
      retries: 0,
      backoffMs: 1,
      minIntervalMs: 0,
      bounds: JSON_BOUNDS,
    });
  });
  after(() => new Promise<void>((ok) => server.close(() => ok())));
  const data = () =>
    client.data({
      triplets: ['1098:UT:SNTL'],
      elements: ['WTEQ'],
      duration: 'DAILY',
      begin: '2025-01-01',
      end: '2025-01-02',
    });

  it('returns every field of a documented answer, and tolerates keys it does not read', async () => {
    body = JSON.stringify(BODY);
    assert.deepEqual(await data(), BODY);
    const extra: Json = structuredClone(BODY);
    extra[0].data[0].values[0].unitCode = 'in';
    extra[0].note = 'x';
    body = JSON.stringify(extra);
    const got: Json = await data();
    assert.equal(got[0].data[0].values[0].value, 10.5);
    assert.equal(got[0].data[0].stationElement.storedUnitCode, 'in');
  });

  it('refuses each broken field, naming it as the schema does', async () => {
    const broken: [string, (b: Json) => unknown][] = [
      ['the top', (b) => ({ stations: b })],
      ['0.stationTriplet', (b) => (b[0].stationTriplet = 1098)],
      ['0.data', (b) => (b[0].data = null)],
      ['1.data', (b) => delete b[1].data],
      ['0.data.0.stationElement', (b) => (b[0].data[0].stationElement = 'WTEQ')],
      ['0.data.0.stationElement.elementCode', (b) => (b[0].data[0].stationElement.elementCode = null)],
      ['0.data.0.stationElement.ordinal', (b) => (b[0].data[0].stationElement.ordinal = '1')],
      ['0.data.0.stationElement.storedUnitCode', (b) => (b[0].data[0].stationElement.storedUnitCode = 2)],
      ['0.data.1.stationElement.durationName', (b) => (b[0].data[1].stationElement.durationName = [])],
      ['0.data.0.values', (b) => (b[0].data[0].values = {})],
      ['0.data.0.values.0', (b) => (b[0].data[0].values[0] = 10.5)],
      ['0.data.0.values.0.value', (b) => (b[0].data[0].values[0].value = '10.5')],
      ['0.data.0.values.1.average', (b) => (b[0].data[0].values[1].average = true)],
      ['0.data.0.values.0.median', (b) => (b[0].data[0].values[0].median = {})],
      ['0.data.0.values.2.year', (b) => (b[0].data[0].values[2].year = '2025')],
      ['0.data.0.values.2.month', (b) => (b[0].data[0].values[2].month = [1])],
      ['0.data.0.values.0.date', (b) => (b[0].data[0].values[0].date = 20250101)],
      ['0.data.0.values.2.monthPart', (b) => (b[0].data[0].values[2].monthPart = 1)],
      ['0.data.0.values.2.collectionDate', (b) => (b[0].data[0].values[2].collectionDate = false)],
      ['0.data.0.values.0.qcFlag', (b) => (b[0].data[0].values[0].qcFlag = 0)],
      ['0.data.0.values.1.qaFlag', (b) => (b[0].data[0].values[1].qaFlag = 0)],
    ];
    for (const [path, mutate] of broken) {
      const b: Json = structuredClone(BODY);
      const whole = mutate(b);
      body = JSON.stringify(path === 'the top' ? whole : b);
      await assert.rejects(data(), (e: Error) => {
        assert.match(
          e.message,
          new RegExp(`not the documented shape at ${path.replaceAll('.', '\\.')}:`),
          path,
        );
        return true;
      });
    }
  });
});
