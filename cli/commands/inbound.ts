import type { Command } from "commander";
import { createInboundRoute, deleteRoute, listRoutes } from "../../lib/domain/inbound/routes";
import { WebhookUrlRefusedError } from "../../lib/domain/webhooks/webhooks";
import { webhookUrlCheck } from "../../lib/webhooks/destination-check";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

/** `mailroom inbound routes add|list|remove` (docs/contract.md §13.1): the same use cases as the API. */
export function registerInbound(program: Command, app: CliApp): void {
  const inbound = program.command("inbound").description("inbound mail: routes that post received messages to a URL");
  const routes = inbound.command("routes").description("inbound routes: add, list, remove");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(routes.command("add"))
    .description("receive mail for an address (support@in.example.com) or a whole domain (*@in.example.com) and post it to a URL")
    .argument("<match>", "an address or *@domain of a verified domain of the account")
    .argument("<url>", "the http(s) URL the JSON is posted to")
    .option(...accountOption)
    .action((match: string, url: string, opts: AccountOption) =>
      app.run(async ({ database, config }) => {
        const account = await resolveAccount(database, opts.account);
        if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new CliError(`${url}: not an http(s) URL`);
        try {
          const row = await createInboundRoute(database, account.id, { match, webhookUrl: url }, webhookUrlCheck({ allowPrivate: config.webhooks.allowPrivate }));
          emit(opts, { routeId: row.id, accountId: account.id, match: row.match, webhookUrl: row.webhook_url }, () => [
            `Route ${row.id}: mail for ${row.match} is posted to ${row.webhook_url}.`,
          ]);
        } catch (err) {
          if (err instanceof WebhookUrlRefusedError) throw new CliError(err.message);
          throw err;
        }
      }),
    );

  withJson(routes.command("list"))
    .description("list an account's inbound routes")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const rows = await listRoutes(database, account.id);
        emit(
          opts,
          rows.map((r) => ({ routeId: r.id, match: r.match, webhookUrl: r.webhook_url, createdAt: r.created_at.toISOString() })),
          () =>
            table(
              ["ID", "MATCH", "URL", "CREATED"],
              rows.map((r) => [String(r.id), r.match, r.webhook_url, formatTime(r.created_at)]),
              `${account.name} has no inbound routes: add one with \`mailroom inbound routes add '*@in.example.com' https://app.example.com/inbound\``,
            ),
        );
      }),
    );

  withJson(routes.command("remove"))
    .description("remove an inbound route by its id")
    .argument("<id>", "the route id (see `mailroom inbound routes list`)")
    .option(...accountOption)
    .action((id: string, opts: AccountOption) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        if (!(await deleteRoute(database, account.id, Number(id)))) throw new CliError(`${account.name} has no inbound route ${id}`);
        emit(opts, { removed: true, routeId: Number(id) }, () => [`Removed route ${id}.`]);
      }),
    );
}
