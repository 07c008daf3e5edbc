import type { Command } from "commander";
import { addEgressAddress, assignEgressPool, EgressError, egressView, loadWarmupSchedule, removeEgressAddress, type EgressAddressView } from "../../lib/delivery/egress/admin";
import { CliError, emit, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

/** The errors of egress input are the operator's: printed as such. */
async function operatorErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof EgressError) throw new CliError(err.message);
    throw err;
  }
}

const cap = (n: number | null) => (n === null ? "∞" : String(n));

/** Today's volume against the caps, per provider ("gmail 12/50 (3/8 h)"); none yet: the caps of any provider. */
function volumeText(a: EgressAddressView): string {
  if (a.providers.length === 0) return `0/${cap(a.caps.daily)} a day, 0/${cap(a.caps.hourly)} an hour (each provider)`;
  const shown = a.providers.slice(0, 5).map((p) => `${p.provider} ${p.day}/${cap(p.dailyCap)} (${p.hour}/${cap(p.hourlyCap)} h)`);
  return shown.join(", ") + (a.providers.length > 5 ? `, +${a.providers.length - 5} more` : "");
}

export function registerEgress(program: Command, app: CliApp): void {
  const egress = program.command("egress").description("source addresses of direct-MX delivery, their pools and warm-up: list, add, remove, assign (docs/egress.md)");

  withJson(egress.command("list"))
    .description("each address: pool, EHLO name, warm-up day, today's volume against its caps per provider; and the pools")
    .action((opts: JsonOptions) =>
      app.run(async (cli) => {
        const view = await egressView(cli.database, await loadWarmupSchedule(cli.config.delivery.warmupFile));
        emit(opts, view, () => [
          table(
            ["ADDRESS", "POOL", "EHLO", "WARM-UP", "TODAY (DAY/CAP, HOUR/CAP)"],
            view.addresses.map((a) => [a.address, a.pool, a.ehloName, a.warm ? "warm" : `day ${a.warmupDay}`, volumeText(a)]),
            "No egress address: connections leave from the kernel's choice of source (mailroom egress add ADDRESS --ehlo NAME)",
          ),
          "",
          table(
            ["POOL", "ADDRESSES", "ACCOUNTS"],
            view.pools.map((p) => [p.name, p.addresses, p.name === "default" ? `${p.accounts} + unassigned` : p.accounts]),
          ),
        ]);
      }),
    );

  withJson(egress.command("add"))
    .description("declare a source address (configured on every delivering host) with its EHLO name, in a pool")
    .argument("<address>", "an IPv4 or IPv6 address of this machine")
    .requiredOption("--ehlo <name>", "the EHLO name its connections announce: its PTR name")
    .option("--pool <name>", "its pool (created if new)", "default")
    .option("--warm", "no warm-up: an address that already has a sending history")
    .action((address: string, opts: JsonOptions & { ehlo: string; pool: string; warm?: boolean }) =>
      app.run(async (cli) => {
        const schedule = await loadWarmupSchedule(cli.config.delivery.warmupFile);
        const row = await operatorErrors(() => addEgressAddress(cli.database, { address, ehlo: opts.ehlo, pool: opts.pool, warm: opts.warm }, schedule));
        emit(opts, row, () => `Added ${row.address} (EHLO ${row.ehloName}) to pool ${row.pool}${opts.warm ? ", warm" : ""}`);
      }),
    );

  withJson(egress.command("remove"))
    .description("stop sending from an address (its pool keeps its other addresses)")
    .argument("<address>", "an egress address")
    .action((address: string, opts: JsonOptions) =>
      app.run(async (cli) => {
        const removed = await operatorErrors(() => removeEgressAddress(cli.database, address));
        emit(opts, { removed }, () => `Removed ${removed}: delivery stops binding to it within seconds`);
      }),
    );

  withJson(egress.command("assign"))
    .description("send an account's mail only from a pool's addresses (default: back to the default pool)")
    .argument("<account>", "account id or exact name")
    .argument("<pool>", "a pool name")
    .action((accountRef: string, pool: string, opts: JsonOptions) =>
      app.run(async (cli) => {
        const account = await resolveAccount(cli.database, accountRef);
        const assigned = await operatorErrors(() => assignEgressPool(cli.database, account.id, pool));
        emit(opts, { accountId: account.id, pool: assigned }, () => `Account ${account.name} (${account.id}) sends from pool ${assigned}`);
      }),
    );
}
