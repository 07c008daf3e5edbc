/**
 * V8 flags of Mailroom's long-running processes (docs/adr/0047): the app
 * (`npm start`, package.json) and the worker processes it forks (server.ts).
 *
 * A semi-space (half of V8's young generation) of 32 MB instead of V8's
 * 16 MB: each message allocates short-lived strings and buffers (the
 * composed copy, its DKIM canonical form, the SMTP and PostgreSQL protocol
 * buffers), and a larger young generation lets more of them die before a
 * scavenge copies them. Measured with `npm run bench:e2e`: 6–12% less CPU
 * per message in the worker processes, at most 48 MB more young generation
 * per process. package.json's `start` script repeats this list (a unit test
 * keeps the two the same); a worker started on its own (`npx mailroom
 * worker`) takes it from NODE_OPTIONS (README).
 */
export const NODE_HEAP_FLAGS: readonly string[] = ["--max-semi-space-size=32"];
