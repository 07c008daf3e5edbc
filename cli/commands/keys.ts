import type { Command } from "commander";
import { isUuid } from "../../lib/domain/accounts/accounts";
import { API_KEY_SCOPES, isApiKeyScope } from "../../lib/contract/api-keys";
import { createApiKey, listApiKeys, revokeApiKey } from "../../lib/domain/accounts/api-keys";
import { DomainError } from "../../lib/domain/shared/domain-error";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

type AccountOption = JsonOptions & { account?: string };

export function registerKeys(program: Command, app: CliApp): void {
  const keys = program.command("keys").description("API keys: create, list, revoke");
  const accountOption = ["--account <account>", "account id or name (default: the default account)"] as const;

  withJson(keys.command("create"))
    .description("create an API key (shown once)")
    .option(...accountOption)
    .option("--label <text>", "what the key is for", "")
    .option("--scope <scope>", `${API_KEY_SCOPES.join(", ")}: full may do everything, send only send (API and SMTP), read only GET`, "full")
    .option("--domains <list>", "comma-separated sender domains the key may send from (default: every verified domain)")
    .action((opts: AccountOption & { label: string; scope: string; domains?: string }) =>
      app.run(async ({ database }) => {
        if (!isApiKeyScope(opts.scope)) throw new CliError(`Unknown scope "${opts.scope}": use ${API_KEY_SCOPES.join(", ")}`);
        const account = await resolveAccount(database, opts.account);
        let created;
        try {
          created = await createApiKey(database, account.id, opts.label, { scope: opts.scope, senderDomains: opts.domains?.split(",") });
        } catch (err) {
          if (err instanceof DomainError) throw new CliError(err.message);
          throw err;
        }
        const { key, apiKey } = created;
        emit(
          opts,
          {
            apiKey,
            id: key.id,
            accountId: key.accountId,
            label: key.label,
            prefix: key.prefix,
            scope: key.scope,
            senderDomains: key.senderDomains,
            createdAt: key.createdAt.toISOString(),
          },
          () => [`Created ${key.scope} API key ${key.id} for ${account.name}${key.senderDomains ? ` (sends from ${key.senderDomains.join(", ")} only)` : ""}. Shown once, keep it now:`, `  ${apiKey}`],
        );
      }),
    );

  withJson(keys.command("list"))
    .description("list an account's API keys (prefixes only; keys are stored hashed)")
    .option(...accountOption)
    .action((opts: AccountOption) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const rows = await listApiKeys(database, account.id);
        emit(
          opts,
          rows.map((k) => ({
            id: k.id,
            accountId: k.accountId,
            label: k.label,
            prefix: k.prefix,
            scope: k.scope,
            senderDomains: k.senderDomains,
            status: k.revokedAt ? "revoked" : "active",
            createdAt: k.createdAt.toISOString(),
            lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
            revokedAt: k.revokedAt?.toISOString() ?? null,
          })),
          () =>
            table(
              ["ID", "PREFIX", "LABEL", "SCOPE", "DOMAINS", "STATUS", "CREATED", "LAST USED"],
              rows.map((k) => [
                k.id,
                `${k.prefix}…`,
                k.label,
                k.scope,
                k.senderDomains?.join(",") ?? "any",
                k.revokedAt ? "revoked" : "active",
                formatTime(k.createdAt),
                formatTime(k.lastUsedAt),
              ]),
            ),
        );
      }),
    );

  withJson(keys.command("revoke"))
    .description("revoke an API key: requests with it answer code 13 (within 5 s in every process)")
    .argument("<keyId>", "key id (from `mailroom keys list`)")
    .action((keyId: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        if (!isUuid(keyId) || !(await revokeApiKey(database, keyId))) throw new CliError(`No active API key with id ${keyId}`);
        emit(opts, { id: keyId, status: "revoked" }, () => `Revoked API key ${keyId}`);
      }),
    );
}
