import type { Command } from "commander";
import nodemailer from "nodemailer";
import { isValidEmail } from "../../lib/contract/text";
import { listSenderDomains } from "../../lib/domain/accounts/sender-domains";
import { DEFAULT_PORTS } from "../../lib/submission/ports";
import { CliError, emit } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, wholeNumber, type CliApp, type JsonOptions } from "../runner";

type Options = JsonOptions & {
  to: string;
  from?: string;
  key?: string;
  account?: string;
  host?: string;
  port?: number;
  tls?: boolean;
  verifyCertificate?: boolean;
};

/**
 * `mailroom smtp-test --to ADDRESS`: one test message through the running
 * server's SMTP submission port (docs/smtp.md), authenticated with an API
 * key, as a mail client would send it. Prints the server's reply (with the
 * MessageID to look up in GET /events or the dashboard).
 */
export function registerSmtpTest(program: Command, app: CliApp): void {
  withJson(program.command("smtp-test"))
    .description("send a test message through the SMTP submission port of the running server")
    .requiredOption("--to <address>", "recipient")
    .option("--from <address>", "sender (default: mailroom-test@ the account's first verified domain)")
    .option("--key <apiKey>", "API key used as the SMTP password (default: MAILROOM_API_KEY)")
    .option("--account <account>", "account whose verified domain gives the default sender (default: the default account)")
    .option("--host <host>", "submission host (default: MAILROOM_SUBMISSION_HOST)")
    .option("--port <port>", "port (default: MAILROOM_SUBMISSION_PORT, else 587 then 2587; with --tls 465 then 2465)", wholeNumber)
    .option("--tls", "implicit TLS (the 465 port) instead of STARTTLS")
    .option("--verify-certificate", "refuse a certificate that does not verify (default: accept the self-signed one)")
    .action(async (opts: Options) => {
      const config = app.config();
      const key = opts.key ?? config.dashboard.apiKey;
      if (!key) throw new CliError("Give the API key with --key, or set MAILROOM_API_KEY (create one with `mailroom keys create`)");
      if (!isValidEmail(opts.to)) throw new CliError(`--to: "${opts.to}" is not an email address`);
      const from = opts.from ?? (await defaultSender(app, opts.account));
      const configured = opts.tls ? config.submission.tlsPort : config.submission.port;
      const ports = opts.port !== undefined ? [opts.port] : configured ? [configured] : [...(opts.tls ? DEFAULT_PORTS.tls : DEFAULT_PORTS.starttls)];
      const host = opts.host ?? (["0.0.0.0", "::"].includes(config.submission.host) ? "127.0.0.1" : config.submission.host);

      let lastError: unknown;
      for (const port of ports) {
        const transport = nodemailer.createTransport({
          host,
          port,
          secure: Boolean(opts.tls),
          requireTLS: !opts.tls,
          auth: { user: "apikey", pass: key },
          tls: { rejectUnauthorized: Boolean(opts.verifyCertificate) },
          connectionTimeout: 10_000,
        });
        try {
          const info = await transport.sendMail({
            from,
            to: opts.to,
            subject: "Mailroom SMTP test",
            text: `This message was sent with \`mailroom smtp-test\` through ${host}:${port} (${opts.tls ? "implicit TLS" : "STARTTLS"}).`,
          });
          const messageId = /OK ([0-9a-f-]{36})$/.exec(info.response)?.[1] ?? null;
          emit(opts, { host, port, tls: opts.tls ? "implicit" : "starttls", from, to: opts.to, response: info.response, messageId }, () => [
            `Sent through ${host}:${port} (${opts.tls ? "implicit TLS" : "STARTTLS"}) from ${from} to ${opts.to}.`,
            `  Server reply: ${info.response}`,
          ]);
          return;
        } catch (err) {
          lastError = err;
          // Only a port nobody listens on moves to the next default; any SMTP refusal is the answer.
          if ((err as { code?: string }).code !== "ESOCKET" || !/ECONNREFUSED/.test(String((err as Error).message))) break;
        } finally {
          transport.close();
        }
      }
      const e = lastError as { response?: string; message?: string };
      throw new CliError(`The SMTP test failed on ${host}:${ports.join(" or ")}: ${e?.response ?? e?.message ?? String(lastError)}`);
    });
}

async function defaultSender(app: CliApp, accountRef: string | undefined): Promise<string> {
  return app.run(async ({ database }) => {
    const account = await resolveAccount(database, accountRef);
    const domain = (await listSenderDomains(database, account.id)).find((d) => d.status === "verified");
    if (!domain) throw new CliError(`${account.name} has no verified sender domain: give --from, or verify one with \`mailroom domains verify\``);
    return `mailroom-test@${domain.name}`;
  });
}
