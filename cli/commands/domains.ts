import type { Command } from "commander";
import type { Config } from "../../lib/config";
import type { Database } from "../../lib/storage/database";
import {
  addDomain,
  checkDomain,
  deleteDomain,
  domainDepsFrom,
  getDomain,
  listDomains,
  rotateDkim,
  setTrackingDomain,
  type DomainDeps,
  type DomainView,
} from "../../lib/domain/accounts/domain-operations";
import { markDomainVerified, normalizeDomainName, type DnsRecord } from "../../lib/domain/accounts/sender-domains";
import { lookupOn } from "../../lib/net/dns-resolver";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };
type DnsOption = { dnsServer?: string };

export function recordsTable(records: DnsRecord[]): string {
  return table(
    ["PURPOSE", "TYPE", "NAME", "VALUE"],
    records.map((r) => [r.purpose, r.type, r.name, r.value]),
  );
}

function domainJson({ row: d, records, checks }: DomainView) {
  return {
    id: d.id,
    accountId: d.accountId,
    name: d.name,
    status: d.status,
    createdAt: d.createdAt.toISOString(),
    verifiedAt: d.verifiedAt?.toISOString() ?? null,
    dnsRecords: records,
    checks,
    checkedAt: d.checkedAt?.toISOString() ?? null,
    dkimSelector: d.dkimSelector,
    dkimNextSelector: d.dkimNextSelector,
    trackingDomain: d.trackingDomain,
    trackingVerified: d.trackingVerifiedAt !== null,
  };
}

function checksTable(view: DomainView): string {
  return table(
    ["CHECK", "STATUS", "DETAIL"],
    view.checks.map((c) => [c.check, c.status, c.fix ? `${c.detail} — publish ${c.fix.type} ${c.fix.name} "${c.fix.value}"` : c.detail]),
  );
}

/** --dns-server first, then MAILROOM_DNS_SERVERS (a test rig's resolvers), else the system's. */
function depsOf(database: Database, config: Config, opts: DnsOption = {}): DomainDeps {
  let lookup;
  try {
    lookup = lookupOn(opts.dnsServer ? [opts.dnsServer] : config.delivery.dnsServers);
  } catch {
    throw new CliError(`--dns-server: "${opts.dnsServer}" is not an IP address (with an optional :port)`);
  }
  return domainDepsFrom({ database, lookup, publicUrl: config.publicUrl, delivery: config.delivery });
}

const noDomain = (account: string, name: string) =>
  new CliError(`${account} has no sender domain ${normalizeDomainName(name)}: add it with \`mailroom domains add\``);

