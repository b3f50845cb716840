import type { Command } from 'commander';
import { SnowdbError } from '../../errors.js';
import { checkRedis, queueName, shownUrl } from '../../queue/connection.js';
import { startWorker } from '../../queue/worker.js';
import type { Runner } from '../context.js';
import { untilStopped } from '../stop.js';

/** `worker`: run the jobs that `--queue` commands enqueue for this database, until stopped. */
export function registerWorker(program: Command, run: Runner): void {
  program
    .command('worker')
    .description(
      'run queued jobs (dataset fetch|ingest|generate-zones|rebuild-series --queue) for the configured database until Ctrl-C or SIGTERM; workers on several machines share the database folder',
    )
    .requiredOption('--queue <redis-url>', 'the Redis the jobs are queued on: redis://host:6379')
    .option('--concurrency <n>', 'jobs at once (1-64)', (v) => Number(v), 1)
    .action((opts: { queue: string; concurrency: number }, cmd: Command) =>
      run(cmd, async (ctx) => {
        if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1 || opts.concurrency > 64)
          throw new SnowdbError('usage-error', `--concurrency ${opts.concurrency}: expected an integer 1-64`);
        const db = await ctx.openDatabase();
        await checkRedis(opts.queue);
        const queue = queueName(db.root);
        const w = await startWorker(
          {
            url: opts.queue,
            queue,
            concurrency: opts.concurrency,
            lockMs: ctx.settings.queue.lockMs,
            log: (line) => ctx.out.info(`${new Date().toISOString()} ${line}`),
          },
          new URL('../queue-job.js', import.meta.url),
        );
        ctx.out.info(
          `snowdb worker on ${shownUrl(opts.queue)}, queue ${queue} (${db.root}), ${opts.concurrency} job(s) at once; Ctrl-C stops it after the running jobs`,
        );
        await untilStopped(() => w.close());
      }),
    );
}
