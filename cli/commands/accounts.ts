import { InvalidArgumentError, type Command } from "commander";
import {
  createAccount,
  rotateSigningKey,
  setAccountDailyCeiling,
  setAccountLimits,
  setAccountStatus,
  summarizeAccount,
  listAccounts,
  type AccountSummary,
} from "../../lib/domain/accounts/accounts";
import { setDefaultAccount } from "../../lib/domain/accounts/default-account";
import { resumeSending, setGuardrailOverrides } from "../../lib/domain/sending/guardrails/resume";
import { DomainError } from "../../lib/domain/shared/domain-error";
import type { Limits } from "../../lib/domain/accounts/plans";
import { dnsRecordsFor, findSenderDomain } from "../../lib/domain/accounts/sender-domains";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";
import { recordsTable } from "./domains";

export function formatLimits(l: Limits): string {
  const f = (n: number | null) => (n === null ? "∞" : String(n));
  return `${f(l.perMinute)}/min ${f(l.perHour)}/h ${f(l.perDay)}/day`;
}

function describeAccount(a: AccountSummary): string[] {
  return [
    `  id:       ${a.accountId}`,
    `  plan:     ${a.plan}${a.isDefault ? " (default account)" : ""}`,
    `  status:   ${a.status}`,
    `  limits:   ${formatLimits(a.limits)}`,
  ];
}

/** `plan` (back to the plan's limit) or a whole number. (Commander turns a parsed null into "", hence the word.) */
function limitValue(value: string): number | "plan" {
  if (/^(plan|default)$/i.test(value.trim())) return "plan";
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number ≥ 0, or "plan".');
  return Number(value);
}

type Limit = number | "plan";

/** A rate as the settings take it ("5%" or "0.05"), or "default" (the instance's). */
function rateValue(value: string): number | "default" {
  const v = value.trim();
  if (/^default$/i.test(v)) return "default";
  const percent = v.endsWith("%");
  const n = Number(percent ? v.slice(0, -1) : v) / (percent ? 100 : 1);
  if (v === "" || !(n > 0 && n <= 1)) throw new InvalidArgumentError('expected a rate like 5% or 0.05, or "default".');
  return n;
}

const guardrailErrors = async <T>(f: () => Promise<T>): Promise<T> => {
  try {
    return await f();
  } catch (err) {
    if (err instanceof DomainError) throw new CliError(err.message);
    throw err;
  }
};
const toOverride = (v: Limit | undefined) => (v === "plan" ? null : v);

