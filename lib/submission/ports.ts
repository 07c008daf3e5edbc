import type { Server } from "node:net";

/**
 * Default ports of the submission server: 587 (STARTTLS) and 465 (implicit
 * TLS), as mail clients expect. A process that may not bind them (not root,
 * EACCES) or finds them taken (a local Postfix) falls back to 2587 and
 * 2465, and runs without that listener (with a warning) when those are
 * taken too: the defaults never stop Mailroom from starting. A port set
 * explicitly is bound or the start fails; 0 turns a listener off
 * (docs/adr/0702).
 */

export const DEFAULT_PORTS = { starttls: [587, 2587], tls: [465, 2465] } as const;

const listenOnce = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });

const bound = (server: Server) => (server.address() as { port: number }).port;

/** Binds `server`; returns the port, or undefined when off or when no default port could be bound. */
export async function listenSubmission(
  server: Server,
  host: string,
  configured: number | undefined,
  defaults: readonly number[],
  warn: (message: string) => void,
): Promise<number | undefined> {
  if (configured === 0) return undefined;
  if (configured !== undefined) {
    await listenOnce(server, configured, host);
    return bound(server);
  }
  const failures: string[] = [];
  for (const port of defaults) {
    try {
      await listenOnce(server, port, host);
      return bound(server);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (!["EACCES", "EPERM", "EADDRINUSE"].includes(code)) throw err;
      failures.push(`${port} (${code})`);
    }
  }
  warn(`SMTP submission: no default port could be bound (${failures.join(", ")}); set the port explicitly to run this listener`);
  return undefined;
}
