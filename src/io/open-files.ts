/**
 * Synchronous positional reads of local files, each opened once and kept open until `close`:
 * many small reads of a few files (a scan of one pack, a pack being written) pay one open each.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export class OpenFiles {
  private readonly fds = new Map<string, number>();

  /** `length` bytes of `path` from byte `at`; fewer when the file ends first. */
  read(path: string, at: number, length: number): Buffer {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, 'r');
      this.fds.set(path, fd);
    }
    const out = Buffer.allocUnsafe(length);
    const got = readSync(fd, out, 0, length, at);
    return got === length ? out : out.subarray(0, got);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
