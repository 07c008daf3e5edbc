import type { Command } from "commander";
import { checkDomainDns, describeFailedCheck, txtResolverFor } from "../../lib/domain/accounts/domain-verification";
import {
  addSenderDomain,
  dnsRecordsFor,
  findSenderDomain,
  listSenderDomains,
  markDomainVerified,
  normalizeDomainName,
  type DnsRecord,
  type SenderDomainRow,
} from "../../lib/domain/accounts/sender-domains";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

export function recordsTable(records: DnsRecord[]): string {
  return table(
    ["PURPOSE", "TYPE", "NAME", "VALUE"],
    records.map((r) => [r.purpose, r.type, r.name, r.value]),
  );
}

function domainJson(d: SenderDomainRow, records: DnsRecord[]) {
  return {
    id: d.id,
    accountId: d.accountId,
    name: d.name,
    status: d.status,
    createdAt: d.createdAt.toISOString(),
    verifiedAt: d.verifiedAt?.toISOString() ?? null,
    dnsRecords: records,
  };
}

export function registerDomains(program: Command, app: CliApp): void {
  const domains = program.command("domains").description("sender domains: add, list, verify");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(domains.command("add"))
    .description("add a sender domain and print the DNS records to publish")
    .argument("<domain>", "domain name, e.g. mail.example.org")
    .option(...accountOption)
    .action((name: string, opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const d = await addSenderDomain(database, account.id, name);
        const records = dnsRecordsFor(d, { bounceDomain: config.delivery.bounceDomain });
        emit(opts, domainJson(d, records), () => [
          `Added ${d.name} to ${account.name} (pending). Publish these DNS records, then run \`mailroom domains verify ${d.name}\`:`,
          "",
          recordsTable(records),
        ]);
      }),
    );

  withJson(domains.command("list"))
    .description("list an account's sender domains")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        const rows = await listSenderDomains(database, account.id);
        emit(
          opts,
          rows.map((d) => domainJson(d, dnsRecordsFor(d, { bounceDomain: config.delivery.bounceDomain }))),
          () =>
            table(
              ["DOMAIN", "STATUS", "CREATED", "VERIFIED"],
              rows.map((d) => [d.name, d.status, formatTime(d.createdAt), formatTime(d.verifiedAt)]),
              `${account.name} has no sender domains: add one with \`mailroom domains add DOMAIN\``,
            ),
        );
      }),
    );

  withJson(domains.command("verify"))
    .description("check the domain's _mailroom TXT record in DNS and mark it verified")
    .argument("<domain>", "domain name")
    .option(...accountOption)
    .option("--force", "mark verified without a DNS check (local use, tests)")
    .option("--dns-server <address>", "ask this DNS server (ip or ip:port) instead of the system's resolver")
    .action((name: string, opts: AccountOption & { force?: boolean; dnsServer?: string }) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const domain = await findSenderDomain(database, account.id, name);
        if (!domain) throw new CliError(`${account.name} has no sender domain ${normalizeDomainName(name)}: add it with \`mailroom domains add\``);
        if (domain.status === "verified") {
          emit(opts, { name: domain.name, status: domain.status, verifiedAt: domain.verifiedAt?.toISOString() ?? null, checked: false }, () =>
            `${domain.name} is already verified`,
          );
          return;
        }
        let resolver;
        try {
          resolver = opts.dnsServer ? txtResolverFor([opts.dnsServer]) : undefined;
        } catch {
          throw new CliError(`--dns-server: "${opts.dnsServer}" is not an IP address (with an optional :port)`);
        }
        const check = opts.force ? undefined : await checkDomainDns(domain, resolver);
        if (check && !check.verified) throw new CliError(describeFailedCheck(check));
        const verified = await markDomainVerified(database, domain.id);
        emit(
          opts,
          {
            name: verified.name,
            status: verified.status,
            verifiedAt: verified.verifiedAt?.toISOString() ?? null,
            checked: Boolean(check),
            ...(check && { dkimFound: check.dkimFound }),
          },
          () => [
            `${verified.name} is verified${check ? "" : " (forced, no DNS check)"}`,
            ...(check && !check.dkimFound ? ["Note: the DKIM record is not published yet; receivers will not see a valid signature."] : []),
          ],
        );
      }),
    );
}
