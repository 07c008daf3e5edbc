import type { Command } from "commander";
import { PLANS } from "../../lib/domain/accounts/plans";
import { emit, table } from "../output";
import { withJson, type JsonOptions } from "../runner";

export function registerPlans(program: Command): void {
  withJson(program.command("plans"))
    .description("the plans and their sending limits per API key")
    .action((opts: JsonOptions) => {
      const rows = Object.entries(PLANS).map(([plan, l]) => ({ plan, ...l }));
      const f = (n: number | null) => (n === null ? "unlimited" : n);
      emit(opts, rows, () =>
        table(
          ["PLAN", "PER MINUTE", "PER HOUR", "PER DAY"],
          rows.map((r) => [r.plan, f(r.perMinute), f(r.perHour), f(r.perDay)]),
        ),
      );
    });
}
