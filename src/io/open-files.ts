/**
 * Synchronous positional reads of local files, each opened once and kept open until `close`:
 * many small reads of a few files (a scan of one pack, a pack being written) pay one open each.
 */
import { closeSync, openSync, read, readSync } from 'node:fs';

export class OpenFiles {
  private readonly fds = new Map<string, number>();

  private fd(path: string): number {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, 'r');
      this.fds.set(path, fd);
    }
    return fd;
  }

  /** `length` bytes of `path` from byte `at`; fewer when the file ends first. */
  read(path: string, at: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    const got = readSync(this.fd(path), out, 0, length, at);
    return got === length ? out : out.subarray(0, got);
  }

  /**
   * As `read`, on the thread pool: several in flight overlap their waits on a cold disk (a few
   * tens of µs more each when the pages are cached).
   */
  readAsync(path: string, at: number, length: number): Promise<Buffer> {
    const out = Buffer.allocUnsafe(length);
    const fd = this.fd(path);
    return new Promise((resolve, reject) => {
      read(fd, out, 0, length, at, (e, got) => {
        if (e) reject(e);
        else resolve(got === length ? out : out.subarray(0, got));
      });
    });
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