export function registerDomains(program: Command, app: CliApp): void {
  const domains = program.command("domains").description("sender domains: add, list, verify and check, delete, rotate the DKIM key, tracking domain");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;
  const dnsOption = ["--dns-server <address>", "ask this DNS server (ip or ip:port) instead of the system's resolver"] as const;

  withJson(domains.command("add"))
    .description("add a sender domain and print the DNS records to publish")
    .argument("<domain>", "domain name, e.g. mail.example.org")
    .option(...accountOption)
    .action((name: string, opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const view = await addDomain(depsOf(database, config), account.id, name);
        emit(opts, domainJson(view), () => [
          `Added ${view.row.name} to ${account.name} (pending). Publish these DNS records, then run \`mailroom domains verify ${view.row.name}\`:`,
          "",
          recordsTable(view.records),
        ]);
      }),
    );

  withJson(domains.command("list"))
    .description("list an account's sender domains")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const views = await listDomains(depsOf(database, config), account.id);
        emit(opts, views.map(domainJson), () =>
          table(
            ["DOMAIN", "STATUS", "CREATED", "VERIFIED", "CHECKS"],
            views.map(({ row: d, checks }) => [
              d.name,
              d.status,
              formatTime(d.createdAt),
              formatTime(d.verifiedAt),
              checks.length ? checks.map((c) => `${c.check}:${c.status}`).join(" ") : "-",
            ]),
            `${account.name} has no sender domains: add one with \`mailroom domains add DOMAIN\``,
          ),
        );
      }),
    );

  withJson(domains.command("verify"))
    .description("check the domain's DNS now (verification TXT, DKIM, SPF, DMARC, alignment, Return-Path MX, PTR) and mark it verified")
    .argument("<domain>", "domain name")
    .option(...accountOption)
    .option("--force", "mark verified without a DNS check (local use, tests)")
    .option(...dnsOption)
    .action((name: string, opts: AccountOption & DnsOption & { force?: boolean }) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const deps = depsOf(database, config, opts);
        if (opts.force) {
          const found = await getDomain(deps, account.id, name);
          if (!found) throw noDomain(account.name, name);
          const verified = await markDomainVerified(database, found.row.id);
          emit(opts, { name: verified.name, status: verified.status, verifiedAt: verified.verifiedAt?.toISOString() ?? null, checked: false }, () =>
            `${verified.name} is verified (forced, no DNS check)`,
          );
          return;
        }
        const view = await checkDomain(deps, account.id, name);
        if (!view) throw noDomain(account.name, name);
        const verification = view.checks.find((c) => c.check === "verification");
        if (view.row.status !== "verified") throw new CliError(verification?.detail ?? "The verification record was not found");
        const dkimFound = view.checks.some((c) => c.check === "dkim" && c.status === "pass");
        emit(
          opts,
          { ...domainJson(view), checked: true, dkimFound },
          () => [`${view.row.name} is verified`, "", checksTable(view)],
        );
      }),
    );

  withJson(domains.command("delete"))
    .description("remove a sender domain: mail From it is refused from then on")
    .argument("<domain>", "domain name")
    .option(...accountOption)
    .action((name: string, opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        if (!(await deleteDomain(depsOf(database, config), account.id, name))) throw noDomain(account.name, name);
        emit(opts, { name: normalizeDomainName(name), deleted: true }, () => `Deleted ${normalizeDomainName(name)} from ${account.name}`);
      }),
    );

  withJson(domains.command("rotate-dkim"))
    .description("start a DKIM key rotation: a new selector to publish beside the old; it signs once `domains verify` finds it")
    .argument("<domain>", "domain name")
    .option(...accountOption)
    .action((name: string, opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const view = await rotateDkim(depsOf(database, config), account.id, name);
        if (!view) throw noDomain(account.name, name);
        const next = view.records.find((r) => r.purpose === "dkim-next")!;
        emit(opts, domainJson(view), () => [
          `Publish the new DKIM record beside the current one, then run \`mailroom domains verify ${view.row.name}\`:`,
          "",
          recordsTable([next]),
        ]);
      }),
    );

  withJson(domains.command("tracking"))
    .description("set the domain's tracking domain (a CNAME to this instance) for open and click links, or remove it")
    .argument("<domain>", "domain name")
    .argument("[host]", "e.g. track.mail.example.org; left out with --remove")
    .option(...accountOption)
    .option("--remove", "remove the tracking domain")
    .action((name: string, host: string | undefined, opts: AccountOption & { remove?: boolean }) =>
      app.run(async ({ database, config }) => {
        if (!host && !opts.remove) throw new CliError("Give the tracking host, or --remove");
        const account = await resolveAccount(database, opts.account);
        const view = await setTrackingDomain(depsOf(database, config), account.id, name, opts.remove ? null : host!);
        if (!view) throw noDomain(account.name, name);
        const record = view.records.find((r) => r.purpose === "tracking");
        emit(opts, domainJson(view), () =>
          record
            ? [`Publish this CNAME, then run \`mailroom domains verify ${view.row.name}\`: links use it once it checks out`, "", recordsTable([record])]
            : `${view.row.name} has no tracking domain: links use the instance's own host`,
        );
      }),
    );
}
