/**
 * The process's runtime, made once at the composition root (the CLI's context, which `api serve`
 * and `worker` run in) from the settings: its caches sized by SNOWDB_CACHE_MB, its worker pools
 * by SNOWDB_THREADS (util/runtime.ts). The database it opens carries it to every reader; `/status`
 * and the server's shutdown log report it.
 */
import { Runtime } from '../util/runtime.js';
import { cacheBudgetsFrom, type Settings, threadsFrom } from './settings.js';

/**
 * A runtime sized from the settings.
 * @throws SnowdbError `usage-error` for a malformed SNOWDB_CACHE_MB or SNOWDB_THREADS.
 */
export function runtimeFrom(s: Settings): Runtime {
  const threads = threadsFrom(s);
  return new Runtime({ cacheMib: cacheBudgetsFrom(s), ...(threads === undefined ? {} : { threads }) });
}
