import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { SnowdbError } from '../errors.js';
import { type Bucket, CACHE_CONTROL, type Caching, checkedRange, type Got, unreachable } from './bucket.js';

/** `s3://bucket/prefix` → bucket and prefix (no slashes at either end). */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (m === null) throw new SnowdbError('invalid-config', `${url}: not an s3://<bucket>/<prefix> location`);
  return { bucket: m[1]!, prefix: (m[2] ?? '').replace(/^\/+|\/+$/g, '') };
}

type Sdk = typeof import('@aws-sdk/client-s3');

/** Where S3 is: an S3-compatible server's URL (path-style addressing), the region. */
export interface S3Settings {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
}

/**
 * An S3 (or S3-compatible) bucket prefix through the AWS SDK. Credentials come from the SDK's
 * usual chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles); an
 * S3-compatible server (`settings.endpoint`) is addressed path-style.
 */
export class S3Bucket implements Bucket {
  private readonly bucket: string;
  private readonly prefix: string;
  private sdk: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(
    readonly url: string,
    private readonly settings: S3Settings = {},
  ) {
    ({ bucket: this.bucket, prefix: this.prefix } = parseS3Url(url));
  }

  /** The SDK is loaded on first use: it costs ~100 ms and most commands never touch S3. */
  private client(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.sdk ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { endpoint, region } = this.settings;
      const client = new sdk.S3Client({
        region: region ?? 'us-east-1',
        ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
        // S3-compatible servers do not all take the SDK's default trailing checksums.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    });
    return this.sdk;
  }

  private key(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  /** Run one SDK call; a missing object is null, 304 'unchanged', anything else storage-unreachable. */
  private async call<T>(
    key: string,
    run: (c: { sdk: Sdk; client: S3Client }) => Promise<T>,
  ): Promise<T | null | 'unchanged'> {
    try {
      return await run(await this.client());
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const name = (e as { name?: string }).name;
      if (status === 304) return 'unchanged';
      if (status === 404 || name === 'NoSuchKey' || name === 'NotFound') return null;
      throw unreachable(
        `s3://${this.bucket}/${this.key(key)}`,
        `${name ?? 'error'}: ${(e as Error).message}`,
        e,
      );
    }
  }

  async get(key: string, etag?: string | null): Promise<Got | null | 'unchanged'> {
    return this.call(key, async ({ sdk, client }) => {
      const r = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          ...(etag ? { IfNoneMatch: etag } : {}),
        }),
      );
      return { bytes: Buffer.from(await r.Body!.transformToByteArray()), etag: r.ETag ?? null };
    });
  }

  async range(key: string, offset: number, length: number): Promise<Uint8Array> {
    const r = await this.call(key, async ({ sdk, client }) => {
      const o = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Range: `bytes=${offset}-${offset + length - 1}`,
        }),
      );
      return { bytes: await o.Body!.transformToByteArray(), contentRange: o.ContentRange };
    });
    const url = `s3://${this.bucket}/${this.key(key)}`;
    if (r === null || r === 'unchanged') throw unreachable(url, 'object missing');
    return checkedRange(url, r.bytes, offset, length, r.contentRange);
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const strip = this.prefix === '' ? 0 : this.prefix.length + 1;
    let token: string | undefined;
    do {
      const page = await this.call(prefix, ({ sdk, client }) =>
        client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: `${this.key(prefix)}/`,
            ContinuationToken: token,
          }),
        ),
      );
      if (page === null || page === 'unchanged') break;
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(strip));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async put(key: string, bytes: Uint8Array, caching: Caching): Promise<void> {
    await this.call(key, ({ sdk, client }) =>
      client.send(
        new sdk.PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Body: bytes,
          CacheControl: CACHE_CONTROL[caching],
        }),
      ),
    );
  }

  async putFile(key: string, file: string, caching: Caching): Promise<void> {
    const { size } = await stat(file);
    await this.call(key, ({ sdk, client }) =>
      client.send(
        new sdk.PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Body: createReadStream(file),
          ContentLength: size,
          CacheControl: CACHE_CONTROL[caching],
        }),
      ),
    );
  }

  async delete(key: string): Promise<void> {
    await this.call(key, ({ sdk, client }) =>
      client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) })),
    );
  }
}
