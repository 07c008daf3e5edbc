import type { Command } from "commander";
import { Counter, Registry } from "prom-client";
import { parseDuration } from "../../lib/config";
import { createLogger } from "../../lib/logger";
import { startQueue } from "../../lib/queue/boss";
import {
  bounceDestination,
  listQueues,
  QueueControlError,
  resumeDestination,
  retryNow,
  suspendDestination,
} from "../../lib/delivery/destinations/queue-control";
import { holdJson, queueRowJson, type QueueRow } from "../../lib/delivery/destinations/queue-view";
import type { CliContext } from "../database";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

function stateText(r: QueueRow): string {
  const hold = r.holds[0];
  const throttle = r.throttles[0];
  if (!hold && throttle) return `${r.state} to ${throttle.perMinute}/min until ${formatTime(throttle.endsAt)}`;
  if (!hold) return r.state;
  const until = hold.until ? ` until ${formatTime(hold.until)}` : "";
  return `${r.state}${r.holds.length > 1 ? ` (${r.holds.length} holds)` : ""}${until}${hold.source === "automatic" ? " (automatic)" : ""}`;
}

async function accountIdOf(cli: CliContext, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : (await resolveAccount(cli.database, ref)).id;
}

/** The errors of queue control are the operator's: printed as such. */
async function operatorErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof QueueControlError) throw new CliError(err.message);
    throw err;
  }
}

export function registerQueue(program: Command, app: CliApp): void {
  const queue = program.command("queue").description("delivery queues by destination: list, suspend, resume, retry-now, bounce (docs/delivery.md)");
  const accountOption = ["--account <account>", "only this account's mail (id or name)"] as const;

  withJson(queue.command("list"))
    .description("each destination with pending mail, a hold or a throttle: queued, in flight, deferred, state, attempts in the last minute, last replies")
    .action((opts: JsonOptions) =>
      app.run(async (cli) => {
        const rows = await listQueues(cli);
        emit(opts, rows.map(queueRowJson), () =>
          table(
            ["DESTINATION", "STATE", "QUEUED", "IN FLIGHT", "DEFERRED", "PER MIN", "NEXT TRY", "LAST REPLY"],
            rows.map((r) => [r.key, stateText(r), r.queued, r.inFlight, r.deferred, r.attemptsLastMinute, formatTime(r.nextAttemptAt), r.lastReplies[0] ?? r.holds[0]?.reason ?? r.throttles[0]?.reason ?? "-"]),
            "Nothing queued and no destination held",
          ),
        );
      }),
    );

  withJson(queue.command("suspend"))
    .description("hold a destination: no connection to it until resumed (or --for ends); its mail waits without spending attempts")
    .argument("<destination>", "a recipient domain, a provider name (gmail, outlook, yahoo, …) or relay")
    .option(...accountOption)
    .option("--for <duration>", "how long (30m, 2h, 1d); default: until resumed")
    .option("--reason <text>", "why (shown in queue list and on the dashboard)", "")
    .action((destination: string, opts: AccountOption & { for?: string; reason: string }) =>
      app.run(async (cli) => {
        let forMs: number | undefined;
        if (opts.for !== undefined) {
          forMs = parseDuration(opts.for);
          if (forMs === undefined || forMs <= 0) throw new CliError(`--for: "${opts.for}" is not a duration like 30m, 2h, 1d`);
        }
        const accountId = await accountIdOf(cli, opts.account);
        const hold = await operatorErrors(() => suspendDestination(cli, { key: destination, accountId, forMs, reason: opts.reason, placedBy: "cli" }));
        emit(opts, holdJson(hold), () => `Suspended ${hold.key}${accountId ? ` for account ${accountId}` : ""}${hold.until ? ` until ${formatTime(hold.until)}` : " until resumed"}`);
      }),
    );

  withJson(queue.command("resume"))
    .description("release a destination's holds (of one account with --account) and try its deferred mail now")
    .argument("<destination>", "the key the hold names")
    .option(...accountOption)
    .action((destination: string, opts: AccountOption) =>
      app.run(async (cli) => {
        const accountId = await accountIdOf(cli, opts.account);
        const released = await operatorErrors(() => resumeDestination(cli, destination, accountId));
        if (released.length === 0) throw new CliError(`${destination.trim().toLowerCase()} is not held${accountId ? ` for account ${accountId}` : ""}`);
        emit(opts, { released: released.map(holdJson) }, () => `Resumed ${released[0]!.key} (${released.length} hold${released.length === 1 ? "" : "s"} released)`);
      }),
    );

  withJson(queue.command("retry-now"))
    .description("make the deferred mail of a recipient domain (every domain: relay, in relay mode) due now")
    .argument("<destination>", "a recipient domain, or relay")
    .option(...accountOption)
    .action((destination: string, opts: AccountOption) =>
      app.run(async (cli) => {
        const accountId = await accountIdOf(cli, opts.account);
        const recipients = await operatorErrors(() => retryNow(cli, destination, accountId));
        emit(opts, { recipients }, () => `${recipients} deferred recipient${recipients === 1 ? "" : "s"} due now`);
      }),
    );

  withJson(queue.command("bounce"))
    .description("fail the pending mail of a recipient domain (every domain: relay, in relay mode): a failed event and notification each")
    .argument("<destination>", "a recipient domain, or relay")
    .option(...accountOption)
    .requiredOption("--reason <text>", "why (the failed events' reason)")
    .action((destination: string, opts: AccountOption & { reason: string }) =>
      app.run(async (cli) => {
        const accountId = await accountIdOf(cli, opts.account);
        const log = createLogger(process.env.LOG_LEVEL ?? "warn", { component: "cli" });
        // Counted by record-outcomes as every round's outcome; this process serves no /metrics.
        const registry = new Registry();
        const deliveries = new Counter({ name: "mailroom_deliveries_total", help: "-", labelNames: ["outcome"] as const, registers: [registry] });
        const webhookAttempts = new Counter({ name: "mailroom_webhook_attempts_total", help: "-", labelNames: ["result"] as const, registers: [registry] });
        // The final events' notifications are notify jobs: enqueued on pg-boss, in the outcome's transaction.
        const boss = await startQueue(cli.database.url, { max: 2 });
        try {
          const ctx = { database: cli.database, boss, log, metrics: { deliveries, webhookAttempts }, config: cli.config };
          const failed = await operatorErrors(() => bounceDestination(ctx, destination, opts.reason, accountId));
          emit(opts, { failed }, () => `${failed} recipient${failed === 1 ? "" : "s"} failed: ${opts.reason}`);
        } finally {
          await boss.stop({ graceful: false, wait: true }).catch(() => {});
        }
      }),
    );
}
