import net from "node:net";
import nodemailer from "nodemailer";
import { createAccount, type CreatedAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase } from "../../lib/storage/database";
import { freePort, startAppProcess, waitFor, type Proc } from "./processes";

/**
 * Inbound mail against real app processes (fault tests): an app process
 * whose inbound SMTP server listens on a known port, an account with a
 * verified domain and a route to a URL, and a message sent to that port.
 */

export interface InboundAppProcess extends Proc {
  url: string;
  inboundPort: number;
}

/** An API-only app process on `databaseUrl` with its inbound SMTP server on `inboundPort` (default: a free port). */
export async function startInboundAppProcess(databaseUrl: string, env: Record<string, string> = {}, inboundPort?: number): Promise<InboundAppProcess> {
  const port = inboundPort ?? (await freePort());
  const proc = await startAppProcess({
    DATABASE_URL: databaseUrl,
    MAILROOM_INBOUND_PORT: String(port),
    MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true",
    MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000",
    ...env,
  });
  // /readyz answers once HTTP listens; the inbound SMTP server starts after it.
  await waitFor(`inbound SMTP on ${port}`, () => greets(port), 30_000);
  return { ...proc, inboundPort: port };
}

/** Whether an SMTP server on 127.0.0.1:`port` sends its 220 greeting. */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once("data", (d: Buffer) => done(d.toString().startsWith("220")));
    socket.once("error", () => done(false));
  });
}

/** An account with the verified domain `domain`, made in the database directly (no app process needed). */
export async function createInboundAccount(databaseUrl: string, domain: string): Promise<CreatedAccount> {
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    return await createAccount(database, { name: `Inbound ${domain}`, plan: "unlimited", domain, verified: true });
  } finally {
    await database.close();
  }
}

/** POST /inbound/routes through the app; the RouteID. */
export async function addInboundRoute(appUrl: string, apiKey: string, match: string, webhookUrl: string): Promise<number> {
  const res = await fetch(`${appUrl}/api/v1/inbound/routes`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ Match: match, WebhookURL: webhookUrl }),
  });
  const body = (await res.json()) as { RouteID?: number };
  if (res.status !== 200 || !body.RouteID) throw new Error(`POST /inbound/routes answered ${res.status}: ${JSON.stringify(body)}`);
  return body.RouteID;
}

/** Sends one message over SMTP to the inbound port on 127.0.0.1; the server's final answer (`250 …` when accepted). */
export async function sendToInbound(port: number, mail: nodemailer.SendMailOptions): Promise<string> {
  const t = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
  try {
    return (await t.sendMail(mail)).response;
  } finally {
    t.close();
  }
}