export function registerAccounts(program: Command, app: CliApp): void {
  const accounts = program.command("accounts").description("create, list, suspend and limit accounts");

  withJson(accounts.command("create"))
    .description("create an account with an API key (shown once) and a webhook signing key")
    .requiredOption("--name <name>", "account name")
    .requiredOption("--plan <plan>", "trial, starter, business, growth or unlimited (see `mailroom plans`)")
    .option("--domain <domain>", "also add this sender domain")
    .option("--verified", "mark --domain verified without a DNS check (local use, tests)")
    .action((opts: JsonOptions & { name: string; plan: string; domain?: string; verified?: boolean }) =>
      app.run(async ({ database, config }) => {
        if (opts.verified && !opts.domain) throw new CliError("--verified needs --domain");
        // One transaction (createAccount's own): a bad --domain leaves no half-made account behind.
        const created = await createAccount(database, { name: opts.name, plan: opts.plan, domain: opts.domain, verified: opts.verified });
        const domain = opts.domain ? await findSenderDomain(database, created.accountId, opts.domain) : undefined;
        const records = domain ? dnsRecordsFor(domain, { bounceDomain: config.delivery.bounceDomain, heloName: config.delivery.heloName }) : undefined;
        emit(opts, { ...created, ...(records && { dnsRecords: records }) }, () => [
          `Created account ${created.name}`,
          ...describeAccount(created),
          `  API key (shown once, keep it now): ${created.apiKey}`,
          `  webhook signing key:               ${created.webhookSigningKey}`,
          ...(domain && records
            ? [
                `  sender domain: ${domain.name} (${domain.status})`,
                ...(domain.status === "verified"
                  ? []
                  : [
                      "",
                      `Publish these DNS records, then run \`mailroom domains verify --account ${created.accountId} ${domain.name}\`:`,
                      recordsTable(records),
                    ]),
              ]
            : []),
        ]);
      }),
    );

  withJson(accounts.command("list"))
    .description("list accounts")
    .action((opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const rows = await listAccounts(database);
        emit(opts, rows, () =>
          table(
            ["ID", "NAME", "PLAN", "STATUS", "LIMITS", "CREATED"],
            rows.map((a) => [a.accountId, a.name + (a.isDefault ? " *" : ""), a.plan, a.status, formatLimits(a.limits), formatTime(a.createdAt)]),
            "No accounts yet: create one with `mailroom accounts create --name NAME --plan PLAN`",
          ),
        );
      }),
    );

  withJson(accounts.command("show"))
    .description("show one account (id or name)")
    .argument("<account>", "account id or name")
    .action((ref: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const a = summarizeAccount(await resolveAccount(database, ref));
        emit(opts, a, () => [a.name, ...describeAccount(a)]);
      }),
    );

  for (const [verb, status] of [
    ["suspend", "suspended"],
    ["activate", "active"],
  ] as const) {
    withJson(accounts.command(verb))
      .description(
        verb === "suspend"
          ? "suspend an account: its API keys answer code 12 (Invalid user) until it is activated"
          : "activate a suspended account",
      )
      .argument("<account>", "account id or name")
      .action((ref: string, opts: JsonOptions) =>
        app.run(async ({ database }) => {
          const account = await resolveAccount(database, ref);
          const a = summarizeAccount(await setAccountStatus(database, account.id, status));
          emit(opts, a, () => `Account ${a.name} (${a.accountId}) is ${a.status}`);
        }),
      );
  }

  withJson(accounts.command("set-default"))
    .description("make an account the default one (the dashboard shows it; --account falls back to it)")
    .argument("<account>", "account id or name")
    .action((ref: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, ref);
        const a = summarizeAccount(await setDefaultAccount(database, account.id));
        emit(opts, a, () => `${a.name} (${a.accountId}) is now the default account`);
      }),
    );

  withJson(accounts.command("set-limits"))
    .description('override the plan\'s sending limits per API key ("plan" restores the plan\'s value)')
    .argument("<account>", "account id or name")
    .option("--per-minute <n>", "messages per minute", limitValue)
    .option("--per-hour <n>", "messages per hour", limitValue)
    .option("--per-day <n>", "messages per day", limitValue)
    .action((ref: string, opts: JsonOptions & { perMinute?: Limit; perHour?: Limit; perDay?: Limit }) =>
      app.run(async ({ database }) => {
        if (opts.perMinute === undefined && opts.perHour === undefined && opts.perDay === undefined) {
          throw new CliError("Give at least one of --per-minute, --per-hour, --per-day");
        }
        const account = await resolveAccount(database, ref);
        const a = summarizeAccount(
          await setAccountLimits(database, account.id, {
            perMinute: toOverride(opts.perMinute),
            perHour: toOverride(opts.perHour),
            perDay: toOverride(opts.perDay),
          }),
        );
        emit(opts, a, () => `Limits of ${a.name}: ${formatLimits(a.limits)}`);
      }),
    );

  withJson(accounts.command("set-daily-ceiling"))
    .description('emails a day the account may send, all its keys together (0: none; "default": MAILROOM_ACCOUNT_DAILY_LIMIT)')
    .argument("<account>", "account id or name")
    .argument("<n>", 'a whole number, or "default"', limitValue)
    .action((ref: string, perDay: Limit, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, ref);
        const a = await setAccountDailyCeiling(database, account.id, toOverride(perDay) ?? null);
        const value = a.accountLimitPerDay;
        emit(opts, { accountId: a.id, name: a.name, accountDailyLimit: value }, () =>
          value === null
            ? `Daily ceiling of ${a.name}: the instance's (MAILROOM_ACCOUNT_DAILY_LIMIT)`
            : `Daily ceiling of ${a.name}: ${value === 0 ? "none" : `${value} emails a day, all its keys together`}`,
        );
      }),
    );

  withJson(accounts.command("resume"))
    .description("resume the sending of an account the reputation guardrails paused (its rates count again from now)")
    .argument("<account>", "account id or name")
    .action((ref: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, ref);
        const row = await guardrailErrors(() => resumeSending(database, account.id, "cli"));
        emit(opts, { accountId: account.id, name: account.name, resumedAt: row.reputationResumedAt, resumedBy: row.reputationResumedBy }, () =>
          `Sending of ${account.name} (${account.id}) is resumed; its bounce and complaint rates count from now`,
        );
      }),
    );

  withJson(accounts.command("set-guardrails"))
    .description('the account\'s own reputation guardrails ("default": the instance\'s MAILROOM_PAUSE_* and MAILROOM_GUARDRAIL_MIN_VOLUME); warnings at half')
    .argument("<account>", "account id or name")
    .option("--pause-bounce-rate <rate>", "bounce rate that pauses sending, e.g. 5% or 0.05", rateValue)
    .option("--pause-complaint-rate <rate>", "complaint rate that pauses sending, e.g. 0.08%", rateValue)
    .option("--min-volume <n>", "sent recipients a window needs before its rates count", limitValue)
    .action((ref: string, opts: JsonOptions & { pauseBounceRate?: number | "default"; pauseComplaintRate?: number | "default"; minVolume?: Limit }) =>
      app.run(async ({ database }) => {
        if (opts.pauseBounceRate === undefined && opts.pauseComplaintRate === undefined && opts.minVolume === undefined) {
          throw new CliError("Give at least one of --pause-bounce-rate, --pause-complaint-rate, --min-volume");
        }
        const account = await resolveAccount(database, ref);
        const orDefault = <T>(v: T | "default" | "plan" | undefined) => (v === "default" || v === "plan" ? null : v);
        const row = await guardrailErrors(() =>
          setGuardrailOverrides(database, account.id, {
            pauseBounceRate: orDefault(opts.pauseBounceRate),
            pauseComplaintRate: orDefault(opts.pauseComplaintRate),
            minVolume: orDefault(opts.minVolume),
          }),
        );
        const shown = { pauseBounceRate: row.pauseBounceRate, pauseComplaintRate: row.pauseComplaintRate, minVolume: row.guardrailMinVolume };
        const f = (v: number | null, pct = true) => (v === null ? "the instance's" : pct ? `${Number((v * 100).toPrecision(3))}%` : String(v));
        emit(opts, { accountId: account.id, name: account.name, ...shown }, () =>
          `Guardrails of ${account.name}: pause bounce rate ${f(shown.pauseBounceRate)}, pause complaint rate ${f(shown.pauseComplaintRate)}, minimum volume ${f(shown.minVolume, false)}`,
        );
      }),
    );

  withJson(accounts.command("rotate-signing-key"))
    .description("replace the account's webhook signing key (notifications signed from now on use the new one)")
    .argument("<account>", "account id or name")
    .action((ref: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, ref);
        const webhookSigningKey = await rotateSigningKey(database, account.id);
        emit(opts, { accountId: account.id, webhookSigningKey }, () => [
          `New webhook signing key of ${account.name}:`,
          `  ${webhookSigningKey}`,
        ]);
      }),
    );
}
