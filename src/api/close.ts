import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often a closing server looks for connections it may drop, ms. */
const SWEEP_MS = 50;

/**
 * Make the app's close end right after its last answer. Fastify stops accepting and Node closes
 * the connections idle at that moment, then waits for the rest. Two kinds would hold it for a
 * minute or more: a keep-alive connection that was answering and falls idle afterwards (Node
 * checks only once; it would wait out keepAliveTimeout, 72 s), and one opened but never used
 * (a browser's preconnect, a client pool's spare: Node 20 counts it as a request begun and waits
 * for headersTimeout, 60–90 s). Until the server has closed, both are dropped as they appear;
 * a request being received or answered is never cut (each is bounded by its own time limit).
 */
export function closePromptly(app: FastifyInstance): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    if (!app.server.listening) return done();
    const sweep = () => {
      app.server.closeIdleConnections();
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy(); // nothing asked yet
    };
    sweep();
    const timer = setInterval(sweep, SWEEP_MS).unref();
    app.server.once('close', () => clearInterval(timer));
    done();
  });
}
