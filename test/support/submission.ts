import { createServer } from "node:net";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import type { AppContext } from "../../lib/context";

/** A free loopback port (the submission server's 0 means "off", so tests pick ports this way). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The test app's env for a submission server on two free ports. */
export async function submissionEnv(): Promise<{ env: Record<string, string>; port: number; tlsPort: number }> {
  const port = await freePort();
  const tlsPort = await freePort();
  return { env: { MAILROOM_SUBMISSION_PORT: String(port), MAILROOM_SUBMISSION_TLS_PORT: String(tlsPort) }, port, tlsPort };
}

/** Verifies the DKIM signature of a delivered copy against the domain's public key in the database. */
export async function verifyDkim(ctx: AppContext, accountId: string, raw: Buffer, domain = "example.com"): Promise<string | undefined> {
  const { rows } = await ctx.database.pool.query("SELECT dkim_public_key FROM sender_domains WHERE name = $1 AND account_id = $2", [domain, accountId]);
  const p = (rows[0].dkim_public_key as string).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const resolver = async (name: string, type: string) => {
    if (type === "TXT" && name === `mailroom._domainkey.${domain}`) return [[`v=DKIM1; k=rsa; p=${p}`]];
    throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
  };
  const dkim = await dkimVerify(raw, { resolver });
  return dkim.results[0]?.status.result;
}
