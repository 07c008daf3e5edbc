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
import { DataDirError } from "../lib/storage/embedded";
import { startServer } from "../server";

const dev = process.argv.includes("--dev");

async function main() {
  const config = getConfig();
  if (!dev && config.dashboardEnabled && !existsSync(".next/BUILD_ID")) {
    console.log("No dashboard build found: running `next build` once (about a minute)...");
    const built = spawnSync("npx", ["next", "build"], { stdio: "inherit" });
    if (built.status !== 0) throw new Error("next build failed");
  }
  const server = await startServer({ config, dev });
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
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await server.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
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
