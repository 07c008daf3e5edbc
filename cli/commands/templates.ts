import type { Command } from "commander";
import { getTemplate, getTemplateVersion, listTemplates } from "../../lib/domain/templates/templates";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

/** A positive whole number argument (a TemplateID or a version), or a CliError naming it. */
function positive(what: string, value: string): number {
  const n = /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new CliError(`"${value}" is not a ${what}`);
  return n;
}

/** `mailroom templates list|show`: an account's templates (docs/contract.md §14), read with the API's own use cases. */
export function registerTemplates(program: Command, app: CliApp): void {
  const templates = program.command("templates").description("an account's templates: list, show");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(templates.command("list"))
    .description("list the live templates (latest version of each)")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const { Templates } = await listTemplates(database, account.id);
        emit(opts, Templates, () =>
          table(
            ["ID", "NAME", "VERSION", "SUBJECT", "UPDATED"],
            Templates.map((t) => [t.TemplateID, t.Name, t.Version, t.Subject, formatTime(t.UpdatedAt)]),
            `No templates in ${account.name}`,
          ),
        );
      }),
    );

  withJson(templates.command("show"))
    .description("show a template's latest version (or --version) and its versions")
    .argument("<id>", "the TemplateID")
    .option(...accountOption)
    .option("--version <n>", "this version instead of the latest")
    .action((id: string, opts: AccountOption & { version?: string }) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const templateId = positive("TemplateID", id);
        const detail = await getTemplate(database, account.id, templateId);
        if (!detail) throw new CliError(`No template ${id} in ${account.name} (unknown or archived)`);
        const shown = opts.version === undefined ? detail : await getTemplateVersion(database, account.id, templateId, positive("version", opts.version));
        if (!shown) throw new CliError(`Template ${id} has no version ${opts.version}`);
        emit(opts, { ...shown, Versions: detail.Versions }, () => [
          `Template ${shown.TemplateID} "${shown.Name}", version ${shown.Version} of ${detail.Versions.length} (${formatTime(shown.CreatedAt)})`,
          `Subject: ${shown.Subject}`,
          ...(shown.HTMLContent !== undefined ? ["", "HTMLContent:", shown.HTMLContent] : []),
          ...(shown.PlainContent !== undefined ? ["", "PlainContent:", shown.PlainContent] : []),
          "",
          table(
            ["VERSION", "SUBJECT", "CREATED"],
            detail.Versions.map((v) => [v.Version, v.Subject, formatTime(v.CreatedAt)]),
          ),
        ]);
      }),
    );
}
