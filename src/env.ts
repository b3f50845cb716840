/**
 * The names of every environment variable snowdb reads. They are read in one place,
 * `app/settings.ts` (`settingsFrom`), and the values passed down: no other module reads
 * `process.env`. Documented in docs/reference.md#environment.
 */
export const ENV = {
  /** The database directory or its snowdb.json (`--config` wins). */
  config: 'SNOWDB_CONFIG',
  /** Folder of the USGS 3DEP 1/3″ tiles (`<base>/<tile>/USGS_13_<tile>.tif`). */
  threeDepUrl: 'SNOWDB_3DEP_URL',
  /** The Annual NLCD land-cover zip. */
  nlcdUrl: 'SNOWDB_NLCD_URL',
  /** GitHub REST API base, for pourpoint sources on GitHub. */
  githubApiUrl: 'SNOWDB_GITHUB_API_URL',
  /** GitHub raw file base. */
  githubRawUrl: 'SNOWDB_GITHUB_RAW_URL',
  /** GitHub token: 5,000 API calls an hour instead of 60, and private repositories. */
  githubToken: 'GITHUB_TOKEN',
  /** Folder of the SNODAS year folders (NSIDC G02158 `masked/`). */
  snodasUrl: 'SNOWDB_SNODAS_URL',
  /** Folder of the UA SWANN water-year folders (`DailyData_800m/`). */
  swannUrl: 'SNOWDB_SWANN_URL',
  /** Folder of the SPIRES NRT tile folders (`SPIRES_NRT_V01/`). */
  spiresUrl: 'SNOWDB_SPIRES_URL',
  /** The AWDB REST API base (stations, forecasts), without `/services/v1`. */
  awdbUrl: 'SNOWDB_AWDB_URL',
  /** Least ms between two AWDB requests (default 250). */
  awdbIntervalMs: 'SNOWDB_AWDB_INTERVAL_MS',
  /** Largest AWDB answer read, MiB (default 64); its idle and total times are the fetch ones. */
  awdbMaxMb: 'SNOWDB_AWDB_MAX_MB',
  /** NASA Earthdata login token (bearer), sent to archives behind Earthdata login. */
  earthdataToken: 'EARTHDATA_TOKEN',
  /** Home folder: its `.netrc` gives archive logins per host. */
  home: 'HOME',
  /** Fetch tuning: retries per file (default 5), first backoff ms (1000), stall timeout ms (60000). */
  fetchRetries: 'SNOWDB_FETCH_RETRIES',
  fetchBackoffMs: 'SNOWDB_FETCH_BACKOFF_MS',
  fetchIdleMs: 'SNOWDB_FETCH_IDLE_MS',
  fetchFileS: 'SNOWDB_FETCH_FILE_S',
  /** Test hook: a pause (ms) between the steps of a date swap, so crash tests can kill inside it. */
  testSwapPauseMs: 'SNOWDB_TEST_SWAP_PAUSE_MS',
  /** Job queue: ms a worker's hold on a job lasts unrenewed (a dead worker's job is retried after it). */
  queueLockMs: 'SNOWDB_QUEUE_LOCK_MS',
  /** Job queue: ms an enqueuing command waits for an unreachable Redis before it gives up. */
  queueGraceMs: 'SNOWDB_QUEUE_GRACE_MS',
  /** Cache budgets in MiB by cache name, `name=MiB,…` (names and defaults: docs/reference.md#caches). */
  cacheMb: 'SNOWDB_CACHE_MB',
  threads: 'SNOWDB_THREADS',
  /** Replicas: seconds between asks for a newer published tree (default 60; 0 never asks). */
  replicaRefreshS: 'SNOWDB_REPLICA_REFRESH_S',
  /** An S3-compatible server (MinIO, Ceph…) for s3:// locations; the S3-only name wins. */
  s3Endpoint: 'AWS_ENDPOINT_URL',
  s3EndpointS3: 'AWS_ENDPOINT_URL_S3',
  /** The S3 region (default us-east-1); credentials are the AWS SDK's own chain. */
  awsRegion: 'AWS_REGION',
  awsDefaultRegion: 'AWS_DEFAULT_REGION',
} as const;
