/** Wait for Ctrl-C or SIGTERM, then run `close` (a server's or a worker's graceful stop) and resolve. */
export function untilStopped(close: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void close().then(() => resolve());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
