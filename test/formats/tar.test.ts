/**
 * The tar reader on archives GNU tar wrote (test/fixtures/tar/README.md): GNU long names, PAX
 * paths, the ustar prefix and a base-256 size give the names and bytes GNU tar lists.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { SnowdbError } from '../../src/errors.js';
import { readTar } from '../../src/formats/tar.js';
import { fixturePath } from '../helpers/raster.js';

const LONG = `snow/readme_${'long'.repeat(28)}.txt`;
const members = async (name: string) =>
  readTar(await readFile(fixturePath(`tar/${name}`)), name).map((m) => [
    m.name,
    Buffer.from(m.data).toString(),
  ]);

describe('tar reader', () => {
  it('GNU long names and PAX paths name the file that follows them; the header members are not files', async () => {
    for (const name of ['gnu-longname.tar', 'pax-path.tar'])
      assert.deepEqual(await members(name), [
        [LONG, 'swe 123 mm\n'],
        ['short.txt', 'short\n'],
      ]);
  });

  it('a ustar prefix is joined to the name; a base-256 size reads as its number', async () => {
    assert.deepEqual(await members('ustar-prefix.tar'), [
      [`snow/${'basin_'.repeat(20)}deep/depth.txt`, 'depth 456 mm\n'],
    ]);
    assert.deepEqual(await members('base256-size.tar'), [['short.txt', 'short\n']]);
  });

  it('a damaged header and an archive cut inside a member are refused, naming the place', async () => {
    const tar = await readFile(fixturePath('tar/gnu-longname.tar'));
    const refused = (re: RegExp) => (e: unknown) =>
      SnowdbError.is(e) && e.key === 'invalid-source' && re.test(e.message);
    const bad = Buffer.from(tar);
    bad[1024 + 10] = 0x41; // a byte of the file's header name: its checksum no longer holds
    assert.throws(
      () => readTar(bad, 'x.tar'),
      refused(/^x\.tar: not a tar archive, or damaged at byte 1024 \(header checksum\)$/),
    );
    assert.throws(
      () => readTar(tar.subarray(0, 1024 + 512 + 5), 'cut.tar'),
      refused(new RegExp(`^cut\\.tar: truncated tar: member ${LONG} needs 11 bytes, 5 left$`)),
    );
  });
});
