/**
 * `npm start`: builds the dashboard when no build exists, then runs
 * server.ts in this process and prints what a newcomer needs.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { ConfigError, getConfig } from "../lib/config";
import { markFirstStartCredentialsShown } from "../lib/domain/staff/bootstrap";
import { AuthSecretError } from "../lib/domain/staff/dashboard-auth-secret";
import { PortError } from "../lib/listen-ports";
import { createCleanStop, watchParent } from "../lib/clean-stop";
import { DataDirError, stopOwnPostmaster } from "../lib/storage/embedded";
import { startServer } from "../server";

const dev = process.argv.includes("--dev");

/**
 * The bound of a stop (docs/adr/0052): HTTP drains for 10 s, the workers get
 * 30 s to finish or release their jobs, PostgreSQL's fast shutdown takes
 * seconds; past this, the postmaster is killed and the process exits.
 */
const STOP_BOUND_MS = 50_000;

async function main() {
  const config = getConfig();
  // Before anything starts: a signal during the start (the workers take seconds) stops what started, never leaves it behind.
  const cleanStop = createCleanStop({
    boundMs: STOP_BOUND_MS,
    lastResort: () => (config.databaseUrl ? Promise.resolve() : stopOwnPostmaster(config.dataDir)),
    exit: (code) => process.exit(code),
    log: (line) => console.log(line),
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => cleanStop.request(signal));
  // npm (or whatever started us) gone without passing a signal on: stop too, rather than run as an orphan holding the ports.
  watchParent(() => process.ppid, () => cleanStop.request("the parent process is gone"), (check) => setInterval(check, 1000).unref());
  try {
    await run(config, cleanStop);
  } catch (err) {
    console.error(startFailure(err));
    await cleanStop.startFailed(1);
  }
}

async function run(config: ReturnType<typeof getConfig>, cleanStop: ReturnType<typeof createCleanStop>) {
  if (!dev && config.dashboardEnabled && !existsSync(".next/BUILD_ID")) {
    console.log("No dashboard build found: running `next build` once (about a minute)...");
    const built = spawnSync("npx", ["next", "build"], { stdio: "inherit" });
    if (built.status !== 0) throw new Error("next build failed");
  }
  const server = await startServer({ config, dev });
  cleanStop.started(server.stop);
  if (cleanStop.requested()) return;
  console.log(`Mailroom is running at ${server.ctx.publicUrl} (listening on ${server.url})`);
  const demo = server.firstStart?.demo;
  const notSignedIn = server.firstStart?.adminNotSignedIn;
  if (demo && !config.quietStart) {
    console.log(
      [
        "",
        demo.reissued
          ? `The first start created the ${demo.accountName} account but stopped before showing its credentials: here are new ones (the unseen API key is revoked).`
          : `First start: created the ${demo.accountName} account (the default) with the verified sender domain ${demo.domain}.`,
        `  API key (shown once):   ${demo.apiKey}`,
        ...(demo.adminEmail ? [`  Dashboard admin:        ${demo.adminEmail} / ${demo.adminPassword} (shown once; sign in at ${server.ctx.publicUrl}/login)`] : []),
        "  Manage accounts, keys, domains and users with `npx mailroom --help`.",
        "",
        "Send a message:",
        `  curl -X POST ${server.ctx.publicUrl}/api/v1/email \\`,
        `    -H 'Authorization: Bearer ${demo.apiKey}' -H 'Content-Type: application/json' \\`,
        `    -d '{"From":{"name":"Demo","email":"hello@example.com"},"To":[{"name":"Ann","email":"ann@example.org"}],"Subject":"Hello","ContentType":"HTML","HTMLContent":"<p>Hello from Mailroom</p>"}'`,
        "",
      ].join("\n"),
    );
    // Shown: later starts only remind how to get in (docs/adr/0203). If this fails, the next start issues new ones.
    await markFirstStartCredentialsShown(server.ctx.database).catch(() => {});
  } else if (notSignedIn && !config.quietStart) {
    console.log(
      [
        "",
        `The dashboard admin ${notSignedIn.email} has not signed in yet: sign in at ${server.ctx.publicUrl}/login with the password the first start printed.`,
        `  Lost it? \`npx mailroom users set-password ${notSignedIn.email}\` prints a new one; \`npx mailroom keys create --label demo\` prints a new API key.`,
        "",
      ].join("\n"),
    );
  }
}

/** One line for the operator: what failed and what to do. Never a stack trace. */
function startFailure(err: unknown): string {
  if (err instanceof ConfigError || err instanceof DataDirError || err instanceof PortError || err instanceof AuthSecretError) return err.message;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.syscall === "listen" && e.code === "EADDRINUSE") {
    // Taken between the port check (lib/listen-ports.ts) and the listen.
    return `Mailroom could not start: ${e.address ?? ""}:${e.port ?? ""} is already in use (another Mailroom or another program). Stop it, or set the variable of that port (PORT, MAILROOM_INBOUND_PORT, MAILROOM_SUBMISSION_PORT, MAILROOM_SUBMISSION_TLS_PORT, MAILROOM_SANDBOX_PORT) to a free port.`;
  }
  if (e?.syscall === "listen" && (e.code === "EACCES" || e.code === "EPERM")) {
    return `Mailroom could not start: no permission to listen on ${e.address ?? ""}:${e.port ?? ""} (ports below 1024 need root). Set PORT to 1024 or above.`;
  }
  return `Mailroom could not start: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
}

main().catch((err: unknown) => {
  console.error(startFailure(err));
  process.exit(1);
});
