import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 hex of the concatenated bytes of files, in the order given, streamed 1 MiB at a time. */
export async function sha256Files(files: readonly string[]): Promise<string> {
  const h = createHash('sha256');
  for (const f of files) {
    for await (const chunk of createReadStream(f, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  }
  return h.digest('hex');
}
