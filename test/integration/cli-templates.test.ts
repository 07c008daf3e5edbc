import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiRequestError, createApiClient, type ApiClient } from "../../lib/api-client/client";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/**
 * The Node API client's template methods against the real API, and
 * `mailroom templates list|show` reading what they saved.
 */
describe("templates through lib/api-client and the mailroom CLI", { timeout: 180_000 }, () => {
  let app: TestApp;
  let account: CreatedAccount;
  let client: ApiClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    account = await createTestAccount(app.ctx, { name: "Template shop" });
    client = createApiClient({ baseUrl: app.url, apiKey: account.apiKey });
    env = { DATABASE_URL: app.ctx.config.databaseUrl! };
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("creates, versions, renders, sends, lists and archives with the client; the CLI lists and shows", async () => {
    const saved = await client.createTemplate({ Name: "Welcome", Subject: "Welcome {{name}}", HTMLContent: "<p>Hi {{name}}</p>" });
    expect(saved.Version).toBe(1);
    expect(await client.updateTemplate(saved.TemplateID, { Name: "Welcome", Subject: "Hello {{name}}", PlainContent: "Hi {{name}}" })).toEqual({
      TemplateID: saved.TemplateID,
      Version: 2,
    });
    expect(await client.renderTemplate(saved.TemplateID, { name: "<Ann>" }, 1)).toEqual({ Subject: "Welcome <Ann>", HTMLContent: "<p>Hi &lt;Ann&gt;</p>" });
    const sent = await client.sendEmail({ From: { name: "Shop", email: "shop@example.com" }, To: [{ name: "Ann", email: "ann@example.org" }], TemplateID: saved.TemplateID, TemplateModel: { name: "Ann" } });
    expect(sent.MessageID).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.getTemplateVersion(saved.TemplateID, 1))?.HTMLContent).toBe("<p>Hi {{name}}</p>");
    expect(await client.getTemplateVersion(saved.TemplateID, 3)).toBeUndefined();

    const listed = await runCliJson<{ TemplateID: number; Name: string; Version: number }[]>(["templates", "list", "--account", account.accountId], env);
    expect(listed.map((t) => [t.TemplateID, t.Name, t.Version])).toEqual([[saved.TemplateID, "Welcome", 2]]);
    const shown = await runCliJson<{ Version: number; PlainContent?: string; Versions: { Version: number }[] }>(
      ["templates", "show", String(saved.TemplateID), "--account", account.accountId],
      env,
    );
    expect([shown.Version, shown.PlainContent, shown.Versions.map((v) => v.Version)]).toEqual([2, "Hi {{name}}", [2, 1]]);
    const human = await runCli(["templates", "show", String(saved.TemplateID), "--version", "1", "--account", account.accountId], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("version 1 of 2");
    expect(human.stdout).toContain("<p>Hi {{name}}</p>");

    await client.archiveTemplate(saved.TemplateID);
    expect(await client.getTemplate(saved.TemplateID)).toBeUndefined();
    await expect(client.archiveTemplate(saved.TemplateID)).rejects.toBeInstanceOf(ApiRequestError);
    const missing = await runCli(["templates", "show", String(saved.TemplateID), "--account", account.accountId], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("unknown or archived");
    expect(await runCliJson(["templates", "list", "--account", account.accountId], env)).toEqual([]);
  });
});
