import type { Command } from "commander";
import { queueOf } from "../../lib/maintenance/maintenance-job";
import { parseReportDay, tlsReports } from "../../lib/maintenance/tls-reports";
import { enqueue, startQueue } from "../../lib/queue/boss";
import { selectTlsReportsSent } from "../../lib/storage/tls-report-rows";
import { CliError, emit, table } from "../output";
import { withJson, type CliApp, type JsonOptions } from "../runner";

/** TLS-RPT's daily reports (docs/tls-reports.md): send a day's now, list what was sent. */

function dayOption(value: string | undefined): string {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const day = parseReportDay(value ?? yesterday);
  if (!day) throw new CliError(`--day: "${value}" is not a day like 2026-12-01`);
  return day;
}

export function registerTlsReports(program: Command, app: CliApp): void {
  const group = program.command("tls-reports").description("TLS-RPT daily reports to the policy domains that ask (docs/tls-reports.md): send, list");

  withJson(group.command("send"))
    .description("queue the report job for one UTC day (default: yesterday); the running workers send it within a minute; reports already sent are not sent again")
    .option("--day <YYYY-MM-DD>", "the UTC day")
    .action((opts: JsonOptions & { day?: string }) =>
      app.run(async (cli) => {
        const day = dayOption(opts.day);
        const boss = await startQueue(cli.database.url, { max: 2 });
        try {
          await enqueue(boss, queueOf(tlsReports), { day });
        } finally {
          await boss.stop({ graceful: false, wait: true }).catch(() => {});
        }
        emit(opts, { queued: true, day }, () => `Queued the TLS reports of ${day}: the workers send them within a minute (mailroom tls-reports list --day ${day})`);
      }),
    );

  withJson(group.command("list"))
    .description("the reports of one UTC day (default: yesterday): domain, rua, status, attempts, detail")
    .option("--day <YYYY-MM-DD>", "the UTC day")
    .action((opts: JsonOptions & { day?: string }) =>
      app.run(async (cli) => {
        const day = dayOption(opts.day);
        const rows = await selectTlsReportsSent(cli.database, day);
        emit(opts, rows, () =>
          table(
            ["DOMAIN", "RUA", "STATUS", "ATTEMPTS", "DETAIL"],
            rows.map((r) => [r.policyDomain, r.rua, r.status, r.attempts, r.detail]),
            `No TLS report for ${day}`,
          ),
        );
      }),
    );
}
